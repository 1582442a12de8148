//go:build unix

package workspace

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system):
// benchmarks report it per operation beside the wall time, which a
// machine shared with other work inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
