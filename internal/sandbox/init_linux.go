package sandbox

import (
	"bufio"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Files the parent passes to the init besides stdin, stdout and stderr.
const (
	configFD = 3 // read end of a pipe carrying one gob-encoded initConfig
	statusFD = 4 // write end of a pipe for one JSON initStatus
)

// Where things are inside the sandbox.
const (
	workDir     = "/tmp" // writable tmpfs: working directory and $HOME
	skillMount  = workDir + "/skill"
	oldRootName = ".oldroot"
	hostname    = "vox-sandbox"
	// The writable tmpfs is bounded so that a command cannot fill the
	// host's memory through it; the root tmpfs holds only mount points.
	workTmpfsOpts = "mode=1777,size=256m"
	rootTmpfsOpts = "mode=0755,size=1m"
)

// hostPaths are bound read-only into the new root, those that exist.
var hostPaths = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib64",
	"/etc/ld.so.cache", "/etc/alternatives", "/etc/ssl", "/etc/passwd", "/etc/group",
}

// devNodes are bound from the host's /dev: mknod is not allowed in a user
// namespace. There is no tty: a command that could open the terminal the
// server was started from could inject keystrokes into it.
var devNodes = []string{"null", "zero", "full", "random", "urandom"}

// devLinks make /dev/stdout and friends work; they point into the fresh /proc.
var devLinks = [][2]string{
	{"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"},
}

// rootMountPoints are existing host folders the init may mount the new
// root's tmpfs over, inside its private mount namespace only: the first
// that is a real folder is used, so that a run creates nothing on the host.
// None of them holds a path the sandbox binds.
var rootMountPoints = []string{"/tmp", "/mnt", "/run", "/var", "/srv", "/opt", "/media", "/home", "/root", "/boot"}

// The set-up steps with fixed names, in order. Binds and symlinks of host
// paths and device nodes are named "bind <path>", "symlink <path>" and
// "remount <path> read-only".
const (
	stepConfig     = "read config"
	stepUndumpable = "make init undumpable"
	stepCloseFiles = "close inherited files"
	stepCheck      = "check namespaces"
	stepPrivate    = "make mounts private"
	stepOpenSkill  = StepOpenSkill
	stepRoot       = "mount root tmpfs"
	stepProc       = "mount /proc"
	stepDev        = "create /dev"
	stepTmp        = "mount /tmp"
	stepSkill      = "bind skill folder"
	stepSkillRO    = "remount skill folder read-only"
	stepPivot      = "pivot_root"
	stepOldRoot    = "unmount old root"
	stepRootRO     = "remount / read-only"
	stepChdir      = "chdir " + workDir
	stepHostname   = "set hostname"
	stepBounding   = "drop bounding capabilities"
	stepAmbient    = "clear ambient capabilities"
	stepNoNewPriv  = "set no_new_privs"
	stepCapset     = "drop capabilities"
	stepRlimits    = "set resource limits"
	stepLandlock   = "restrict file access with landlock"
	stepSeccomp    = "install seccomp filter"
	stepExec       = "exec " + shellPath
	// Only without isolation:
	stepSubreaper = "become child subreaper"
)

// stepSkillOverlay is no step that fails the run: it is the test hook's
// name for a host without overlayfs in user namespaces, where stepSkill
// binds the folder instead.
const stepSkillOverlay = "mount skill folder as overlay"

// initConfig is what Run tells the init.
type initConfig struct {
	// Isolated builds the sandbox; otherwise the init is the unisolated
	// helper: no namespaces, the command in WorkDir, every descendant
	// killed at the end.
	Isolated bool
	SkillDir string
	Skill    FolderID // the folder as discovered
	SkillID  string
	Command  string
	WorkDir  string // unisolated only: working folder and $HOME, made by Run
	// CPUSeconds is RLIMIT_CPU: the timeout in whole seconds plus one.
	CPUSeconds      uint64
	RequireLandlock bool
	FailStep        string // test hook: fail this step with EPERM
}

// initStatus is what the init tells Run: OK and what it applied, or the
// step that failed.
type initStatus struct {
	OK       bool   `json:"ok,omitempty"`
	Step     string `json:"step,omitempty"`
	Errno    int    `json:"errno,omitempty"`
	Detail   string `json:"detail,omitempty"`   // the error text when it is no errno
	Landlock int    `json:"landlock,omitempty"` // the Landlock ABI applied, 0 for none
	Seccomp  bool   `json:"seccomp,omitempty"`  // the filter is installed
	// SkillBound says why the skill folder was bound, its host path
	// showing in /proc/self/mountinfo, rather than mounted as an overlay;
	// "" when it was not (or without isolation).
	SkillBound string `json:"skill_bound,omitempty"`
}

func (s initStatus) err() *SetupError {
	errno := syscall.Errno(s.Errno)
	switch {
	case s.Errno == 0:
		return &SetupError{Step: s.Step, Err: errors.New(s.Detail)}
	case s.Detail == "" || s.Detail == errno.Error():
		return &SetupError{Step: s.Step, Err: errno}
	}
	return &SetupError{Step: s.Step, Err: errnoDetail{s.Detail, errno}}
}

// errnoDetail is an errno with more to say than its own text.
type errnoDetail struct {
	text  string
	errno syscall.Errno
}

func (e errnoDetail) Error() string { return e.text }

func (e errnoDetail) Unwrap() error { return e.errno }

// stepError is a failed set-up step inside the init.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }

func (e *stepError) Unwrap() error { return e.err }

// MaybeRunInit must be the first call in main() of every binary that can run
// the sandbox (cmd/vox-mcp, and TestMain of test binaries that use it). When
// os.Args[1] is InitArg it performs the in-namespace set-up, starts
// /bin/sh -c and stays as the namespace's PID 1 until the shell exits; it
// never returns in that case. Otherwise it returns at once and Run may be used.
func MaybeRunInit() {
	if len(os.Args) < 2 || os.Args[1] != InitArg {
		initReady.Store(true)
		return
	}
	// Capabilities, the bounding set and no_new_privs are attributes of a
	// thread, and a forked child inherits those of the thread that forked
	// it: set-up and the fork of the shell happen on this one locked thread.
	runtime.LockOSThread()
	os.Exit(initMain())
}

// initMain runs the init and returns its exit status: the shell's, or 1 when
// set-up failed (the parent then reads the reason from the status pipe).
func initMain() (code int) {
	unix.CloseOnExec(statusFD) // the shell must not inherit it
	status := os.NewFile(statusFD, "status")
	defer func() {
		if r := recover(); r != nil {
			report(status, initStatus{Step: "init", Detail: fmt.Sprintf("panic: %v", r)})
			code = 1
		}
	}()
	st, err := setUp()
	if err != nil {
		st := initStatus{Step: "init", Detail: err.Error()}
		var se *stepError
		if errors.As(err, &se) {
			st.Step, st.Detail = se.step, se.err.Error()
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			st.Errno = int(errno)
		}
		report(status, st)
		return 1
	}
	ok := initStatus{OK: true, Landlock: st.landlock, Seccomp: true}
	if st.overlayErr != nil {
		ok.SkillBound = "overlayfs: " + st.overlayErr.Error()
	}
	report(status, ok)
	if st.control != nil {
		return superviseUnisolated(st.shell, st.control)
	}
	return reap(st.shell)
}

// report sends the status to Run and closes the pipe. Without the pipe (the
// binary was started with InitArg by hand) a failure goes to stderr instead.
func report(status *os.File, st initStatus) {
	msg, _ := json.Marshal(st)
	if _, err := status.Write(msg); err != nil && !st.OK {
		fmt.Fprintf(os.Stderr, "%s: %s: %s\n", InitArg, st.Step, st.Detail)
	}
	status.Close()
}

// reap waits for every child, as PID 1 must for the orphans it inherits,
// and returns the shell's status once the shell is gone. The init then exits
// and the kernel kills whatever is left in the namespace.
func reap(shell int) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 1 // ECHILD: cannot happen while the shell is unreaped
		}
		if pid != shell {
			continue
		}
		return waitCode(ws)
	}
}

func waitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// superviseUnisolated is the unisolated helper's life after the shell
// started: it reaps every child (orphans of the command's processes come to
// it as their subreaper) until the shell exits, or until the control pipe
// closes (Run's timeout, or the server died). Then it kills every process
// left below it and returns the shell's status, or 128+SIGKILL when it was
// stopped first.
func superviseUnisolated(shell int, control *os.File) int {
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, control) // returns at EOF
		close(stop)
	}()
	shellDone := make(chan int, 1)
	go func() {
		// The only goroutine that waits: it reaps the shell, every orphan
		// and whatever killDescendants kills, until nothing is left.
		sent := false
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				if !sent {
					shellDone <- 1
				}
				return // ECHILD: no child left
			}
			if pid == shell && !sent {
				shellDone <- waitCode(ws)
				sent = true
			}
		}
	}()
	code := 128 + int(syscall.SIGKILL)
	select {
	case code = <-shellDone:
	case <-stop:
		_ = syscall.Kill(shell, syscall.SIGKILL)
	}
	killDescendants()
	return code
}

// setup runs the set-up steps in order; the first failure stops it.
type setup struct {
	failStep string
	err      error
	// granted collects the Landlock rules for what was bound.
	granted []landlockRule
}

// do runs step unless an earlier one failed.
func (s *setup) do(step string, fn func() error) {
	if s.err != nil {
		return
	}
	if step == s.failStep {
		s.err = &stepError{step, syscall.EPERM}
		return
	}
	if err := fn(); err != nil {
		s.err = &stepError{step, err}
	}
}

// started is what setUp leaves running.
type started struct {
	shell    int
	landlock int      // the Landlock ABI applied, 0 for none
	control  *os.File // unisolated only: closes when the helper must stop
	// overlayErr is why the skill folder was bound rather than mounted
	// as an overlay (isolated only), nil when it was.
	overlayErr error
}

// setUp reads the config, then builds the sandbox and starts the shell in
// it, or (unisolated) starts the shell as the helper's child.
func setUp() (started, error) {
	s := &setup{}
	var cfg initConfig
	var configFile *os.File
	s.do(stepConfig, func() error {
		configFile = os.NewFile(configFD, "config")
		return gob.NewDecoder(io.LimitReader(configFile, 1<<20)).Decode(&cfg)
	})
	if s.err != nil {
		return started{}, s.err
	}
	s.failStep = cfg.FailStep
	if !cfg.Isolated {
		// The config pipe stays open: its end is the signal to stop.
		unix.CloseOnExec(configFD)
		return setUpUnisolated(s, cfg, configFile)
	}
	configFile.Close()
	// Only the thread that forks the shell drops its capabilities; the
	// init's other threads keep theirs. Being undumpable denies the command
	// ptrace and /proc/1/{mem,fd,environ,...}, which would otherwise reach
	// them (and any file the init holds).
	s.do(stepUndumpable, func() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) })
	s.do(stepCloseFiles, closeInheritedFiles)
	// Refuse to touch mounts unless this is a fresh namespace set: someone
	// running the binary by hand with InitArg must not pivot the host.
	s.do(stepCheck, checkNamespaces)

	s.do(stepPrivate, func() error {
		// Nothing mounted from here on may propagate back to the host.
		return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	})
	// The skill folder is opened first, before the root's tmpfs may hide
	// its path, and bound through the descriptor later.
	skillFD := -1
	s.do(stepOpenSkill, func() (err error) {
		skillFD, err = openDiscovered(cfg.SkillDir, cfg.Skill)
		return err
	})
	var root string
	s.do(stepRoot, func() error {
		for _, p := range rootMountPoints {
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				root = p
				return unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, rootTmpfsOpts)
			}
		}
		return fmt.Errorf("no existing folder to mount the new root on (tried %s)", strings.Join(rootMountPoints, ", "))
	})
	if s.err != nil {
		return started{}, s.err
	}
	for _, p := range hostPaths {
		bindHostPath(s, root, p)
	}
	s.do(stepProc, func() error {
		// Read-only: the in-sandbox root may be the host's uid 0, which
		// /proc/sys would otherwise let write kernel settings.
		return mountAt(root, "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "")
	})
	s.do(stepDev, func() error {
		if err := os.Mkdir(filepath.Join(root, "dev"), 0o755); err != nil {
			return err
		}
		for _, l := range devLinks {
			if err := os.Symlink(l[1], filepath.Join(root, "dev", l[0])); err != nil {
				return err
			}
		}
		return nil
	})
	for _, n := range devNodes {
		bindDevNode(s, root, "/dev/"+n)
	}
	s.do(stepTmp, func() error {
		return mountAt(root, workDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, workTmpfsOpts)
	})
	skillTarget := filepath.Join(root, skillMount)
	var overlayErr error
	s.do(stepSkill, func() error {
		defer unix.Close(skillFD)
		if err := os.Mkdir(skillTarget, 0o755); err != nil {
			return err
		}
		if overlayErr = mountSkillOverlay(skillFD, skillTarget, cfg.FailStep == stepSkillOverlay); overlayErr == nil {
			return nil
		}
		// Without overlayfs the folder is bound, and mountinfo shows its
		// host path (the self-test warns). The magic link names the very
		// folder checked by openDiscovered, whatever its path leads to now.
		return unix.Mount("/proc/self/fd/"+strconv.Itoa(skillFD), skillTarget, "", unix.MS_BIND|unix.MS_REC, "")
	})
	s.do(stepSkillRO, func() error { return remountTreeReadOnly(skillTarget, unix.MS_NODEV) })

	s.do(stepPivot, func() error {
		old := filepath.Join(root, oldRootName)
		if err := os.Mkdir(old, 0o700); err != nil {
			return err
		}
		if err := unix.PivotRoot(root, old); err != nil {
			return err
		}
		return unix.Chdir("/")
	})
	s.do(stepOldRoot, func() error {
		if err := unix.Unmount("/"+oldRootName, unix.MNT_DETACH); err != nil {
			return err
		}
		return os.Remove("/" + oldRootName)
	})
	s.do(stepRootRO, func() error {
		return unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
	})
	s.do(stepChdir, func() error { return unix.Chdir(workDir) })
	s.do(stepHostname, func() error { return unix.Sethostname([]byte(hostname)) })

	s.do(stepBounding, dropBoundingSet)
	s.do(stepAmbient, func() error {
		return unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	})
	s.do(stepNoNewPriv, func() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
	s.do(stepCapset, func() error {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData // effective, permitted, inheritable: all empty
		return unix.Capset(&hdr, &data[0])
	})
	s.do(stepRlimits, func() error { return setRlimits(cfg.CPUSeconds) })
	abi := 0
	s.do(stepLandlock, func() error {
		abi = landlockABI()
		if abi == 0 {
			if cfg.RequireLandlock {
				return errors.New("the kernel has no Landlock, and " + EnvRequire + " requires it")
			}
			return nil
		}
		rules := append([]landlockRule{
			{"/", llReadDir},
			{"/proc", llReadFile | llReadDir},
			{"/dev", llReadDir},
			// The working folder: everything (the skill folder below it
			// is a read-only mount all the same).
			{workDir, landlockHandled(abi)},
		}, s.granted...)
		return restrictLandlock(abi, rules)
	})
	s.do(stepSeccomp, installSeccomp)

	var shell int
	s.do(stepExec, func() error {
		// Standard input is the new root's /dev/null, not the host's that
		// the init inherited: reopening it through /dev/stdin must stay
		// inside the bound paths (Landlock would refuse the host's).
		null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open /dev/null: %w", err)
		}
		defer unix.Close(null)
		// The shell is a child rather than the init's successor: PID 1 of a
		// namespace ignores signals it has no handler for, so a shell as
		// PID 1 would survive `kill -TERM $$`, and nobody would reap the
		// orphans of background jobs. It starts a new session, which has
		// no controlling terminal. ForkExec reports a failed exec, so a nil
		// error means the command is running.
		shell, err = syscall.ForkExec(shellPath, []string{"sh", "-c", cfg.Command}, &syscall.ProcAttr{
			Dir:   workDir,
			Env:   commandEnv(workDir, cfg.SkillID),
			Files: []uintptr{uintptr(null), 1, 2},
			Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
		})
		return err
	})
	return started{shell: shell, landlock: abi, overlayErr: overlayErr}, s.err
}

// mountSkillOverlay mounts the skill folder (the descriptor checked by
// openDiscovered) at target as a read-only overlayfs rather than a bind.
// A bind shows, in the root field of /proc/self/mountinfo, the folder's
// path in its host file system (a user name, a project path): a command
// could read it. The overlay's root is its own, and its options name the
// layers as given here, descriptor paths of the init (/proc/self/fd/N)
// that say nothing. Overlayfs wants two layers when there is no upper
// one: the second is target itself, an empty folder the overlay then
// covers (a folder removed after the mount would break listing the
// root). redirect_dir=nofollow and metacopy=off make the overlay follow
// no redirect a file's extended attributes could ask for; index and xino
// are off, there being nothing to copy up. Submounts of the folder are
// not part of an overlay: they show as their empty mount points. fail is
// the test hook that makes the mount fail as on a host without
// overlayfs in user namespaces.
func mountSkillOverlay(skillFD int, target string, fail bool) error {
	if fail {
		return syscall.EPERM
	}
	empty, err := unix.Open(target, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(empty)
	opts := fmt.Sprintf("lowerdir=/proc/self/fd/%d:/proc/self/fd/%d,redirect_dir=nofollow,metacopy=off,index=off,xino=off", skillFD, empty)
	return unix.Mount("vox-skill", target, "overlay", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, opts)
}

// setUpUnisolated starts the shell without namespaces, after checking the
// skill folder and setting the same limits and seccomp filter as the
// sandbox. The helper becomes the child subreaper of everything the shell
// starts.
func setUpUnisolated(s *setup, cfg initConfig, control *os.File) (started, error) {
	s.do(stepCloseFiles, closeInheritedFiles)
	s.do(stepOpenSkill, func() error {
		fd, err := openDiscovered(cfg.SkillDir, cfg.Skill)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
	s.do(stepSubreaper, func() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	s.do(stepNoNewPriv, func() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })
	s.do(stepRlimits, func() error { return setRlimits(cfg.CPUSeconds) })
	s.do(stepSeccomp, installSeccomp)
	var shell int
	s.do(stepExec, func() error {
		var err error
		shell, err = syscall.ForkExec(shellPath, []string{"sh", "-c", cfg.Command}, &syscall.ProcAttr{
			Dir:   cfg.WorkDir,
			Env:   commandEnv(cfg.WorkDir, cfg.SkillID),
			Files: []uintptr{0, 1, 2},
			Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
		})
		return err
	})
	return started{shell: shell, control: control}, s.err
}

// closeInheritedFiles closes the descriptors that reached the init without
// close-on-exec besides its stdio, config and status: host files that the
// caller leaked (its own parent's pipes, say) must not enter the sandbox.
// The Go runtime opens all of its own descriptors close-on-exec, so those
// are left alone.
func closeInheritedFiles() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 || fd == configFD || fd == statusFD {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // already closed (the folder's own descriptor) or the runtime's
		}
		if err := unix.Close(fd); err != nil {
			return fmt.Errorf("descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// checkNamespaces fails unless the process is PID 1 of its PID namespace and
// in a user namespace other than the initial one (whose map covers all IDs).
func checkNamespaces() error {
	if os.Getpid() != 1 {
		return errors.New("not PID 1 of a new PID namespace")
	}
	m, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return err
	}
	if f := strings.Fields(string(m)); len(f) == 3 && f[2] == "4294967295" {
		return errors.New("not in a new user namespace")
	}
	return nil
}

// bindHostPath reproduces host path p in the new root, if it exists: a
// symlink as the same symlink (binding through it would turn /bin -> usr/bin
// into a second copy of /usr/bin), a folder or file as a read-only bind.
func bindHostPath(s *setup, root, p string) {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	target := filepath.Join(root, p)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		s.do("symlink "+p, func() error {
			dest, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return os.Symlink(dest, target)
		})
		return
	}
	s.do("bind "+p, func() error {
		if err != nil {
			return err
		}
		if err := makeMountPoint(target, fi.IsDir()); err != nil {
			return err
		}
		return unix.Mount(p, target, "", unix.MS_BIND|unix.MS_REC, "")
	})
	s.do("remount "+p+" read-only", func() error { return remountTreeReadOnly(target, unix.MS_NODEV) })
	s.granted = append(s.granted, landlockRule{p, llReadFile | llReadDir | llExecute})
}

// bindDevNode binds host device node p into the new root, if it exists. It
// stays writable (writing to /dev/null must work) but gets nosuid and noexec.
func bindDevNode(s *setup, root, p string) {
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return
	}
	target := filepath.Join(root, p)
	s.do("bind "+p, func() error {
		if err := makeMountPoint(target, false); err != nil {
			return err
		}
		if err := unix.Mount(p, target, "", unix.MS_BIND, ""); err != nil {
			return err
		}
		return remount(target, unix.MS_NOSUID|unix.MS_NOEXEC)
	})
	s.granted = append(s.granted, landlockRule{p, llReadFile | llWriteFile | llTruncate | llIoctlDev})
}

// makeMountPoint creates an empty folder or file at target to mount on.
func makeMountPoint(target string, dir bool) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(target, 0o755)
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// mountAt mounts a file system of type fstype at path inside root.
func mountAt(root, path, fstype string, flags uintptr, data string) error {
	target := filepath.Join(root, path)
	if err := os.Mkdir(target, 0o755); err != nil {
		return err
	}
	return unix.Mount(fstype, target, fstype, flags, data)
}

// remountTreeReadOnly makes target and every mount below it read-only and
// nosuid, adding extra flags. A recursive bind copies submounts, and a
// remount only changes the mount it names, so each is remounted in turn.
func remountTreeReadOnly(target string, extra uintptr) error {
	points, err := mountPointsUnder(target)
	if err != nil {
		return err
	}
	for _, mp := range points {
		if err := remount(mp, unix.MS_RDONLY|unix.MS_NOSUID|extra); err != nil {
			return fmt.Errorf("%s: %w", mp, err)
		}
	}
	return nil
}

// remount changes the per-mount flags of the bind mount at mp, adding add to
// the flags it already has. Mounts that came from the host are locked in a
// user namespace: a remount that would clear their nosuid, nodev, noexec or
// atime flags fails with EPERM, so those are carried over.
func remount(mp string, add uintptr) error {
	var st unix.Statfs_t
	if err := unix.Statfs(mp, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT|unix.MS_BIND) | add
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_RDONLY, unix.MS_RDONLY},
		{unix.ST_NOSUID, unix.MS_NOSUID},
		{unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return unix.Mount("", mp, "", flags, "")
}

// mountPointsUnder lists target and the mount points below it, from
// /proc/self/mountinfo (still the host's /proc before pivot_root).
func mountPointsUnder(target string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var points []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMountinfo(fields[4])
		if (mp == target || strings.HasPrefix(mp, target+"/")) && !seen[mp] {
			seen[mp] = true
			points = append(points, mp)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%s is not a mount point", target)
	}
	return points, nil
}

// unescapeMountinfo undoes the octal escapes (\040 for a space and so on)
// that mountinfo uses in paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dropBoundingSet empties the capability bounding set, so that executing
// the shell as uid 0 grants it no capabilities.
func dropBoundingSet() error {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return err
	}
	last, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("capability %d: %w", c, err)
		}
	}
	return nil
}
