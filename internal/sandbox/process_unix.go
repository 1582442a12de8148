//go:build linux || darwin

package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// drainGrace bounds how long output is still read after the process group is
// dead. Inside the sandbox nothing can outlive the init, and the unisolated
// helper kills everything below it, so it only matters for a process that
// escaped both (the helper itself was killed, with no cgroup to kill the
// rest) while holding stdout or stderr open.
const drainGrace = 2 * time.Second

// helperGrace bounds how long the unisolated helper may take to kill what
// is below it after its control pipe closed; then it is killed itself.
const helperGrace = 10 * time.Second

// process is a started init (or unisolated helper) whose output is being
// captured.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *capture
	exited         chan struct{} // closed when the process has exited, before it is reaped
	control        *os.File      // unisolated (Linux): closing it tells the helper to stop
	// kill kills, after the process group and before the process is
	// reaped, what the group kill does not reach: the run's cgroup on
	// Linux, the processes that left the group on macOS. nil: nothing.
	kill func()
	// cleanup runs once the process is reaped (Linux: removes the run's
	// cgroup); its error becomes a warning of the result. nil: nothing.
	cleanup func() error
}

// startProcess starts cmd with stdout and stderr captured. The caller's
// SysProcAttr must set Setsid (or Setpgid), so that the group can be killed
// as a whole.
func startProcess(cmd *exec.Cmd, output func(int64)) (*process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	// The child holds its own copies of the write ends; the readers see EOF
	// once every process holding them is gone.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	var counter *outputCounter
	if output != nil {
		counter = &outputCounter{report: output}
	}
	p := &process{cmd: cmd, stdout: newCapture(outR, counter), stderr: newCapture(errR, counter), exited: make(chan struct{})}
	go p.waitExit()
	return p, nil
}

// wait waits until the process exits or ctx is done, then finishes the run.
func (p *process) wait(ctx context.Context) Result {
	select {
	case <-p.exited:
		return p.finish(false)
	case <-ctx.Done():
		select {
		case <-p.exited: // exited just as the deadline passed: keep its status
			return p.finish(false)
		default:
			return p.finish(true)
		}
	}
}

// finish stops what is left of the run: the unisolated helper is told to
// kill everything below it first; then the process group and what kill
// reaches (the cgroup) are killed. It reaps the process, collects the
// output, cleans up (removes the cgroup) and builds the result.
func (p *process) finish(timedOut bool) Result {
	if p.control != nil {
		p.control.Close()
		timer := time.NewTimer(helperGrace)
		select {
		case <-p.exited:
		case <-timer.C:
		}
		timer.Stop()
	}
	p.killGroup()
	if p.kill != nil {
		p.kill()
	}
	_ = p.cmd.Wait() // the status is read from ProcessState below
	p.collect()
	var res Result
	if timedOut {
		res = timedOutResult(p.stdout, p.stderr)
	} else {
		res = Result{
			ExitCode:  exitCode(p.cmd.ProcessState),
			Stdout:    p.stdout.text(),
			Stderr:    p.stderr.text(),
			Truncated: p.stdout.truncated || p.stderr.truncated,
		}
	}
	if p.cleanup != nil {
		if err := p.cleanup(); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
	}
	return res
}

// killGroup sends SIGKILL to the whole process group. Call it only before
// the process is reaped, so that the group ID still belongs to the run.
func (p *process) killGroup() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // ESRCH: nothing left to kill
}

// collect waits for both readers to reach EOF, or for drainGrace to pass,
// after which reading stops.
func (p *process) collect() {
	both := make(chan struct{})
	go func() {
		<-p.stdout.done
		<-p.stderr.done
		close(both)
	}()
	timer := time.NewTimer(drainGrace)
	defer timer.Stop()
	select {
	case <-both:
	case <-timer.C:
		now := time.Now()
		_ = p.stdout.f.SetReadDeadline(now)
		_ = p.stderr.f.SetReadDeadline(now)
		<-both
	}
	p.stdout.f.Close()
	p.stderr.f.Close()
	p.stdout.counter.flush()
}

// exitCode is the exit status, or 128+n when signal n ended the process.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// removeTree removes dir even where the command took away write permission
// from folders inside it.
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// unwrapPathError strips the *fs.PathError that exec wraps around a start
// failure, whose text repeats a path the caller already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// unwrapSyscall returns the errno under err, or err itself.
func unwrapSyscall(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

// firstLine is the first line of s, for an error message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
