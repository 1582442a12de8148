package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunInit()
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h))
	}
	code := m.Run()
	if probeDir != "" {
		os.RemoveAll(probeDir)
	}
	os.Exit(code)
}

const skillMD = "---\nname: test-skill\ndescription: a skill for the sandbox tests\n---\nBody.\n"

// newSkill makes a skill folder with SKILL.md and an executable script.
func newSkill(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"hello from $VOX_SKILL_ID\"\n"
	if err := os.WriteFile(filepath.Join(dir, "scripts", "hello.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// specFor is the spec of command for the skill in dir, recorded as
// discovered now.
func specFor(t testing.TB, dir, command string) sandbox.Spec {
	t.Helper()
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sandbox.Spec{SkillID: "test-skill", SkillDir: dir, Folder: sandbox.FolderOf(fi), Command: command, Timeout: 2 * time.Minute}
}

type runFunc func(context.Context, sandbox.Spec) (sandbox.Result, error)

var modes = []struct {
	name string
	run  runFunc
}{
	{"isolated", sandbox.Run},
	{"unisolated", sandbox.RunUnisolated},
}

// mustRun runs command for a fresh skill and fails the test on a set-up error.
func mustRun(t *testing.T, run runFunc, command string) sandbox.Result {
	t.Helper()
	return mustRunIn(t, run, newSkill(t), command)
}

func mustRunIn(t *testing.T, run runFunc, skillDir, command string) sandbox.Result {
	t.Helper()
	res, err := run(context.Background(), specFor(t, skillDir, command))
	if err != nil {
		t.Fatalf("run %q: %v", command, err)
	}
	if res.TimedOut {
		t.Fatalf("run %q timed out; stderr: %s", command, res.Stderr)
	}
	return res
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestSelfTest(t *testing.T) {
	rep := sandbox.SelfTest(context.Background())
	if err := rep.Problem(); err != nil {
		t.Fatal(err)
	}
	t.Logf("this host: %s", rep)
	for _, w := range rep.Warnings {
		t.Logf("warning: %s", w)
	}
	if !rep.Seccomp {
		t.Error("the self-test ran without the seccomp filter")
	}
	if abi := sandbox.LandlockABI(); rep.Landlock != abi {
		t.Errorf("the self-test applied Landlock ABI %d, the kernel has %d", rep.Landlock, abi)
	}
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		command string
		want    int
	}{
		{"true", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + 15},
		{"kill -KILL $$", 128 + 9},
		{"sh -c 'exit 42'", 42},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.command, func(t *testing.T) {
				res := mustRun(t, m.run, c.command)
				if res.ExitCode != c.want {
					t.Errorf("exit code %d, want %d (stderr %q)", res.ExitCode, c.want, res.Stderr)
				}
			})
		}
	}
}

func TestStdoutAndStderrAreSeparate(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRun(t, m.run, "echo out; echo err >&2; echo out2")
			if res.Stdout != "out\nout2\n" || res.Stderr != "err\n" || res.Truncated {
				t.Errorf("got stdout %q, stderr %q, truncated %v", res.Stdout, res.Stderr, res.Truncated)
			}
		})
	}
}

func TestEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("VOX_SANDBOX_TEST_SECRET", "do-not-leak")
	// /proc/$$/environ is exactly what the shell was started with; `env`
	// shows what it exports on top (dash adds PWD), which must not include
	// anything of the host either.
	const command = `tr '\0' '\n' </proc/$$/environ; echo --; env; echo --; pwd`
	t.Run("isolated", func(t *testing.T) {
		res := mustRun(t, sandbox.Run, command)
		parts := strings.Split(res.Stdout, "--\n")
		want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", "VOX_SKILL_ID=test-skill"}
		if got := lines(parts[0]); !slices.Equal(got, want) {
			t.Errorf("environment %q, want %q", got, want)
		}
		if strings.Contains(res.Stdout, "do-not-leak") {
			t.Errorf("host variable visible: %s", res.Stdout)
		}
		if got := strings.TrimSpace(parts[2]); got != "/tmp" {
			t.Errorf("working directory %q, want /tmp", got)
		}
	})
	t.Run("unisolated", func(t *testing.T) {
		res := mustRun(t, sandbox.RunUnisolated, command)
		parts := strings.Split(res.Stdout, "--\n")
		wd := strings.TrimSpace(parts[2])
		want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + wd, "LANG=C.UTF-8", "VOX_SKILL_ID=test-skill"}
		if got := lines(parts[0]); !slices.Equal(got, want) {
			t.Errorf("environment %q, want %q", got, want)
		}
		if strings.Contains(res.Stdout, "do-not-leak") {
			t.Errorf("host variable visible: %s", res.Stdout)
		}
		if _, err := os.Stat(wd); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("working folder %s left behind: %v", wd, err)
		}
	})
}

func TestCommandIsPassedExactly(t *testing.T) {
	// Bytes that are not UTF-8, quotes and newlines reach the shell unchanged.
	const command = "printf '%s' '\xff\xfe \"q\" \n\t\\'"
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRun(t, m.run, command)
			if want := "\xff\xfe \"q\" \n\t\\"; res.Stdout != want {
				t.Errorf("got %q, want %q", res.Stdout, want)
			}
		})
	}
}

func TestConcurrentRuns(t *testing.T) {
	skill := newSkill(t)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			spec := specFor(t, skill, "echo $VOX_SKILL_ID; echo "+fmt.Sprint(i)+" > ./n; cat ./n; exit "+fmt.Sprint(i))
			spec.SkillID = fmt.Sprintf("skill-%d", i)
			res, err := sandbox.Run(context.Background(), spec)
			if want := fmt.Sprintf("skill-%d\n%d\n", i, i); err == nil && (res.Stdout != want || res.ExitCode != i) {
				err = fmt.Errorf("run %d: got %q exit %d, want %q exit %d", i, res.Stdout, res.ExitCode, want, i)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestSkillFolderIsReadable(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRun(t, m.run, "cat ./skill/SKILL.md && ./skill/scripts/hello.sh")
			if want := skillMD + "hello from test-skill\n"; res.Stdout != want || res.ExitCode != 0 {
				t.Errorf("got %q (exit %d, stderr %q), want %q", res.Stdout, res.ExitCode, res.Stderr, want)
			}
		})
	}
}

func TestWritesOnlyInWorkingDir(t *testing.T) {
	skill := newSkill(t)
	before, _ := os.ReadDir(skill)
	probes := []string{
		"./skill/SKILL.md", "./skill/new-file", "/usr/vox-sandbox-probe", "/usr/bin/vox-sandbox-probe",
		"/etc/vox-sandbox-probe", "/etc/passwd", "/vox-sandbox-probe", "/dev/vox-sandbox-probe",
		"/proc/sys/kernel/hostname",
	}
	// ": >>" opens for appending and writes nothing, so a probe that
	// wrongly succeeds on a host file does it no harm.
	cmd := "echo data > ./made && cat ./made && echo home > \"$HOME/.probe\" && cat \"$HOME/.probe\" && echo x > /dev/null && echo devnull\n"
	for _, p := range probes {
		cmd += fmt.Sprintf("if (: >> %s) 2>/dev/null; then echo wrote %s; else echo denied %s; fi\n", p, p, p)
	}
	cmd += "if mkdir /usr/vox-sandbox-probe-dir 2>/dev/null; then echo made dir; else echo denied mkdir; fi\n"
	res := mustRunIn(t, sandbox.Run, skill, cmd)
	want := []string{"data", "home", "devnull"}
	for _, p := range probes {
		want = append(want, "denied "+p)
	}
	want = append(want, "denied mkdir")
	if got := lines(res.Stdout); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s\nstderr: %s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Stderr)
	}
	for _, p := range []string{"/usr/vox-sandbox-probe", "/usr/bin/vox-sandbox-probe", "/etc/vox-sandbox-probe", "/usr/vox-sandbox-probe-dir"} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("the sandbox created %s on the host", p)
		}
	}
	if after, _ := os.ReadDir(skill); len(after) != len(before) {
		t.Errorf("skill folder changed: %d entries before, %d after", len(before), len(after))
	}
}

func TestHostIsHidden(t *testing.T) {
	skill := newSkill(t)
	// A secret next to the skill, and a link to it from inside the skill.
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "token")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(skill, "leak")); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	hidden := []string{wd, secretDir, secret, skill, filepath.Dir(skill), "/root", "/home", "/work",
		"/var", "/opt", "/run", "/sys", "/boot", "/mnt", "/srv"}
	if h, err := os.UserHomeDir(); err == nil {
		hidden = append(hidden, h)
	}
	cmd := ""
	for _, p := range hidden {
		cmd += fmt.Sprintf("if [ -e '%s' ] || [ -L '%s' ]; then echo visible '%s'; fi\n", p, p, p)
	}
	cmd += `cat ./skill/leak 2>/dev/null && echo read the secret
echo "/:" $(ls -A /)
echo "/etc:" $(ls -A /etc)
echo "/dev:" $(ls -A /dev)
echo "pids:" /proc/[0-9]*
echo "self:" $$
echo "pid1:" $(tr '\0' ' ' </proc/1/cmdline)
echo "hostname:" $(hostname)
`
	res := mustRunIn(t, sandbox.Run, skill, cmd)
	got := map[string][]string{}
	for _, l := range lines(res.Stdout) {
		if strings.HasPrefix(l, "visible ") || l == "read the secret" {
			t.Errorf("inside the sandbox: %s", l)
			continue
		}
		k, v, _ := strings.Cut(l, ":")
		got[k] = strings.Fields(v)
	}
	subset := func(name string, allowed, required []string) {
		for _, e := range got[name] {
			if !slices.Contains(allowed, e) {
				t.Errorf("%s holds %q; only %q may be there", name, e, allowed)
			}
		}
		for _, e := range required {
			if !slices.Contains(got[name], e) {
				t.Errorf("%s lacks %q: %q", name, e, got[name])
			}
		}
	}
	subset("/", []string{"usr", "bin", "sbin", "lib", "lib64", "etc", "proc", "dev", "tmp"}, []string{"usr", "bin", "etc", "proc", "dev", "tmp"})
	subset("/etc", []string{"ld.so.cache", "alternatives", "ssl", "passwd", "group"}, []string{"passwd"})
	subset("/dev", []string{"null", "zero", "full", "random", "urandom", "fd", "stdin", "stdout", "stderr"}, []string{"null", "zero", "urandom"})
	// A fresh PID namespace: only the init (PID 1) and the shell exist.
	if want := []string{"/proc/1", "/proc/" + strings.Join(got["self"], "")}; !slices.Equal(got["pids"], want) {
		t.Errorf("processes %q, want %q", got["pids"], want)
	}
	if p1 := strings.Join(got["pid1"], " "); !strings.Contains(p1, sandbox.InitArg) {
		t.Errorf("PID 1 is %q, not the init", p1)
	}
	if h := strings.Join(got["hostname"], ""); h != "vox-sandbox" {
		t.Errorf("hostname %q", h)
	}
}

func TestPrivilegesAreDropped(t *testing.T) {
	res := mustRun(t, sandbox.Run, `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status
id -u
# The init keeps capabilities on its other threads; the command must not reach it.
for f in /proc/1/environ /proc/1/mem /proc/1/fd/0 /proc/1/root/; do
  if (cat $f >/dev/null) 2>/dev/null; then echo opened $f; fi
done`)
	want := []string{
		"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "0",
	}
	if got := lines(res.Stdout); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNoNetwork(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs bash for /dev/tcp:", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf(`/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected'`, port)

	res := mustRun(t, sandbox.Run, connect+"; echo interfaces: $(sed -n 's/^ *\\([^ ]*\\):.*/\\1/p' /proc/net/dev)")
	if strings.Contains(res.Stdout, "connected") {
		t.Errorf("the sandbox reached a host listener: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "interfaces: lo\n") {
		t.Errorf("want only the loopback interface: %q", res.Stdout)
	}
	t.Logf("connection attempt: %s", strings.TrimSpace(res.Stderr))
	// A completed connection would already wait in the accept queue: the
	// kernel finishes the handshake before connect returns in the sandbox.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Fatal("the listener received a connection from the sandbox")
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatal(err)
	}

	// Control: the same command without isolation does connect, so the
	// check above can see a connection.
	res = mustRun(t, sandbox.RunUnisolated, connect)
	if res.Stdout != "connected\n" {
		t.Fatalf("unisolated control did not connect: %q %q", res.Stdout, res.Stderr)
	}
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("unisolated control: %v", err)
	}
	c.Close()
}

// marked lists the processes whose command line starts with
// "sleep <marker>", from the host's /proc, which shows every PID namespace.
func marked(marker string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), "sleep\x00"+marker+"\x00") {
			found = append(found, d)
		}
	}
	return found
}

func newMarker() string { return fmt.Sprintf("1000.%06d", rand.IntN(1000000)) }

// TestCancelKillsEverything starts sleeps that background, orphan and
// (inside the sandbox) leave the process group, waits until they all run,
// cancels, and checks that none survives.
func TestCancelKillsEverything(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			marker := newMarker()
			// setsid leaves the process group and the session: the PID
			// namespace, or the unisolated helper as subreaper, catches it.
			cmd := fmt.Sprintf("setsid sleep %[1]s & setsid sh -c 'sleep %[1]s' & sleep %[1]s & (sleep %[1]s &); sleep %[1]s", marker)
			want := 5
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				deadline := time.Now().Add(time.Minute)
				for len(marked(marker)) < want && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			res, err := m.run(ctx, specFor(t, newSkill(t), cmd))
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode != -1 {
				t.Errorf("got timed out %v, exit %d; want true, -1 (stderr %q)", res.TimedOut, res.ExitCode, res.Stderr)
			}
			if left := marked(marker); len(left) > 0 {
				t.Errorf("still running after the run returned: %v", left)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			marker := newMarker()
			cmd := fmt.Sprintf("sleep %[1]s & sleep %[1]s", marker)
			spec := specFor(t, newSkill(t), cmd)
			spec.Timeout = time.Second
			res, err := m.run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode != -1 {
				t.Errorf("got timed out %v, exit %d; want true, -1", res.TimedOut, res.ExitCode)
			}
			if left := marked(marker); len(left) > 0 {
				t.Errorf("still running after the timeout: %v", left)
			}
		})
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range modes {
		res, err := m.run(ctx, specFor(t, newSkill(t), "echo ran"))
		if err != nil || !res.TimedOut || res.ExitCode != -1 || res.Stdout != "" {
			t.Errorf("%s: got %+v, %v", m.name, res, err)
		}
	}
}

func TestOutputCap(t *testing.T) {
	cut := func(c string) string { return strings.Repeat(c, sandbox.OutputCap) + sandbox.TruncationMarker }
	if sandbox.TruncationMarker != "\n[truncated after 1048576 bytes]" {
		t.Fatalf("marker %q", sandbox.TruncationMarker)
	}
	for _, m := range modes {
		t.Run(m.name+"/both streams cut", func(t *testing.T) {
			res := mustRun(t, m.run, "head -c 1200000 /dev/zero | tr '\\0' o; head -c 1100000 /dev/zero | tr '\\0' e >&2")
			if res.Stdout != cut("o") || res.Stderr != cut("e") || !res.Truncated || res.ExitCode != 0 {
				t.Errorf("stdout %d bytes, stderr %d bytes, truncated %v, exit %d",
					len(res.Stdout), len(res.Stderr), res.Truncated, res.ExitCode)
			}
		})
		t.Run(m.name+"/one stream cut", func(t *testing.T) {
			res := mustRun(t, m.run, "head -c 1048577 /dev/zero | tr '\\0' o; echo short >&2")
			if res.Stdout != cut("o") || res.Stderr != "short\n" || !res.Truncated {
				t.Errorf("stdout %d bytes, stderr %q, truncated %v", len(res.Stdout), res.Stderr, res.Truncated)
			}
		})
	}
	t.Run("exactly the cap is kept whole", func(t *testing.T) {
		res := mustRun(t, sandbox.Run, "head -c 1048576 /dev/zero | tr '\\0' o")
		if res.Stdout != strings.Repeat("o", sandbox.OutputCap) || res.Truncated {
			t.Errorf("stdout %d bytes, truncated %v", len(res.Stdout), res.Truncated)
		}
	})
	t.Run("the rest is drained", func(t *testing.T) {
		// Far more than a pipe holds: the command only finishes if the
		// output past the cap is read and discarded.
		res := mustRun(t, sandbox.Run, "head -c 40000000 /dev/zero; head -c 40000000 /dev/zero >&2; exit 5")
		if res.ExitCode != 5 || len(res.Stdout) != sandbox.OutputCap+len(sandbox.TruncationMarker) || !res.Truncated {
			t.Errorf("exit %d, stdout %d bytes, truncated %v", res.ExitCode, len(res.Stdout), res.Truncated)
		}
	})
}

// zero reports whether res is the empty Result of a run that did not happen.
func zero(res sandbox.Result) bool { return reflect.DeepEqual(res, sandbox.Result{}) }

func TestFailsClosed(t *testing.T) {
	ranMarker := filepath.Join(t.TempDir(), "ran")
	// Were the command run outside the sandbox, it would create ranMarker.
	command := "touch " + ranMarker + "; echo ran"
	assertNotRun := func(t *testing.T, res sandbox.Result) {
		t.Helper()
		if !zero(res) {
			t.Errorf("result %+v for a run that failed", res)
		}
		if _, err := os.Stat(ranMarker); err == nil {
			t.Fatal("the command ran")
		}
	}

	for _, m := range modes {
		t.Run(m.name+"/missing skill folder", func(t *testing.T) {
			dir := newSkill(t)
			spec := specFor(t, dir, command)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			res, err := m.run(context.Background(), spec)
			assertNotRun(t, res)
			var se *sandbox.SetupError
			if !errors.As(err, &se) || se.Step != "open skill folder" || !errors.Is(err, syscall.ENOENT) {
				t.Fatalf("got %v", err)
			}
			if want := "sandbox: open skill folder: " + dir + ": no such file or directory"; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}

	steps := slices.Clone(sandbox.FixedSetupSteps)
	for _, p := range []string{"/usr", "/bin", "/etc/passwd"} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			steps = append(steps, "symlink "+p)
		} else if err == nil {
			steps = append(steps, "bind "+p, "remount "+p+" read-only")
		}
	}
	steps = append(steps, "bind /dev/null")
	failing := []struct {
		mode  string
		steps []string
		run   func(context.Context, sandbox.Spec, string) (sandbox.Result, error)
	}{
		{"isolated", steps, sandbox.Config{}.RunFailingAt},
		{"unisolated", sandbox.UnisolatedSetupSteps, sandbox.Config{}.RunUnisolatedFailingAt},
	}
	for _, f := range failing {
		for _, step := range f.steps {
			t.Run(f.mode+"/"+step, func(t *testing.T) {
				res, err := f.run(context.Background(), specFor(t, newSkill(t), command), step)
				assertNotRun(t, res)
				// Some steps add a hint in parentheses about the usual cause.
				if want := "sandbox: " + step + ": operation not permitted"; err == nil || (err.Error() != want && !strings.HasPrefix(err.Error(), want+" (")) {
					t.Fatalf("got error %v, want %q", err, want)
				}
				if !errors.Is(err, syscall.EPERM) {
					t.Errorf("%v does not wrap EPERM", err)
				}
			})
		}
	}
}

// TestFailsClosedWithoutUserNamespaces runs this test again in a user
// namespace that may create no further ones, a host where the sandbox cannot
// work: Run and SelfTest must fail, saying why, and run nothing.
func TestFailsClosedWithoutUserNamespaces(t *testing.T) {
	if os.Getenv("VOX_SANDBOX_TEST_NO_USERNS") == "1" {
		skill := newSkill(t)
		res, err := sandbox.Run(context.Background(), specFor(t, skill, "echo ran"))
		want := "sandbox: start namespaces: no space left on device (no user namespace may be created: sysctl user.max_user_namespaces is 0 or used up)"
		if !zero(res) || err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("got %+v, %v; want error %q", res, err, want)
		}
		if err := sandbox.SelfTest(context.Background()).Problem(); err == nil || err.Error() != want {
			t.Errorf("self-test: got %v, want %q", err, want)
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare from util-linux:", err)
	}
	cmd := exec.Command(unshare, "--user", "--map-root-user", "sh", "-c",
		`echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" -test.run='^TestFailsClosedWithoutUserNamespaces$' -test.v -test.count=1`,
		os.Args[0])
	cmd.Env = append(os.Environ(), "VOX_SANDBOX_TEST_NO_USERNS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFailsClosedWithoutUserNamespaces") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestInvalidSpecs(t *testing.T) {
	skill := newSkill(t)
	st, err := os.Lstat(skill)
	if err != nil {
		t.Fatal(err)
	}
	fi := sandbox.FolderOf(st)
	cases := []struct {
		name string
		spec sandbox.Spec
		want string
	}{
		{"relative folder", sandbox.Spec{SkillDir: "skills/x", Folder: fi, Command: "true"}, `sandbox: skill folder "skills/x" is not an absolute path`},
		{"unclean folder", sandbox.Spec{SkillDir: skill + "/../x", Folder: fi, Command: "true"}, fmt.Sprintf("sandbox: skill folder %q is not a clean path", skill+"/../x")},
		{"no record", sandbox.Spec{SkillDir: skill, Command: "true"}, "sandbox: no record of the skill folder " + skill + " as discovered"},
		{"timeout too long", sandbox.Spec{SkillDir: skill, Folder: fi, Command: "true", Timeout: sandbox.MaxTimeout + time.Millisecond}, "sandbox: timeout 5m0.001s exceeds the maximum 5m0s"},
		{"negative timeout", sandbox.Spec{SkillDir: skill, Folder: fi, Command: "true", Timeout: -time.Second}, "sandbox: negative timeout -1s"},
		{"NUL in command", sandbox.Spec{SkillDir: skill, Folder: fi, Command: "true\x00"}, "sandbox: command contains a NUL byte"},
		{"command too long", sandbox.Spec{SkillDir: skill, Folder: fi, Command: strings.Repeat("x", 1<<17)}, "sandbox: command is 131072 bytes long, at most 131071 are allowed"},
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				res, err := m.run(context.Background(), c.spec)
				if err == nil || err.Error() != c.want || !zero(res) {
					t.Errorf("got %+v, %v; want error %q", res, err, c.want)
				}
			})
		}
	}
}

func TestLongestCommand(t *testing.T) {
	// The longest command execve takes still runs.
	cmd := "echo ok #" + strings.Repeat("x", 131071-len("echo ok #"))
	if res := mustRun(t, sandbox.Run, cmd); res.Stdout != "ok\n" {
		t.Errorf("got %q, %q", res.Stdout, res.Stderr)
	}
}

func BenchmarkRun(b *testing.B) {
	spec := specFor(b, b.TempDir(), "true")
	for b.Loop() {
		if _, err := sandbox.Run(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunUnisolated(b *testing.B) {
	spec := specFor(b, b.TempDir(), "true")
	for b.Loop() {
		if _, err := sandbox.RunUnisolated(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}
