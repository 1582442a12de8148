package sandbox_test

// Tests of what keeps a command inside: session and terminal, the
// discovered folder, resource limits and cgroups, Landlock, the
// unisolated helper, and the self-test's footprint on the host. Several run
// this test binary again as a helper process (TestMain dispatches on
// helperEnv) and several run internal/syscallprobe inside the sandbox.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
)

// helperEnv names what this test binary does when started as a helper.
const helperEnv = "VOX_SANDBOX_TEST_HELPER"

// payload is what syscallprobe tiocsti injects (its Payload).
const payload = "# vox-keys-injected\n"

var (
	probeOnce sync.Once
	probeDir  string
	probePath string
	probeErr  error
)

// probeBinary builds internal/syscallprobe once per test binary: a static
// program, so that it runs inside the sandbox whatever is bound.
func probeBinary(t *testing.T) string {
	t.Helper()
	probeOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			probeErr = fmt.Errorf("the probe is built with the go command, not found on PATH: %w", err)
			return
		}
		probeDir, probeErr = os.MkdirTemp("", "vox-sandbox-probe-")
		if probeErr != nil {
			return
		}
		probePath = filepath.Join(probeDir, "syscallprobe")
		build := exec.Command(goTool, "build", "-o", probePath, "./internal/syscallprobe")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			probeErr = fmt.Errorf("go build ./internal/syscallprobe: %v\n%s", err, out)
		}
	})
	if probeErr != nil {
		t.Fatal(probeErr)
	}
	return probePath
}

// skillWithProbe makes a skill folder that holds the probe as ./syscallprobe.
func skillWithProbe(t *testing.T) string {
	t.Helper()
	dir := newSkill(t)
	copyFile(t, probeBinary(t), filepath.Join(dir, "syscallprobe"))
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// results parses the probe's "NAME: RESULT" lines.
func results(out string) map[string]string {
	m := map[string]string{}
	for _, l := range lines(out) {
		if k, v, ok := strings.Cut(l, ": "); ok {
			m[k] = v
		}
	}
	return m
}

// helper starts this test binary as helper name with extra environment.
func helper(name string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+name), env...)
	return cmd
}

// runHelper is the helper side: it returns the process's exit status.
func runHelper(name string) int {
	out := os.NewFile(3, "results") // a pipe from the parent, where a helper has one
	switch name {
	case "exec":
		// Replace this process with the probe, under the seccomp filter or
		// not (VOX_SANDBOX_TEST_FILTER).
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("VOX_SANDBOX_TEST_ARGS")), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		err := sandbox.ExecFiltered(os.Getenv("VOX_SANDBOX_TEST_FILTER") == "1", args[0], args)
		fmt.Fprintln(os.Stderr, "exec:", err)
		return 2
	case "tiocsti":
		// Started with a pseudo-terminal as controlling terminal and stdio:
		// run the probe in the sandbox (VOX_SANDBOX_TEST_MODE), or directly
		// as the control, and report what it printed on descriptor 3.
		skill := os.Getenv("VOX_SANDBOX_TEST_SKILL")
		self := filepath.Base(os.Args[0])
		if len(self) > 15 {
			self = self[:15] // the kernel's command name is at most 15 bytes
		}
		command := "./skill/syscallprobe tiocsti -upto " + self
		var res sandbox.Result
		var err error
		switch os.Getenv("VOX_SANDBOX_TEST_MODE") {
		case "direct":
			c := exec.Command(filepath.Join(skill, "syscallprobe"), "tiocsti")
			var b bytes.Buffer
			c.Stdout, c.Stderr = &b, &b
			err = c.Run()
			res.Stdout = b.String()
		case "isolated":
			res, err = sandbox.Run(context.Background(), specForHelper(skill, command))
		case "unisolated":
			res, err = sandbox.RunUnisolated(context.Background(), specForHelper(skill, command))
		}
		fmt.Fprintf(out, "%s--\n%s--\n%v\n", res.Stdout, res.Stderr, err)
		return 0
	case "self-test-loop":
		// Run self-tests until killed, reporting each on descriptor 3.
		for {
			rep := sandbox.SelfTest(context.Background())
			fmt.Fprintf(out, "self-test: %v\n", rep.Problem())
		}
	case "run-unisolated":
		// Start a command that leaves setsid processes behind, report
		// that it runs, and wait to be killed.
		spec := specForHelper(os.Getenv("VOX_SANDBOX_TEST_SKILL"), os.Getenv("VOX_SANDBOX_TEST_COMMAND"))
		cfg := sandbox.Config{CgroupRoot: os.Getenv("VOX_SANDBOX_TEST_CGROUP_ROOT")}
		res, err := cfg.RunUnisolated(context.Background(), spec)
		fmt.Fprintf(out, "returned: %+v %v\n", res, err)
		return 0
	case "landlock":
		return landlockHelper(out)
	}
	fmt.Fprintln(os.Stderr, "unknown helper", name)
	return 2
}

func specForHelper(dir, command string) sandbox.Spec {
	fi, err := os.Lstat(dir)
	if err != nil {
		panic(err)
	}
	return sandbox.Spec{SkillID: "helper", SkillDir: dir, Folder: sandbox.FolderOf(fi), Command: command, Timeout: 2 * time.Minute}
}

// TestCommandHasNoTerminal: the command leads a session of its own, so it
// has no controlling terminal, and the sandbox has no /dev/tty.
func TestCommandHasNoTerminal(t *testing.T) {
	const command = `read -r pid comm state ppid pgrp sid tty rest </proc/$$/stat
echo "leader=$([ "$sid" = "$$" ] && echo yes || echo no) tty=$tty"
[ -e /dev/tty ] && echo tty-exists
(exec 3<>/dev/tty) 2>/dev/null && echo tty-opens
true`
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRun(t, m.run, command)
			want := "leader=yes tty=0\n"
			if m.name == "unisolated" {
				want += "tty-exists\n" // the host's, which a session without a terminal cannot open
			}
			if res.Stdout != want {
				t.Errorf("got %q (stderr %q), want %q", res.Stdout, res.Stderr, want)
			}
		})
	}
}

// openPTY opens a new pseudo-terminal and returns its master and the path
// of its slave.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminals on this host:", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return master, "/dev/pts/" + strconv.Itoa(int(n))
}

// underPTY runs the tiocsti helper in mode, with a new pseudo-terminal as
// its controlling terminal and its stdin, stdout and stderr, as a server
// started from a terminal has. It returns what the helper reported and
// everything the terminal showed (the echo of any injected keystroke).
func underPTY(t *testing.T, mode, skill string) (report, screen string) {
	t.Helper()
	master, slavePath := openPTY(t)
	slave, err := os.OpenFile(slavePath, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := helper("tiocsti", "VOX_SANDBOX_TEST_MODE="+mode, "VOX_SANDBOX_TEST_SKILL="+skill)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.ExtraFiles = []*os.File{resW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	resW.Close()
	var shown bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&shown, master) // EIO once every slave descriptor is closed
	}()
	got, _ := io.ReadAll(resR)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, got)
	}
	<-done
	return string(got), shown.String()
}

// TestTerminalInjection starts the "server" (a helper) under a
// pseudo-terminal and runs a command that tries TIOCSTI on /dev/tty, on
// its own descriptors and on those of its ancestors up to the server: no
// keystroke may reach the terminal. The control runs the same probe
// outside the sandbox and must inject, so the check can see an injection.
func TestTerminalInjection(t *testing.T) {
	skill := skillWithProbe(t)
	if b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err == nil && strings.TrimSpace(string(b)) == "0" {
		t.Log("dev.tty.legacy_tiocsti is 0: the kernel refuses TIOCSTI to non-admins anyway")
	} else {
		report, screen := underPTY(t, "direct", skill)
		if !strings.Contains(screen, strings.TrimSpace(payload)) || !strings.Contains(report, "/dev/tty TIOCSTI: injected") {
			t.Fatalf("control: the probe outside the sandbox did not inject\nreport:\n%s\nscreen: %q", report, screen)
		}
	}
	for _, mode := range []string{"isolated", "unisolated"} {
		t.Run(mode, func(t *testing.T) {
			report, screen := underPTY(t, mode, skill)
			if strings.Contains(screen, strings.TrimSpace(payload)) || strings.Contains(report, "injected") {
				t.Errorf("keystrokes reached the terminal\nreport:\n%s\nscreen: %q", report, screen)
			}
			if !strings.Contains(report, "TIOCSTI") && !strings.Contains(report, "/dev/tty: open") {
				t.Errorf("the probe did not run:\n%s", report)
			}
			t.Logf("what the probe saw:\n%s", report)
		})
	}
}

// TestTerminalInjectionSeesServerTerminal checks the attack's reach in the
// unisolated run: the probe does find the server's terminal among its
// ancestors' descriptors, and the filter is what stops it.
func TestTerminalInjectionSeesServerTerminal(t *testing.T) {
	report, _ := underPTY(t, "unisolated", skillWithProbe(t))
	if !strings.Contains(report, "/fd/0 TIOCSTI: EPERM") || !strings.Contains(report, "/fd/0 TIOCSTI|1<<32: EPERM") {
		t.Errorf("want the server's terminal reached and refused with EPERM, got:\n%s", report)
	}
}

// TestSwappedSkillFolder swaps the skill folder after it was discovered:
// for a symlink to a secret folder, for another folder, and by a symlink
// further up the path. The command never runs, and the secret never shows.
func TestSwappedSkillFolder(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			base := t.TempDir()
			secret := filepath.Join(base, "secret")
			if err := os.Mkdir(secret, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(secret, "secret"), []byte("s3cret"), 0o600); err != nil {
				t.Fatal(err)
			}
			parent := filepath.Join(base, "skills")
			dir := filepath.Join(parent, "demo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			spec := specFor(t, dir, "cat skill/secret; echo ran")
			res := mustRunIn(t, m.run, dir, "echo ran")
			if res.Stdout != "ran\n" {
				t.Fatalf("control: %q %q", res.Stdout, res.Stderr)
			}
			refused := func(what, want string, errno error) {
				t.Helper()
				res, err := m.run(context.Background(), spec)
				var se *sandbox.SetupError
				if !errors.As(err, &se) || se.Step != "open skill folder" || !strings.Contains(err.Error(), want) ||
					(errno != nil && !errors.Is(err, errno)) {
					t.Errorf("%s: got %+v, %v; want a refusal at open skill folder saying %q", what, res, err, want)
				}
				if strings.Contains(res.Stdout, "s3cret") || strings.Contains(res.Stdout, "ran") {
					t.Errorf("%s: the command ran: %q", what, res.Stdout)
				}
			}

			// The folder becomes a symlink to the secret.
			if err := os.Rename(dir, dir+".orig"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, dir); err != nil {
				t.Fatal(err)
			}
			refused("symlink to a secret", "a symlink is now on the path", syscall.ELOOP)

			// Another folder at the same path.
			os.Remove(dir)
			if err := os.Rename(secret, dir); err != nil {
				t.Fatal(err)
			}
			refused("another folder", "is no longer the folder discovered", nil)
			os.Rename(dir, secret)

			// The original folder back, but reached through a symlinked parent.
			if err := os.Rename(dir+".orig", dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(parent, parent+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(parent+".real", parent); err != nil {
				t.Fatal(err)
			}
			refused("symlinked parent", "a symlink is now on the path", syscall.ELOOP)

			// Back as discovered: it runs again.
			os.Remove(parent)
			if err := os.Rename(parent+".real", parent); err != nil {
				t.Fatal(err)
			}
			if res := mustRunIn(t, m.run, dir, "echo ran"); res.Stdout != "ran\n" {
				t.Errorf("restored: %q %q", res.Stdout, res.Stderr)
			}
		})
	}
}

// TestResourceLimits reads the command's rlimits and checks that the
// address-space limit holds.
func TestResourceLimits(t *testing.T) {
	skill := skillWithProbe(t)
	want := map[string]string{
		"Max cpu time":      "121 121", // the 2-minute timeout of mustRun, plus one second
		"Max file size":     fmt.Sprintf("%d %d", sandbox.LimitFileSize, sandbox.LimitFileSize),
		"Max open files":    fmt.Sprintf("%d %d", sandbox.LimitOpenFiles, sandbox.LimitOpenFiles),
		"Max address space": fmt.Sprintf("%d %d", sandbox.LimitAddressSpace, sandbox.LimitAddressSpace),
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRunIn(t, m.run, skill, "cat /proc/self/limits; ./skill/syscallprobe mmap 9000000000; ./skill/syscallprobe mmap 100000000")
			for _, l := range lines(res.Stdout) {
				for name, w := range want {
					if strings.HasPrefix(l, name+" ") {
						f := strings.Fields(l)
						if got := f[len(f)-3] + " " + f[len(f)-2]; got != w {
							t.Errorf("%s: %s, want %s", name, got, w)
						}
						delete(want, name)
					}
				}
			}
			if len(want) > 0 {
				t.Errorf("limits missing: %v\n%s", want, res.Stdout)
			}
			if !strings.Contains(res.Stdout, "mmap 9000000000: ENOMEM\n") || !strings.Contains(res.Stdout, "mmap 100000000: ok\n") {
				t.Errorf("RLIMIT_AS does not hold: %q", res.Stdout)
			}
		})
	}
}

// cgroupDir is the folder of the cgroup at path in the hierarchy that
// gives ctrl (v1), or in the v2 hierarchy (version "v2").
func cgroupDir(t *testing.T, version, ctrl, path string) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines(string(data)) {
		_, after, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		f, sf := strings.Fields(l), strings.Fields(after)
		if len(sf) < 3 || f[3] != "/" {
			continue
		}
		if (version == "v2" && sf[0] == "cgroup2") || (version == "v1" && sf[0] == "cgroup" && slicesContains(strings.Split(sf[2], ","), ctrl)) {
			return filepath.Join(f[4], path)
		}
	}
	t.Fatalf("no %s hierarchy for %s", version, ctrl)
	return ""
}

func slicesContains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// cgroupsOf reads /proc/PID/cgroup: controller (or "" for v2) to path.
func cgroupsOf(t *testing.T, pid string) map[string]string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range lines(string(data)) {
		parts := strings.SplitN(l, ":", 3)
		for _, c := range strings.Split(parts[1], ",") {
			m[c] = parts[2]
		}
	}
	return m
}

func readTrimmed(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestCgroupLimitsApplied checks, from the host, the cgroup of a running
// command: its limits, and that it is gone after the run. It needs a host
// that delegates cgroups; TestCgroupsUnavailable covers the others.
func TestCgroupLimitsApplied(t *testing.T) {
	rep := sandbox.SelfTest(context.Background())
	if !rep.Cgroups.Complete() {
		t.Skipf("this host gives no complete cgroup (%s: %s)", rep.Cgroups, rep.Cgroups.Why)
	}
	cpus := max(1, runtime.NumCPU()/2)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			marker := newMarker()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := m.run(ctx, specFor(t, newSkill(t), "sleep "+marker))
				done <- err
			}()
			var pid string
			for deadline := time.Now().Add(time.Minute); pid == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if found := marked(marker); len(found) == 1 {
					pid = strings.TrimPrefix(found[0], "/proc/")
				}
			}
			if pid == "" {
				t.Fatal("the command did not start")
			}
			groups := cgroupsOf(t, pid)
			var dirs []string
			check := func(version, ctrl, file, want string) {
				t.Helper()
				key := ctrl
				if version == "v2" {
					key = ""
				}
				if !strings.Contains(groups[key], "/vox-sandbox-") {
					t.Errorf("%s %s: the command is in %q, not a run's cgroup", version, ctrl, groups[key])
					return
				}
				dir := cgroupDir(t, version, ctrl, groups[key])
				dirs = append(dirs, dir)
				if got := readTrimmed(t, filepath.Join(dir, file)); got != want {
					t.Errorf("%s: %q, want %q", filepath.Join(dir, file), got, want)
				}
			}
			switch rep.Cgroups.Memory {
			case "v1":
				check("v1", "memory", "memory.limit_in_bytes", strconv.Itoa(sandbox.CgroupMemory))
			case "v2":
				check("v2", "memory", "memory.max", strconv.Itoa(sandbox.CgroupMemory))
			}
			switch rep.Cgroups.Pids {
			case "v1":
				check("v1", "pids", "pids.max", strconv.Itoa(sandbox.CgroupPids))
			case "v2":
				check("v2", "pids", "pids.max", strconv.Itoa(sandbox.CgroupPids))
			}
			switch rep.Cgroups.CPU {
			case "v1":
				check("v1", "cpu", "cpu.cfs_quota_us", strconv.Itoa(cpus*100000))
			case "v2":
				check("v2", "cpu", "cpu.max", fmt.Sprintf("%d 100000", cpus*100000))
			}
			switch rep.Cgroups.Kill {
			case "cgroup.kill":
				dir := cgroupDir(t, "v2", "", groups[""])
				dirs = append(dirs, dir)
				if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil || !strings.Contains(dir, "/vox-sandbox-") {
					t.Errorf("v2: the command is in %s: %v", dir, err)
				}
			case "freezer":
				check("v1", "freezer", "freezer.state", "THAWED")
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for _, d := range dirs {
				if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("cgroup %s left behind: %v", d, err)
				}
			}
		})
	}
}

// TestPidsLimit forks until the pids limit stops it (isolated, where the
// PID namespace shows exactly the command's processes).
func TestPidsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("forks hundreds of processes; TestCgroupLimitsApplied checks pids.max in -short runs")
	}
	if rep := sandbox.SelfTest(context.Background()); rep.Cgroups.Pids == "" {
		t.Skipf("this host gives no pids controller (%s)", rep.Cgroups.Why)
	}
	// The loop runs in a subshell, which dies when a fork fails; counting
	// uses only builtins, which need no fork.
	res := mustRun(t, sandbox.Run, `(i=0; while [ $i -lt 700 ]; do sleep 60 & i=$((i+1)); done) 2>/dev/null; set -- /proc/[0-9]*; echo $#`)
	n, err := strconv.Atoi(strings.TrimSpace(res.Stdout))
	if err != nil || n > sandbox.CgroupPids || n < 100 {
		t.Errorf("%q processes (stderr %q), want at most %d and some", res.Stdout, res.Stderr, sandbox.CgroupPids)
	}
}

// TestCgroupsUnavailable points the sandbox at a cgroup root with nothing
// mounted: the self-test warns, commands run with rlimits only, and
// VOX_SKILL_SANDBOX_REQUIRE=cgroups makes them fail closed.
func TestCgroupsUnavailable(t *testing.T) {
	root := t.TempDir()
	cfg := sandbox.Config{CgroupRoot: root}
	rep := cfg.SelfTest(context.Background())
	if err := rep.Problem(); err != nil {
		t.Fatal(err)
	}
	why := "no cgroup file system of this process is mounted under " + root +
		"; no writable memory controller; no writable pids controller; no writable cpu controller; no cgroup.kill and no writable freezer"
	if rep.Cgroups != (sandbox.CgroupSupport{Why: why}) {
		t.Errorf("cgroups %+v, want none with %q", rep.Cgroups, why)
	}
	wantWarning := "cgroups: memory none, pids none, cpu none, kill none (" + why + "); commands run with rlimits only, set VOX_SKILL_SANDBOX_REQUIRE=cgroups to refuse that"
	if len(rep.Warnings) == 0 || rep.Warnings[0] != wantWarning {
		t.Errorf("warnings %q, want first %q", rep.Warnings, wantWarning)
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	runners := map[string]runFunc{"isolated": cfg.Run, "unisolated": cfg.RunUnisolated}
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			// Still in this process's cgroups: none was made for the run.
			res := mustRun(t, run, "cat /proc/self/cgroup")
			if res.Stdout != string(own) {
				t.Errorf("cgroups %q, want this process's %q", res.Stdout, own)
			}
		})
	}

	required := sandbox.Config{CgroupRoot: root, RequireCgroups: true}
	wantProblem := "sandbox: VOX_SKILL_SANDBOX_REQUIRE=cgroups, but this host gives no complete writable cgroup (memory none, pids none, cpu none, kill none: " +
		why + "); run vox-mcp in a cgroup it may write (docs/sandbox.md), or drop cgroups from VOX_SKILL_SANDBOX_REQUIRE"
	if rep := required.SelfTest(context.Background()); rep.Err != nil || rep.Problem() == nil || rep.Problem().Error() != wantProblem {
		t.Errorf("self-test: %v, %v; want isolation working and the problem %q", rep.Err, rep.Problem(), wantProblem)
	}
	want := "sandbox: create cgroup: VOX_SKILL_SANDBOX_REQUIRE=cgroups, but this host gives memory none, pids none, cpu none, kill none (" + why + ")"
	for name, run := range map[string]runFunc{"isolated": required.Run, "unisolated": required.RunUnisolated} {
		marker := filepath.Join(t.TempDir(), "ran")
		res, err := run(context.Background(), specFor(t, newSkill(t), "touch "+marker))
		if err == nil || err.Error() != want || !zero(res) {
			t.Errorf("%s: got %+v, %v; want %q", name, res, err, want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the command ran", name)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c := sandbox.ConfigFromEnv(env(map[string]string{"VOX_SKILL_SANDBOX_REQUIRE": " Cgroups , landlock", "VOX_SKILL_CGROUP_ROOT": "/cg"}))
	if !c.RequireCgroups || !c.RequireLandlock || c.CgroupRoot != "/cg" {
		t.Errorf("got %+v", c)
	}
	bad := sandbox.ConfigFromEnv(env(map[string]string{"VOX_SKILL_SANDBOX_REQUIRE": "cgroup"}))
	want := `sandbox: VOX_SKILL_SANDBOX_REQUIRE=cgroup: unknown requirement "cgroup"; allowed: cgroups, landlock (comma-separated)`
	if err := bad.SelfTest(context.Background()).Problem(); err == nil || err.Error() != want {
		t.Errorf("self-test: %v, want %q", err, want)
	}
	if _, err := bad.Run(context.Background(), specFor(t, newSkill(t), "true")); err == nil || !strings.Contains(err.Error(), `unknown requirement "cgroup"`) {
		t.Errorf("run: %v", err)
	}
}

// TestLeftoversDie: processes a command leaves behind, also in a session
// of their own (setsid), die when the command ends; in the unisolated run
// also without cgroups, by the helper as their subreaper.
func TestLeftoversDie(t *testing.T) {
	configs := map[string]sandbox.Config{"default": {}, "no cgroups": {CgroupRoot: t.TempDir()}}
	for cname, cfg := range configs {
		for name, run := range map[string]runFunc{"isolated": cfg.Run, "unisolated": cfg.RunUnisolated} {
			t.Run(cname+"/"+name, func(t *testing.T) {
				marker := newMarker()
				// Wait until the escaped process runs sleep, then exit.
				cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > pid; exec sleep %[1]s' </dev/null >/dev/null 2>&1 &
while ! [ -s pid ] || [ "$(tr '\0' ' ' </proc/$(cat pid)/cmdline)" != "sleep %[1]s " ]; do sleep 0.01; done
echo escaped`, marker)
				res := mustRun(t, run, cmd)
				if res.Stdout != "escaped\n" || res.ExitCode != 0 {
					t.Fatalf("got %q, %q, exit %d", res.Stdout, res.Stderr, res.ExitCode)
				}
				if left := marked(marker); len(left) > 0 {
					t.Errorf("still running after the run returned: %v", left)
				}
			})
		}
	}
}

// TestUnisolatedHelperOutlivesServer kills the "server" (a helper process)
// while an unisolated command runs, with no cgroup to help: the unisolated
// helper sees its control pipe close and kills what the command started,
// also what left with setsid.
func TestUnisolatedHelperOutlivesServer(t *testing.T) {
	marker := newMarker()
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resR.Close()
	cmd := helper("run-unisolated", "VOX_SANDBOX_TEST_SKILL="+newSkill(t), "VOX_SANDBOX_TEST_CGROUP_ROOT="+t.TempDir(),
		"VOX_SANDBOX_TEST_COMMAND="+fmt.Sprintf("setsid sleep %[1]s & sleep %[1]s", marker))
	cmd.ExtraFiles = []*os.File{resW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	resW.Close()
	deadline := time.Now().Add(time.Minute)
	for len(marked(marker)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(marked(marker)); n != 2 {
		cmd.Process.Kill()
		t.Fatalf("%d of 2 sleeps started", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// The helper kills asynchronously once it notices; wait for that, but
	// no longer than a minute.
	for deadline := time.Now().Add(time.Minute); len(marked(marker)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if left := marked(marker); len(left) > 0 {
		t.Errorf("still running after the server died: %v", left)
		for _, p := range left {
			pid, _ := strconv.Atoi(strings.TrimPrefix(p, "/proc/"))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestSelfTestLeavesNothing runs self-tests in a helper with its own
// TMPDIR and kills it in the middle: nothing may appear in TMPDIR, and
// the cgroups it may leave are swept by the next start.
func TestSelfTestLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	list := func() []string {
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	if before := list(); len(before) != 0 {
		t.Fatalf("TMPDIR not empty: %q", before)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resR.Close()
	cmd := helper("self-test-loop", "TMPDIR="+tmp)
	cmd.ExtraFiles = []*os.File{resW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	resW.Close()
	sc := bufio.NewScanner(resR)
	for i := 0; i < 3; i++ {
		if !sc.Scan() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the helper stopped: %v", sc.Err())
		}
		if sc.Text() != "self-test: <nil>" {
			t.Errorf("self-test %d: %s", i, sc.Text())
		}
	}
	// The loop is in its next self-test now.
	cmd.Process.Kill()
	cmd.Wait()
	if after := list(); len(after) != 0 {
		t.Errorf("the self-test left %q in TMPDIR", after)
	}
	// A cgroup of the killed server's run goes at the next sweep, once
	// its processes are reaped (which the killed server cannot do).
	prefix := fmt.Sprintf("vox-sandbox-%d-", cmd.Process.Pid)
	var left []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		sandbox.SweepCgroups("/sys/fs/cgroup")
		if left = cgroupsNamed(prefix); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("cgroups left after the sweep: %q", left)
	}
}

// cgroupsNamed lists the cgroup folders under /sys/fs/cgroup, at most four
// levels down, whose name starts with prefix.
func cgroupsNamed(prefix string) []string {
	const root = "/sys/fs/cgroup"
	var found []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), prefix) {
			found = append(found, p)
		}
		if strings.HasPrefix(d.Name(), "vox-sandbox-") || strings.Count(strings.TrimPrefix(p, root), "/") > 3 {
			return filepath.SkipDir
		}
		return nil
	})
	return found
}

// landlockHelper restricts its locked thread with Landlock and reports
// what it can still do there.
func landlockHelper(out *os.File) int {
	runtime.LockOSThread()
	dirs := strings.Split(os.Getenv("VOX_SANDBOX_TEST_DIRS"), ":")
	readable, writable, other := dirs[0], dirs[1], dirs[2]
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(out, "no_new_privs:", err)
		return 1
	}
	if err := sandbox.RestrictLandlockForTest([]string{readable}, []string{writable}); err != nil {
		fmt.Fprintln(out, "restrict:", err)
		return 1
	}
	try := func(name string, err error) {
		if err == nil {
			fmt.Fprintf(out, "%s: ok\n", name)
		} else {
			fmt.Fprintf(out, "%s: %v\n", name, errors.Unwrap(err))
		}
	}
	_, err := os.ReadFile(filepath.Join(readable, "f"))
	try("read readable", err)
	_, err = os.ReadFile(filepath.Join(other, "f"))
	try("read other", err)
	try("write writable", os.WriteFile(filepath.Join(writable, "new"), nil, 0o644))
	try("write readable", os.WriteFile(filepath.Join(readable, "new"), nil, 0o644))
	_, err = os.ReadFile("/etc/passwd")
	try("read /etc/passwd", err)
	return 0
}

// TestLandlockRules checks the rule set on the kernel, outside the
// sandbox, in a helper whose restricted thread tries reads and writes.
func TestLandlockRules(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	var dirs []string
	for range 3 {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := helper("landlock", "VOX_SANDBOX_TEST_DIRS="+strings.Join(dirs, ":"))
	cmd.ExtraFiles = []*os.File{resW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	resW.Close()
	got, _ := io.ReadAll(resR)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want := "read readable: ok\nread other: permission denied\nwrite writable: ok\nwrite readable: permission denied\nread /etc/passwd: permission denied\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCgroupKillCatchesWhatTheHelperMisses: an unisolated command that
// kills its own helper leaves its setsid process to the cgroup alone. Each
// kill mechanism is tried by itself, with the cgroup root narrowed to its
// hierarchy: v2 cgroup.kill, and the v1 freezer. The control, without
// cgroups, shows the process does escape then (docs/sandbox.md says so).
func TestCgroupKillCatchesWhatTheHelperMisses(t *testing.T) {
	for _, c := range []struct{ root, kill string }{
		{"/sys/fs/cgroup/unified", "cgroup.kill"},
		{"/sys/fs/cgroup", "cgroup.kill"},
		{"/sys/fs/cgroup/freezer", "freezer"},
		{t.TempDir(), ""}, // the control
	} {
		t.Run(c.root, func(t *testing.T) {
			cfg := sandbox.Config{CgroupRoot: c.root}
			if got := cfg.SelfTest(context.Background()).Cgroups.Kill; got != c.kill {
				t.Skipf("under %s this host gives kill %q, not %q", c.root, got, c.kill)
			}
			marker := newMarker()
			cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > pid; exec sleep %[1]s' </dev/null >/dev/null 2>&1 &
while ! [ -s pid ] || [ "$(tr '\0' ' ' </proc/$(cat pid)/cmdline)" != "sleep %[1]s " ]; do sleep 0.01; done
kill -KILL $PPID`, marker)
			res, err := cfg.RunUnisolated(context.Background(), specFor(t, newSkill(t), cmd))
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 128+int(syscall.SIGKILL) {
				t.Errorf("exit %d, want the helper's SIGKILL (stderr %q)", res.ExitCode, res.Stderr)
			}
			left := marked(marker)
			for _, p := range left {
				pid, _ := strconv.Atoi(strings.TrimPrefix(p, "/proc/"))
				syscall.Kill(pid, syscall.SIGKILL)
			}
			switch {
			case c.kill != "" && len(left) > 0:
				t.Errorf("still running after the run returned: %v", left)
			case c.kill == "" && len(left) != 1:
				t.Errorf("control: without a cgroup the process should have escaped the killed helper, found %v", left)
			}
		})
	}
}
