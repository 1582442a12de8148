//go:build !linux

package attacks

import (
	"os"
	"runtime"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// openPTY: mcp -pty is written for Linux pseudo-terminals only.
func openPTY(ts *testscript.TestScript) (master, slave *os.File) {
	ts.Fatalf("mcp -pty needs Linux, this is %s", runtime.GOOS)
	return nil, nil
}

func controllingTerminal(int) *syscall.SysProcAttr { return nil }
