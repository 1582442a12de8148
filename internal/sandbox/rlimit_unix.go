//go:build linux || darwin

package sandbox

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// setRlimits lowers the resource limits of the process to the sandbox's,
// soft and hard alike, so that the command cannot raise them again. A
// host limit that is already lower stays. syscall.Setrlimit, unlike a raw
// call, also stops ForkExec from restoring the RLIMIT_NOFILE that Go found
// at start-up.
func setRlimits(cpuSeconds uint64) error {
	for _, l := range []struct {
		name string
		res  int
		v    uint64
	}{
		{"RLIMIT_AS", unix.RLIMIT_AS, LimitAddressSpace},
		{"RLIMIT_CPU", unix.RLIMIT_CPU, cpuSeconds},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, LimitFileSize},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, LimitOpenFiles},
	} {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.res, &cur); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		v := min(l.v, cur.Max)
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return nil
}
