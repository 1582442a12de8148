package attacks

import (
	"os"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// openPTY opens a new pseudo-terminal: its master, and its slave opened
// without becoming this process's controlling terminal.
func openPTY(ts *testscript.TestScript) (master, slave *os.File) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ts.Fatalf("mcp -pty: no pseudo-terminals on this host: %v", err)
	}
	fd := int(master.Fd())
	ts.Check(unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	ts.Check(err)
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	ts.Check(err)
	return master, slave
}

// controllingTerminal starts the child in a new session whose controlling
// terminal is its descriptor fd.
func controllingTerminal(fd int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: fd}
}
