package server

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and kernel) the process has used, from
// GetProcessTimes.
func processCPU() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var creation, exit, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	// A Filetime counts 100 ns intervals; Nanoseconds reads it as a date
	// since 1601, so the two durations are taken from their raw halves.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
