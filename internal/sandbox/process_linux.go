package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// waitExit closes p.exited when the process exits, without reaping it: as
// long as it is a zombie its PID, and so the process group ID, cannot be
// reused, which keeps the later kill of the group safe.
func (p *process) waitExit() {
	defer close(p.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// processLives reports whether pid is a live process (not a zombie).
func processLives(pid int) bool {
	_, ok := readProcStat(pid)
	return ok
}

// holdThread keeps the calling goroutine on its thread until the returned
// function is called, at the end of the run. Pdeathsig fires when the thread
// that started the child exits, not the process (golang/go#27505), and the
// runtime ends a thread when a goroutine locked to it exits: holding the
// thread means no other goroutine can take it over and end it while the
// child lives.
func holdThread() (release func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
