package sandbox

import (
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Run runs spec.Command with /bin/sh -c in the sandbox and returns what it
// did. It fails closed: if the sandbox cannot be set up, the error is a
// *SetupError naming the step and the errno, and the command does not run.
// A command that exits non-zero, is killed or times out is a Result, not an
// error. Cancelling ctx stops the run like its timeout.
func Run(ctx context.Context, spec Spec) (res Result, err error) {
	defer recoverError(&err)
	return run(ctx, spec, "")
}

// run is Run with a test hook: failStep names a set-up step that the init
// fails with EPERM instead of performing it.
func run(ctx context.Context, spec Spec, failStep string) (Result, error) {
	timeout, err := spec.check()
	if err != nil {
		return Result{}, err
	}
	if !initReady.Load() {
		return Result{}, errors.New("sandbox: MaybeRunInit was not called at the start of main, so the binary cannot act as the sandbox init")
	}
	if ctx.Err() != nil {
		return timedOutResult(nil, nil), nil
	}

	// The new root is mounted on an empty folder of the host; only the
	// init's private mount namespace ever sees anything in it.
	root, err := os.MkdirTemp("", "vox-sandbox-")
	if err != nil {
		return Result{}, &SetupError{Step: "create root mount point", Err: unwrapPathError(err)}
	}
	defer os.Remove(root)

	configR, configW, err := os.Pipe()
	if err != nil {
		return Result{}, &SetupError{Step: "create config pipe", Err: unwrapSyscall(err)}
	}
	defer configW.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		configR.Close()
		return Result{}, &SetupError{Step: "create status pipe", Err: unwrapSyscall(err)}
	}
	defer statusR.Close()

	uid, gid := os.Getuid(), os.Getgid()
	cmd := &exec.Cmd{
		// /proc/self/exe rather than os.Executable: it still works when the
		// binary on disk was replaced or deleted after start-up.
		Path: "/proc/self/exe",
		Args: []string{"vox-sandbox-init", InitArg},
		Env:  initEnv,
		Dir:  "/", // do not hold the caller's working folder
		// Files 3 and 4 of the init; see configFD and statusFD.
		ExtraFiles: []*os.File{configR, statusW},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
				syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
			Setpgid:     true,
			Pdeathsig:   syscall.SIGKILL,
		},
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer holdThread()()
	p, err := startProcess(cmd)
	configR.Close()
	statusW.Close()
	if err != nil {
		return Result{}, withHint(&SetupError{Step: stepStart, Err: unwrapSyscall(err)})
	}

	// The init reads its whole config before anything else; writing from a
	// goroutine keeps a large command from blocking on a full pipe, and the
	// write fails with EPIPE if the init dies first. Gob, unlike JSON, keeps
	// strings that are not valid UTF-8 byte for byte.
	written := make(chan struct{})
	go func() {
		defer close(written)
		_ = gob.NewEncoder(configW).Encode(initConfig{
			Root:     root,
			SkillDir: spec.SkillDir,
			SkillID:  spec.SkillID,
			Command:  spec.Command,
			FailStep: failStep,
		})
		configW.Close()
	}()
	defer func() { <-written }()

	// The init writes one status message: ok once the shell has been
	// started (exec succeeded), or the failed step. EOF without a message
	// means the init died before it could report.
	statusCh := make(chan []byte, 1)
	go func() {
		msg, _ := io.ReadAll(io.LimitReader(statusR, 64<<10))
		statusCh <- msg
	}()
	var msg []byte
	select {
	case msg = <-statusCh:
	case <-ctx.Done():
		return p.finish(true), nil
	}
	var st initStatus
	if len(msg) == 0 || json.Unmarshal(msg, &st) != nil {
		res := p.finish(false)
		if ctx.Err() != nil {
			return timedOutResult(p.stdout, p.stderr), nil
		}
		return Result{}, &SetupError{
			Step: "start init",
			Err:  fmt.Errorf("init exited with status %d before starting the command: %s", res.ExitCode, firstLine(res.Stderr)),
		}
	}
	if !st.OK {
		p.finish(false)
		return Result{}, withHint(st.err())
	}
	return p.wait(ctx), nil
}

// stepStart is the step that creates the namespaces, in the parent.
const stepStart = "start namespaces"

// withHint adds the usual cause to the errno of steps that fail on hosts
// that restrict namespaces, so that the message says what to look at.
func withHint(e *SetupError) error {
	errno, ok := e.Err.(syscall.Errno)
	if !ok {
		return e
	}
	hint := ""
	switch {
	case e.Step == stepStart && (errno == syscall.EPERM || errno == syscall.EACCES):
		hint = "unprivileged user namespaces are disabled on this host: see sysctls kernel.unprivileged_userns_clone " +
			"and kernel.apparmor_restrict_unprivileged_userns, or the container's seccomp profile"
	case e.Step == stepStart && errno == syscall.ENOSPC:
		hint = "no user namespace may be created: sysctl user.max_user_namespaces is 0 or used up"
	case e.Step == stepStart && errno == syscall.EINVAL:
		hint = "the kernel lacks one of the user, mount, PID, network, IPC or UTS namespaces"
	case e.Step == stepProc && errno == syscall.EPERM:
		hint = "a host /proc with paths masked by mounts, as in many containers, forbids mounting a fresh one"
	default:
		return e
	}
	return &SetupError{Step: e.Step, Err: errnoDetail{errno.Error() + " (" + hint + ")", errno}}
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
