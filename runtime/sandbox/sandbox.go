// Package sandbox runs a command for an installed skill in Linux namespaces,
// the isolation behind the MCP tool vox_skill_run (spec 40-skills.md §7).
//
// Run re-executes the running binary (/proc/self/exe) with the hidden first
// argument InitArg in new user, mount, PID, network, IPC and UTS namespaces,
// the caller's uid and gid mapped to 0. That init builds a root on tmpfs and
// pivots into it:
//
//	/usr /bin /sbin /lib /lib64     read-only binds (symlinks such as /bin -> usr/bin recreated)
//	/etc/{ld.so.cache,alternatives,ssl,passwd,group}   read-only binds, those that exist
//	/proc                           a fresh proc of the new PID namespace, read-only
//	/dev                            null zero full random urandom tty (bound from the host), fd stdin stdout stderr
//	/tmp                            writable tmpfs (256 MiB): working directory and $HOME
//	/tmp/skill                      the skill folder, read-only
//
// Everything else of the host (the workspace, /root, /home, ...) is absent,
// / itself is read-only, and the network namespace has only a loopback
// interface that is down. The init then empties the capability bounding set
// and the ambient, effective, permitted and inheritable sets, sets
// no_new_privs and starts /bin/sh -c as its child with exactly PATH, HOME,
// LANG=C.UTF-8 and VOX_SKILL_ID in the environment. It stays PID 1 of the new
// PID namespace and reaps; when the shell exits the init exits with its
// status, and the kernel kills whatever the command left behind.
//
// Every binary that calls Run must call MaybeRunInit first thing in main (test
// binaries in TestMain), because the re-executed copy of the binary has to
// turn into the init before any other start-up code runs; Run refuses to
// start otherwise.
//
// Run fails closed: when any set-up step fails it returns a *SetupError naming
// the step and the errno, and the command does not run. RunUnisolated is the
// explicit opt-out (VOX_SKILL_SANDBOX=off) with the same timeout, output caps,
// scrubbed environment and process-group kill, but no isolation.
//
// The sandbox sets no CPU, memory or process-count limits (that would need a
// delegated cgroup); the timeout bounds how long a command can use them.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	SkillID  string        // becomes VOX_SKILL_ID
	SkillDir string        // absolute path of the skill folder, bound read-only at ./skill
	Command  string        // run with /bin/sh -c
	Timeout  time.Duration // 0 means DefaultTimeout; callers validate MaxTimeout
}

// Result is what a command did. A set-up failure is an error, never a Result.
type Result struct {
	ExitCode  int    // exit status, 128+n for a signal, -1 on timeout
	Stdout    string // at most OutputCap bytes, then the truncation marker
	Stderr    string // at most OutputCap bytes, then the truncation marker
	TimedOut  bool   // the timeout expired or the context was cancelled
	Truncated bool   // stdout or stderr was cut
}

// SetupError reports that the sandbox could not be set up, so the command did
// not run. Err is usually a syscall.Errno, so errors.Is(err, syscall.EPERM)
// works on the error Run returns.
type SetupError struct {
	Step string // the set-up step that failed, e.g. "mount /proc"
	Err  error
}

func (e *SetupError) Error() string { return "sandbox: " + e.Step + ": " + e.Err.Error() }

func (e *SetupError) Unwrap() error { return e.Err }

// initReady records that MaybeRunInit ran in this process, so that Run can
// refuse to re-execute a binary whose main would not turn into the init.
var initReady atomic.Bool

// SelfTest runs `true` once in the sandbox; the server calls it at start-up to
// learn whether isolation works on this host.
func SelfTest(ctx context.Context) (err error) {
	defer recoverError(&err)
	dir, err := os.MkdirTemp("", "vox-sandbox-selftest-")
	if err != nil {
		return fmt.Errorf("sandbox: self-test: %w", err)
	}
	defer os.Remove(dir)
	res, err := Run(ctx, Spec{SkillID: "sandbox-self-test", SkillDir: dir, Command: "true"})
	if err != nil {
		return err
	}
	if res.TimedOut {
		return errors.New("sandbox: self-test: `true` timed out")
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("sandbox: self-test: `true` exited with status %d: %s",
			res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	return nil
}

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
	case strings.ContainsRune(s.SkillDir, 0), strings.ContainsRune(s.SkillID, 0):
		return 0, errors.New("sandbox: skill id or folder contains a NUL byte")
	case strings.ContainsRune(s.Command, 0):
		return 0, errors.New("sandbox: command contains a NUL byte")
	case len(s.Command) > maxCommandLen:
		return 0, fmt.Errorf("sandbox: command is %d bytes long, at most %d are allowed", len(s.Command), maxCommandLen)
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
