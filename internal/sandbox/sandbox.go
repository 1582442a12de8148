// Package sandbox runs a command for an installed skill in Linux namespaces,
// the isolation behind the MCP tool vox_skill_run (docs/sandbox.md,
// "Linux"). On macOS it runs the command under a Seatbelt profile instead
// (run_darwin.go, seatbelt.go; docs/sandbox.md, "macOS"); what follows
// describes Linux.
//
// Run re-executes the running binary (/proc/self/exe) with the hidden first
// argument InitArg, in a new session (no controlling terminal) and in new
// user, mount, PID, network, IPC and UTS namespaces, the caller's uid and gid
// mapped to 0. Before the init does anything, Run moves it into a fresh
// cgroup where the host delegates one (memory, pids and CPU limits, killed
// as a whole at the end). The init builds a root on a tmpfs mounted over an
// existing folder of its private mount namespace (so nothing is created on
// the host) and pivots into it:
//
//	/usr /bin /sbin /lib /lib64     read-only binds (symlinks such as /bin -> usr/bin recreated)
//	/etc/{ld.so.cache,alternatives,ssl,passwd,group}   read-only binds, those that exist
//	/proc                           a fresh proc of the new PID namespace, read-only
//	/dev                            null zero full random urandom (bound from the host), fd stdin stdout stderr; no tty
//	/tmp                            writable tmpfs (256 MiB): working directory and $HOME
//	/tmp/skill                      the skill folder, read-only: an overlayfs of the folder
//	                                alone, so that mountinfo shows no host path (a
//	                                read-only bind where overlayfs cannot be mounted)
//
// The skill folder is mounted only if it is still the folder that was
// discovered: the init opens its path without following any symlink
// (openat2 RESOLVE_NO_SYMLINKS) and compares device and inode with
// Spec.Folder before mounting through that descriptor.
//
// Everything else of the host (the workspace, /root, /home, ...) is absent,
// / itself is read-only, and the network namespace has only a loopback
// interface that is down. The init then empties the capability bounding set
// and the ambient, effective, permitted and inheritable sets, sets
// no_new_privs, sets resource limits (RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE,
// RLIMIT_NOFILE), restricts file access to the bound paths with Landlock
// where the kernel has it, installs a seccomp filter (no terminal
// injection, ptrace, mounts, namespaces, keyrings, bpf, perf, userfaultfd,
// kexec, io_uring, kernel modules, open_by_handle_at, or socket families
// but unix, inet, inet6 and netlink) and starts /bin/sh -c as its child, in a new session, with
// exactly PATH, HOME, LANG=C.UTF-8 and VOX_SKILL_ID in the environment. It
// stays PID 1 of the new PID namespace and reaps; when the shell exits the
// init exits with its status, and the kernel kills whatever the command left
// behind.
//
// Every binary that calls Run must call MaybeRunInit first thing in main (test
// binaries in TestMain), because the re-executed copy of the binary has to
// turn into the init before any other start-up code runs; Run refuses to
// start otherwise.
//
// Run fails closed: when any set-up step fails it returns a *SetupError naming
// the step and the errno, and the command does not run. RunUnisolated is the
// explicit opt-out (VOX_SKILL_SANDBOX=off) with the same timeout, output caps,
// scrubbed environment, resource limits and seccomp filter, but no
// namespaces: a helper process, child subreaper of everything the command
// starts, kills every descendant (also those that called setsid) when the
// command ends or times out.
//
// On Windows (run_windows.go; docs/sandbox.md, "Windows") the command
// runs with cmd.exe under a low-integrity token in a job object, and Run
// refuses until the self-test has seen the protections hold on the host.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// InitArg is the hidden first argument of the re-executed binary.
const InitArg = "__vox-sandbox-init"

// Limits of a run.
const (
	MaxTimeout     = 300 * time.Second
	DefaultTimeout = 30 * time.Second
	OutputCap      = 1 << 20 // bytes kept of each of stdout and stderr
)

// Resource limits of every command (docs/sandbox.md, "Limits"). The rlimits hold on
// every host; the cgroup limits where the host delegates a writable cgroup.
const (
	LimitAddressSpace = 8 << 30   // RLIMIT_AS: virtual memory of each process (a JVM needs 4 GiB)
	LimitFileSize     = 256 << 20 // RLIMIT_FSIZE: largest file a process may write, the size of /tmp
	LimitOpenFiles    = 4096      // RLIMIT_NOFILE: descriptors of each process
	CgroupMemory      = 2 << 30   // memory (and memory+swap) of the whole command
	CgroupPids        = 512       // processes and threads of the whole command
	// RLIMIT_CPU is the timeout in whole seconds plus one: a process that
	// spins past it dies even if the timeout's kill failed. The cgroup's CPU
	// quota is cgroupCPUs().
)

// cgroupCPUs is the CPU quota of a command: half of the host's CPUs, at
// least one, so that a busy command leaves room for the server and the
// agent.
func cgroupCPUs() int { return max(1, runtime.NumCPU()/2) }

// maxCommandLen is the longest command execve accepts as one argument
// (MAX_ARG_STRLEN, 32 pages, including the terminating NUL).
const maxCommandLen = 32*4096 - 1

// truncationMarker ends a stream that was cut at OutputCap.
var truncationMarker = "\n[truncated after " + strconv.Itoa(OutputCap) + " bytes]"

// shellPath is the shell that runs every command, inside and outside the sandbox.
const shellPath = "/bin/sh"

// commandPath is the PATH the command sees.
const commandPath = "/usr/local/bin:/usr/bin:/bin"

// Spec says what to run for which skill.
type Spec struct {
	SkillID  string // becomes VOX_SKILL_ID
	SkillDir string // absolute path of the skill folder without symlinks, bound read-only at ./skill
	// Folder identifies SkillDir as it was when the skill was discovered.
	// The command runs only if SkillDir, opened without following any
	// symlink, is still that folder.
	Folder  FolderID
	Command string        // run with /bin/sh -c
	Timeout time.Duration // 0 means DefaultTimeout; callers validate MaxTimeout
	// Output, when set, hears how many bytes of stdout and stderr together
	// the command wrote so far, at most every OutputReportEvery, with a
	// larger count each time and the final count last, before Run returns
	// (vox_skill_run reports it as progress). It is called from the
	// goroutines that read the output, one at a time.
	Output func(bytes int64)
}

// OutputReportEvery is the least time between two calls of Spec.Output.
const OutputReportEvery = 100 * time.Millisecond

// FolderID identifies a folder by device and inode, which stay the same
// across mount namespaces. The zero FolderID is no record.
type FolderID struct{ Dev, Ino uint64 }

// Result is what a command did. A set-up failure is an error, never a Result.
type Result struct {
	ExitCode  int    // exit status, 128+n for a signal, -1 on timeout
	Stdout    string // at most OutputCap bytes, then the truncation marker
	Stderr    string // at most OutputCap bytes, then the truncation marker
	TimedOut  bool   // the timeout expired or the context was cancelled
	Truncated bool   // stdout or stderr was cut
	// Warnings say which protection this run went without because the
	// host does not offer it (a cgroup controller, Landlock) and the
	// Config does not require it; the caller logs them.
	Warnings []string
}

// StepOpenSkill is the set-up step that opens the skill folder and checks
// that it is the folder discovered: its SetupError means the folder changed
// or went away, not that the host cannot isolate.
const StepOpenSkill = "open skill folder"

// SetupError reports that the sandbox could not be set up, so the command did
// not run. Err is usually a syscall.Errno, so errors.Is(err, syscall.EPERM)
// works on the error Run returns.
type SetupError struct {
	Step string // the set-up step that failed, e.g. "mount /proc"
	Err  error
}

func (e *SetupError) Error() string { return "sandbox: " + e.Step + ": " + e.Err.Error() }

func (e *SetupError) Unwrap() error { return e.Err }

// Config is how the sandbox uses the host; the zero Config is the default.
type Config struct {
	// RequireCgroups makes a run fail closed unless the memory, pids and
	// CPU limits and the cgroup kill all apply
	// (VOX_SKILL_SANDBOX_REQUIRE=cgroups). Without it a missing cgroup is
	// a warning.
	RequireCgroups bool
	// RequireLandlock makes a run fail closed where the kernel has no
	// Landlock (VOX_SKILL_SANDBOX_REQUIRE=landlock).
	RequireLandlock bool
	// CgroupRoot is where the host's cgroup file systems are mounted
	// (VOX_SKILL_CGROUP_ROOT); "" means /sys/fs/cgroup. Only cgroup mounts
	// at or below it are used.
	CgroupRoot string

	// invalid is set by ConfigFromEnv for a value it does not know: the
	// sandbox then fails closed, naming it.
	invalid string
}

// Environment variables read by ConfigFromEnv.
const (
	EnvRequire    = "VOX_SKILL_SANDBOX_REQUIRE"
	EnvCgroupRoot = "VOX_SKILL_CGROUP_ROOT"
)

// ConfigFromEnv reads VOX_SKILL_SANDBOX_REQUIRE (a comma-separated list of
// cgroups and landlock) and VOX_SKILL_CGROUP_ROOT. An unknown requirement
// is not ignored: every run fails closed, saying which value is wrong.
func ConfigFromEnv(getenv func(string) string) Config {
	var c Config
	for _, w := range strings.Split(getenv(EnvRequire), ",") {
		switch w = strings.ToLower(strings.TrimSpace(w)); w {
		case "":
		case "cgroups":
			c.RequireCgroups = true
		case "landlock":
			c.RequireLandlock = true
		default:
			c.invalid = fmt.Sprintf("%s=%s: unknown requirement %q; allowed: cgroups, landlock (comma-separated)",
				EnvRequire, getenv(EnvRequire), w)
		}
	}
	c.CgroupRoot = getenv(EnvCgroupRoot)
	return c
}

func (c Config) cgroupRoot() string {
	if c.CgroupRoot == "" {
		return "/sys/fs/cgroup"
	}
	return filepath.Clean(c.CgroupRoot)
}

// Report is what the start-up self-test found: whether commands can run
// isolated on this host, and which protections the host gives.
type Report struct {
	// Err is why isolation cannot be set up (the self-test's `true` run
	// failed), nil when it works.
	Err error
	// Seccomp is true when the filter was installed.
	Seccomp bool
	// Landlock is the Landlock ABI version applied, 0 when the kernel has
	// none.
	Landlock int
	// Cgroups says what the host's cgroups give.
	Cgroups CgroupSupport
	// SkillPathHidden is true when the skill folder is mounted as an
	// overlay, so that /proc/self/mountinfo shows no host path inside.
	SkillPathHidden bool
	// Warnings name the protections missing on this host that the
	// Config does not require; the server logs them.
	Warnings []string
	// Mechanism names what isolates commands where it is not Linux
	// namespaces (macOS: Seatbelt; Windows: a low-integrity token and a
	// job object); String reports it.
	Mechanism string

	config Config
}

// CgroupSupport says where each cgroup protection comes from: "v2" or
// "v1" (a cgroup v1 hierarchy), "" when the host does not give it.
type CgroupSupport struct {
	Memory, Pids, CPU string
	// Kill is "cgroup.kill" (v2), "freezer" (v1: freeze, kill every
	// task, thaw) or "".
	Kill string
	// Why explains what is missing, "" when everything is there.
	Why string
}

// Complete reports whether every cgroup protection applies.
func (c CgroupSupport) Complete() bool {
	return c.Memory != "" && c.Pids != "" && c.CPU != "" && c.Kill != ""
}

func (c CgroupSupport) String() string {
	name := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	return fmt.Sprintf("memory %s, pids %s, cpu %s, kill %s", name(c.Memory), name(c.Pids), name(c.CPU), name(c.Kill))
}

// Problem is why vox_skill_run must fail closed with this report: isolation
// does not work, or the Config requires what the host lacks. nil means
// commands may run.
func (r Report) Problem() error {
	switch {
	case r.config.invalid != "":
		return errors.New("sandbox: " + r.config.invalid)
	case r.Err != nil:
		return r.Err
	case r.config.RequireCgroups && !r.Cgroups.Complete():
		return fmt.Errorf("sandbox: %s=cgroups, but this host gives no complete writable cgroup (%s: %s); "+
			"run vox-mcp in a cgroup it may write (docs/sandbox.md), or drop cgroups from %s",
			EnvRequire, r.Cgroups, r.Cgroups.Why, EnvRequire)
	case r.config.RequireLandlock && r.Landlock == 0:
		return fmt.Errorf("sandbox: %s=landlock, but this kernel has no Landlock; "+
			"boot with landlock in the lsm= list, or drop landlock from %s", EnvRequire, EnvRequire)
	}
	return nil
}

// String is a one-line summary for the log.
func (r Report) String() string {
	if r.Err != nil {
		return "isolation unavailable: " + r.Err.Error()
	}
	if r.Mechanism != "" {
		return r.Mechanism
	}
	ll := "landlock none"
	if r.Landlock > 0 {
		ll = "landlock ABI " + strconv.Itoa(r.Landlock)
	}
	sc := "seccomp none"
	if r.Seccomp {
		sc = "seccomp filter"
	}
	return "namespaces, " + sc + ", " + ll + ", cgroups: " + r.Cgroups.String()
}

// Supported is nil on the systems that have a sandbox (Linux, macOS,
// Windows), where the self-test decides whether it works on the host, and
// says why not elsewhere: there vox_skill_run is never listed
// (docs/sandbox.md, "Where skill commands run").
func Supported() error {
	switch runtime.GOOS {
	case "linux", "darwin", "windows":
		return nil
	}
	return errors.New("sandbox: skill commands run isolated on Linux, macOS and Windows only, this is " + runtime.GOOS)
}

// UnisolatedSupported reports whether RunUnisolated, the explicit opt-out
// VOX_SKILL_SANDBOX=off, runs commands on this system (with its timeout
// and process kill). Only where it does may an error advise the opt-out.
func UnisolatedSupported() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "windows":
		return true
	}
	return false
}

// initReady records that MaybeRunInit ran in this process, so that Run can
// refuse to re-execute a binary whose main would not turn into the init.
var initReady atomic.Bool

// recoverError turns a panic in an exported entry point into its error.
func recoverError(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("sandbox: internal error: %v", r)
	}
}

// check validates spec and returns the timeout to apply.
func (s Spec) check() (time.Duration, error) {
	switch {
	case s.Timeout < 0:
		return 0, fmt.Errorf("sandbox: negative timeout %v", s.Timeout)
	case s.Timeout > MaxTimeout:
		return 0, fmt.Errorf("sandbox: timeout %v exceeds the maximum %v", s.Timeout, MaxTimeout)
	case !filepath.IsAbs(s.SkillDir):
		return 0, fmt.Errorf("sandbox: skill folder %q is not an absolute path", s.SkillDir)
	case filepath.Clean(s.SkillDir) != s.SkillDir:
		return 0, fmt.Errorf("sandbox: skill folder %q is not a clean path", s.SkillDir)
	case strings.ContainsRune(s.SkillDir, 0), strings.ContainsRune(s.SkillID, 0):
		return 0, errors.New("sandbox: skill id or folder contains a NUL byte")
	case strings.ContainsRune(s.Command, 0):
		return 0, errors.New("sandbox: command contains a NUL byte")
	case len(s.Command) > maxCommandLen:
		return 0, fmt.Errorf("sandbox: command is %d bytes long, at most %d are allowed", len(s.Command), maxCommandLen)
	case s.Folder == FolderID{}:
		return 0, fmt.Errorf("sandbox: no record of the skill folder %s as discovered", s.SkillDir)
	}
	if s.Timeout == 0 {
		return DefaultTimeout, nil
	}
	return s.Timeout, nil
}

// commandEnv is the whole environment of the command: nothing from the host.
func commandEnv(home, skillID string) []string {
	return []string{
		"PATH=" + commandPath,
		"HOME=" + home,
		"LANG=C.UTF-8",
		"VOX_SKILL_ID=" + skillID,
	}
}

// Run runs spec.Command in the sandbox with the default Config.
func Run(ctx context.Context, spec Spec) (Result, error) { return Config{}.Run(ctx, spec) }

// RunUnisolated runs spec.Command without namespaces with the default Config.
func RunUnisolated(ctx context.Context, spec Spec) (Result, error) {
	return Config{}.RunUnisolated(ctx, spec)
}

// SelfTest runs the self-test with the default Config.
func SelfTest(ctx context.Context) Report { return Config{}.SelfTest(ctx) }
