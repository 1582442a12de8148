// Command peakrss runs a program for the attack suite and reports the
// program's own peak resident set size; it kills the program as soon as
// that peak passes a bound.
//
//	peakrss RESULT MAXBYTES PROG [ARGS...]
//
// It exists because the peak that wait4 reports for a child of the test
// process is not the child's own: Go starts children with vfork
// (CLONE_VM), so at exec the kernel records the test process's high-water
// RSS as the child's, and a test binary that once held 200 MiB made every
// short vox run "peak" at 200 MiB. Started from this small program, a
// child inherits a high-water mark of a few MiB at most.
//
// PROG gets this program's standard input, output and error. When PROG
// ends, RESULT holds its peak RSS in bytes (the larger of what polling
// VmHWM saw and what wait4 reported), and peakrss exits with PROG's exit
// code, or 128 plus the signal that ended it. If peakrss is killed, so is
// PROG (parent-death signal).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: peakrss RESULT MAXBYTES PROG [ARGS...]")
		os.Exit(2)
	}
	result := os.Args[1]
	max, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil || max <= 0 {
		fmt.Fprintf(os.Stderr, "peakrss: MAXBYTES must be a positive number, not %q\n", os.Args[2])
		os.Exit(2)
	}
	// The parent-death signal is tied to the thread that started the child.
	runtime.LockOSThread()
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "peakrss: %v\n", err)
		os.Exit(127)
	}
	var polled atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			peak := highWater(cmd.Process.Pid)
			if peak > polled.Load() {
				polled.Store(peak)
			}
			if peak > max {
				cmd.Process.Kill()
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	cmd.Wait()
	close(done)
	peak := polled.Load()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss<<10 > peak {
		peak = ru.Maxrss << 10 // KiB on Linux
	}
	if err := os.WriteFile(result, []byte(strconv.FormatInt(peak, 10)), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "peakrss: %v\n", err)
		os.Exit(2)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// highWater reads a live process's peak resident set size (VmHWM) in
// bytes; 0 when it cannot be read.
func highWater(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
