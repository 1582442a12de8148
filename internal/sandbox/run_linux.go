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
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Run runs spec.Command with /bin/sh -c in the sandbox and returns what it
// did. It fails closed: if the sandbox cannot be set up, the error is a
// *SetupError naming the step and the errno, and the command does not run.
// A command that exits non-zero, is killed or times out is a Result, not an
// error. Cancelling ctx stops the run like its timeout.
func (c Config) Run(ctx context.Context, spec Spec) (res Result, err error) {
	defer recoverError(&err)
	res, _, err = c.run(ctx, spec, true, "")
	return res, err
}

// RunUnisolated runs spec.Command without isolation: the explicit opt-out
// (VOX_SKILL_SANDBOX=off) for hosts where Run cannot set up namespaces. It
// keeps the timeout, the output caps, the scrubbed environment, the check
// of the skill folder, the resource limits, the cgroup and the seccomp
// filter; the working directory and $HOME are a fresh temporary folder,
// removed afterwards, in which ./skill is a symbolic link to the skill
// folder. The command runs under a helper that is the child subreaper of
// everything it starts and kills all of it when the command ends or times
// out, also what left the session with setsid. The command can read and
// write whatever the calling user can. It logs nothing: warning about the
// opt-out is the caller's job.
func (c Config) RunUnisolated(ctx context.Context, spec Spec) (res Result, err error) {
	defer recoverError(&err)
	res, _, err = c.run(ctx, spec, false, "")
	return res, err
}

// SelfTest runs `true` once in the sandbox, as the server does at start-up
// to learn whether isolation works on this host and which protections the
// host gives. It creates no folder on the host: the skill folder of the
// test run is /usr (bound read-only, as it is anyway), and the new root is
// a tmpfs over an existing folder of the init's private mount namespace.
func (c Config) SelfTest(ctx context.Context) (rep Report) { return c.selfTest(ctx, "") }

// selfTest is SelfTest with the test hook of run.
func (c Config) selfTest(ctx context.Context, failStep string) (rep Report) {
	rep.config = c
	defer func() {
		if r := recover(); r != nil {
			rep.Err = fmt.Errorf("sandbox: internal error: %v", r)
		}
	}()
	var dir string
	var folder FolderID
	for _, d := range []string{"/usr", "/etc"} {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			dir, folder = d, FolderOf(st)
			break
		}
	}
	if dir == "" {
		rep.Err = errors.New("sandbox: self-test: neither /usr nor /etc is a folder")
		return rep
	}
	// The run itself requires nothing: the report says what the host
	// gives, and Problem weighs it against the requirements.
	probe := c
	probe.RequireCgroups, probe.RequireLandlock = false, false
	res, info, err := probe.run(ctx, Spec{SkillID: "sandbox-self-test", SkillDir: dir, Folder: folder, Command: "true"}, true, failStep)
	rep.Cgroups, rep.Landlock, rep.Seccomp = info.cgroups, info.landlock, info.seccomp
	rep.SkillPathHidden = err == nil && info.skillBound == ""
	switch {
	case err != nil:
		rep.Err = err
	case res.TimedOut:
		rep.Err = errors.New("sandbox: self-test: `true` timed out")
	case res.ExitCode != 0:
		rep.Err = fmt.Errorf("sandbox: self-test: `true` exited with status %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	if rep.Err != nil {
		return rep
	}
	if !rep.Cgroups.Complete() {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cgroups: %s (%s); commands run with rlimits only, set %s=cgroups to refuse that",
			rep.Cgroups, rep.Cgroups.Why, EnvRequire))
	}
	if rep.Landlock == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the kernel has no Landlock: file access is confined by the mount namespace only; set %s=landlock to refuse that", EnvRequire))
	}
	if !rep.SkillPathHidden {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the skill folder is bound, not mounted as an overlay (%s; overlayfs in a user namespace needs Linux 5.11): "+
			"a command can read the folder's host path in /proc/self/mountinfo", info.skillBound))
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	return rep
}

// runInfo is what a run applied, for the self-test's report.
type runInfo struct {
	cgroups  CgroupSupport
	landlock int
	seccomp  bool
	// skillBound is why the skill folder was bound (its host path shows
	// in mountinfo) rather than mounted as an overlay, "" when it was not.
	skillBound string
}

// run is Run (isolated) or RunUnisolated, with a test hook: failStep names
// a set-up step that the init fails with EPERM instead of performing it.
func (c Config) run(ctx context.Context, spec Spec, isolated bool, failStep string) (Result, runInfo, error) {
	var info runInfo
	if c.invalid != "" {
		return Result{}, info, &SetupError{Step: "read configuration", Err: errors.New(c.invalid)}
	}
	timeout, err := spec.check()
	if err != nil {
		return Result{}, info, err
	}
	if !initReady.Load() {
		return Result{}, info, errors.New("sandbox: MaybeRunInit was not called at the start of main, so the binary cannot act as the sandbox init")
	}
	if ctx.Err() != nil {
		return timedOutResult(nil, nil), info, nil
	}
	var warnings []string

	cfg := initConfig{
		Isolated:        isolated,
		SkillDir:        spec.SkillDir,
		Skill:           spec.Folder,
		SkillID:         spec.SkillID,
		Command:         spec.Command,
		CPUSeconds:      uint64((timeout+time.Second-1)/time.Second) + 1,
		RequireLandlock: c.RequireLandlock,
		FailStep:        failStep,
	}
	if !isolated {
		dir, err := os.MkdirTemp("", "vox-skill-run-")
		if err != nil {
			return Result{}, info, &SetupError{Step: "create working folder", Err: unwrapPathError(err)}
		}
		defer removeTree(dir)
		if err := os.Symlink(spec.SkillDir, filepath.Join(dir, "skill")); err != nil {
			return Result{}, info, &SetupError{Step: "link ./skill", Err: unwrapPathError(err)}
		}
		cfg.WorkDir = dir
	}

	// The cgroup exists, with its limits, before the init starts.
	cg, err := newRunCgroup(cgroupHostFor(c.cgroupRoot()))
	if err != nil {
		if c.RequireCgroups {
			return Result{}, info, &SetupError{Step: "create cgroup", Err: err}
		}
		warnings = append(warnings, "this run has no cgroup limits: "+err.Error())
		cg = &runCgroup{support: CgroupSupport{Why: err.Error()}}
	}
	info.cgroups = cg.support
	if c.RequireCgroups && !cg.support.Complete() {
		cg.remove()
		return Result{}, info, &SetupError{Step: "create cgroup", Err: fmt.Errorf("%s=cgroups, but this host gives %s (%s)", EnvRequire, cg.support, cg.support.Why)}
	}

	configR, configW, err := os.Pipe()
	if err != nil {
		cg.remove()
		return Result{}, info, &SetupError{Step: "create config pipe", Err: unwrapSyscall(err)}
	}
	defer configW.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		configR.Close()
		cg.remove()
		return Result{}, info, &SetupError{Step: "create status pipe", Err: unwrapSyscall(err)}
	}
	defer statusR.Close()

	attr := &syscall.SysProcAttr{
		// A new session: the command can never reach the terminal the
		// server may have been started from, and the whole session's
		// process group is killed at the end.
		Setsid: true,
	}
	if isolated {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
		// The init is PID 1 of its namespace: its death kills everything
		// in it. The unisolated helper instead notices the server's death
		// by its control pipe, and kills what is below it first.
		attr.Pdeathsig = syscall.SIGKILL
	}
	cmd := &exec.Cmd{
		// /proc/self/exe rather than os.Executable: it still works when the
		// binary on disk was replaced or deleted after start-up.
		Path: "/proc/self/exe",
		Args: []string{"vox-sandbox-init", InitArg},
		Env:  initEnv,
		Dir:  "/", // do not hold the caller's working folder
		// Files 3 and 4 of the init; see configFD and statusFD.
		ExtraFiles:  []*os.File{configR, statusW},
		SysProcAttr: attr,
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer holdThread()()
	p, err := startProcess(cmd, spec.Output)
	configR.Close()
	statusW.Close()
	if err != nil {
		cg.remove()
		if !isolated {
			return Result{}, info, &SetupError{Step: "start helper", Err: unwrapSyscall(err)}
		}
		return Result{}, info, withHint(&SetupError{Step: stepStart, Err: unwrapSyscall(err)})
	}
	p.kill, p.cleanup = cg.kill, cg.remove
	if !isolated {
		p.control = configW
	}
	// The init waits for its config before doing anything, so joining the
	// cgroup now puts it there before any command process exists.
	if err := cg.add(p.cmd.Process.Pid); err != nil {
		if c.RequireCgroups {
			p.finish(false)
			return Result{}, info, &SetupError{Step: "join cgroup", Err: err}
		}
		warnings = append(warnings, "this run has no cgroup limits: "+err.Error())
	}

	// The init reads its whole config before anything else; writing from a
	// goroutine keeps a large command from blocking on a full pipe, and the
	// write fails with EPIPE if the init dies first. Gob, unlike JSON, keeps
	// strings that are not valid UTF-8 byte for byte. The unisolated
	// helper's config pipe stays open: closing it tells the helper to stop.
	written := make(chan struct{})
	go func() {
		defer close(written)
		_ = gob.NewEncoder(configW).Encode(cfg)
		if isolated {
			configW.Close()
		}
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
		res := p.finish(true)
		res.Warnings = append(warnings, res.Warnings...)
		return res, info, nil
	}
	<-written
	var st initStatus
	if len(msg) == 0 || json.Unmarshal(msg, &st) != nil {
		res := p.finish(false)
		if ctx.Err() != nil {
			return timedOutResult(p.stdout, p.stderr), info, nil
		}
		return Result{}, info, &SetupError{
			Step: "start init",
			Err:  fmt.Errorf("init exited with status %d before starting the command: %s", res.ExitCode, firstLine(res.Stderr)),
		}
	}
	if !st.OK {
		p.finish(false)
		return Result{}, info, withHint(st.err())
	}
	info.landlock, info.seccomp, info.skillBound = st.Landlock, st.Seccomp, st.SkillBound
	res := p.wait(ctx)
	res.Warnings = append(warnings, res.Warnings...)
	return res, info, nil
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
