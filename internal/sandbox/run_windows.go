package sandbox

// On Windows (docs/sandbox.md, "Windows") a command runs with cmd.exe
// /d /s /c under a restricted, low-integrity token, in a job object, in a
// private folder labelled low integrity; the skill folder is reachable
// read-only through the junction ./skill. A low-integrity process can
// write nothing labelled medium or higher (every file and folder without
// a label), so its writes are confined to the private folder; its reads
// and its network are not confined, which the self-test observes and
// reports. Because the token alone does not prove that the host enforces
// integrity levels (Wine does not), Run refuses to start a command until
// the self-test has seen every write protection hold on this host.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/windows"
)

// FolderOf has no folder identity to give on Windows: an os.FileInfo
// carries no file index. The skill registry reads it from a handle
// (internal/skills/proc_windows.go).
func FolderOf(os.FileInfo) FolderID { return FolderID{} }

// probeArg is the hidden first argument that makes the binary the
// self-test's probe (selftest_windows.go) instead of itself.
const probeArg = "__vox-sandbox-probe"

// MaybeRunInit turns the process into the self-test's probe when it was
// started as one, and records that main called it.
func MaybeRunInit() {
	if len(os.Args) > 1 && os.Args[1] == probeArg {
		os.Exit(runProbe(os.Args[2:]))
	}
	initReady.Store(true)
}

// Run runs spec.Command with cmd.exe in the sandbox. It fails closed: if
// the self-test found that a protection does not hold on this host, or a
// set-up step fails, the error is a *SetupError and the command does not
// run. A command that exits non-zero, is killed or times out is a Result.
func (c Config) Run(ctx context.Context, spec Spec) (res Result, err error) {
	defer recoverError(&err)
	if c.invalid != "" {
		return Result{}, &SetupError{Step: "read configuration", Err: errors.New(c.invalid)}
	}
	if _, err := spec.check(); err != nil {
		return Result{}, err
	}
	if !initReady.Load() {
		return Result{}, errNoInit
	}
	if rep := hostReport(); rep.Err != nil {
		return Result{}, &SetupError{Step: "self-test", Err: rep.Err}
	}
	return c.run(ctx, spec, true, nil)
}

// RunUnisolated runs spec.Command without isolation
// (VOX_SKILL_SANDBOX=off): the user's own token, in a private folder, but
// in a job object with the same limits, every process of which is killed
// at the end.
func (c Config) RunUnisolated(ctx context.Context, spec Spec) (res Result, err error) {
	defer recoverError(&err)
	return c.run(ctx, spec, false, nil)
}

var errNoInit = errors.New("sandbox: MaybeRunInit was not called at the start of main, so the binary cannot act as the self-test's probe")

// run is Run or RunUnisolated. probe, when set, are the arguments of
// this binary as the self-test's probe, run instead of cmd.exe.
func (c Config) run(ctx context.Context, spec Spec, isolated bool, probe []string) (Result, error) {
	if c.invalid != "" {
		return Result{}, &SetupError{Step: "read configuration", Err: errors.New(c.invalid)}
	}
	timeout, err := spec.check()
	if err != nil {
		return Result{}, err
	}
	if probe == nil {
		if err := checkWindowsCommand(spec.Command); err != nil {
			return Result{}, err
		}
	}
	if !initReady.Load() {
		return Result{}, errNoInit
	}
	if ctx.Err() != nil {
		return timedOutResult(nil, nil), nil
	}

	skill, err := openDiscovered(spec.SkillDir, spec.Folder)
	if err != nil {
		return Result{}, &SetupError{Step: StepOpenSkill, Err: err}
	}
	defer windows.CloseHandle(skill)

	dir, err := os.MkdirTemp("", "vox-skill-run-")
	if err != nil {
		return Result{}, &SetupError{Step: "create working folder", Err: unwrapPathError(err)}
	}
	link := filepath.Join(dir, "skill")
	defer func() {
		// Remove the junction itself first, never what it leads to.
		if p, err := windows.UTF16PtrFromString(link); err == nil {
			_ = windows.RemoveDirectory(p)
		}
		_ = os.RemoveAll(dir)
	}()
	if isolated {
		if err := labelLow(dir); err != nil {
			return Result{}, &SetupError{Step: "label working folder low integrity", Err: err}
		}
	}
	var warnings []string
	if err := makeJunction(link, spec.SkillDir); errors.Is(err, errNoJunction) {
		warnings = append(warnings, "no ./skill in this run ("+err.Error()+"): the skill folder is %VOX_SKILL_DIR%")
	} else if err != nil {
		return Result{}, &SetupError{Step: "link ./skill", Err: err}
	}

	job, jobWarnings, err := newJob(jobLimitsFor(timeout, runtime.NumCPU()))
	if err != nil {
		return Result{}, err
	}
	warnings = append(warnings, jobWarnings...)
	// Closing the job kills whatever is left in it (KILL_ON_JOB_CLOSE),
	// also when this function panics.
	defer windows.CloseHandle(job)

	sysRoot, err := windows.GetSystemWindowsDirectory()
	if err != nil {
		return Result{}, &SetupError{Step: "find the Windows folder", Err: err}
	}
	attr := &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP,
	}
	cmd := &exec.Cmd{Env: windowsEnv(sysRoot, dir, spec.SkillID, spec.SkillDir), Dir: dir, SysProcAttr: attr}
	if probe != nil {
		exe, err := os.Executable()
		if err != nil {
			return Result{}, &SetupError{Step: "find own executable", Err: err}
		}
		cmd.Path, cmd.Args = exe, append([]string{exe, probeArg}, probe...)
	} else {
		cmd.Path = filepath.Join(sysRoot, "System32", "cmd.exe")
		attr.CmdLine = cmdLine(cmd.Path, spec.Command)
	}
	if isolated {
		token, err := lowIntegrityToken()
		if err != nil {
			return Result{}, &SetupError{Step: "create low-integrity token", Err: err}
		}
		defer token.Close()
		attr.Token = syscall.Token(token)
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p, err := startInJob(cmd, job, spec.Output)
	if err != nil {
		return Result{}, err
	}
	res := p.wait(ctx)
	res.Warnings = append(warnings, res.Warnings...)
	return res, nil
}
