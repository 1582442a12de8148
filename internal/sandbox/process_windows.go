package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/windows"
)

// drainGrace bounds how long output is still read after the job is dead.
// Nothing in the job outlives it, so the pipes reach EOF at once, unless
// an unisolated command (which runs as the user, at the user's integrity)
// duplicated a pipe handle into a process outside the job; then the
// pending reads are cancelled.
const drainGrace = 2 * time.Second

// process is a started command in its job object, its output captured.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *capture
	exited         chan struct{} // closed when the process has exited and been waited for
	job            windows.Handle
	outlived       bool // after the job was killed, the output stayed open for drainGrace
}

// outlivedWarning starts the warning of a run after whose end a process
// still held the output open: it was not in the job, or the job's kill
// did not take it. The self-test fails on it.
const outlivedWarning = "a process outlived the run"

// startInJob starts cmd suspended, puts it in job, then lets it run: no
// instruction of the command runs outside the job, so none of its
// children can either. The caller's SysProcAttr sets CREATE_SUSPENDED.
func startInJob(cmd *exec.Cmd, job windows.Handle, output func(int64)) (*process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, &SetupError{Step: "create output pipes", Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, &SetupError{Step: "create output pipes", Err: err}
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &SetupError{Step: "start process", Err: unwrapPathError(err)}
	}
	// The process is suspended and not yet waited for, so its PID is
	// still its own.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME,
		false, uint32(cmd.Process.Pid))
	if err == nil {
		defer windows.CloseHandle(h)
		err = windows.AssignProcessToJobObject(job, h)
		if err != nil {
			err = &SetupError{Step: "assign job object", Err: err}
		} else if r, _, e := procNtResumeProcess.Call(uintptr(h)); r != 0 {
			err = &SetupError{Step: "resume process", Err: e}
		}
	} else {
		err = &SetupError{Step: "open process", Err: err}
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
		errR.Close()
		return nil, err
	}
	var counter *outputCounter
	if output != nil {
		counter = &outputCounter{report: output}
	}
	p := &process{cmd: cmd, job: job, stdout: newCapture(outR, counter), stderr: newCapture(errR, counter), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the status is read from ProcessState
		close(p.exited)
	}()
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

// finish kills every process of the job, collects the output and builds
// the result.
func (p *process) finish(timedOut bool) Result {
	_ = windows.TerminateJobObject(p.job, 1)
	<-p.exited
	p.collect()
	var res Result
	if timedOut {
		res = timedOutResult(p.stdout, p.stderr)
	} else {
		res = Result{
			ExitCode:  p.cmd.ProcessState.ExitCode(),
			Stdout:    p.stdout.text(),
			Stderr:    p.stderr.text(),
			Truncated: p.stdout.truncated || p.stderr.truncated,
		}
	}
	if p.outlived {
		res.Warnings = append(res.Warnings, outlivedWarning+": it held the output open after every process of the job was killed; reading it was cancelled")
	}
	return res
}

// collect waits for both readers to reach EOF; after drainGrace it
// cancels their pending reads.
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
		p.outlived = true
		_ = windows.CancelIoEx(windows.Handle(p.stdout.f.Fd()), nil)
		_ = windows.CancelIoEx(windows.Handle(p.stderr.f.Fd()), nil)
		<-both
	}
	p.stdout.f.Close()
	p.stderr.f.Close()
	p.stdout.counter.flush()
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
