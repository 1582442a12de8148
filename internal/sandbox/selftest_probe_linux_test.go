package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHostProbesOnLinux runs the host probes of the macOS self-test
// against the Linux sandbox, which must hold every protection, and
// against the unisolated run, which must fail at the first protection it
// lacks: the probes tell a confining runner from one that is not, on a
// real host.
func TestHostProbesOnLinux(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("the network probe needs bash for /dev/tcp:", err)
	}
	env, cleanup, err := newProbeEnv(func(port int) string {
		return bash + " -c 'echo > /dev/tcp/127.0.0.1/" + strconv.Itoa(port) + "' 2>/dev/null && echo connected"
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	fi, err := os.Lstat(env.SkillDir)
	if err != nil {
		t.Fatal(err)
	}
	runner := func(run func(Config, context.Context, Spec) (Result, error)) probeRunner {
		return func(ctx context.Context, command string, timeout time.Duration) (Result, error) {
			return run(Config{}, ctx, Spec{SkillID: "probe", SkillDir: env.SkillDir, Folder: FolderOf(fi), Command: command, Timeout: timeout})
		}
	}
	// The timeout probe reads process ids, which inside the sandbox are
	// those of its PID namespace, not the host's: it runs unisolated
	// below.
	last := len(hostProbes) - 1
	if hostProbes[last].protection != "every process killed at the timeout" {
		t.Fatalf("the last probe is %q", hostProbes[last].protection)
	}
	if err := runProbes(context.Background(), runner(Config.Run), env, hostProbes[:last]); err != nil {
		t.Errorf("isolated: %v", err)
	}
	err = runProbes(context.Background(), runner(Config.RunUnisolated), env, hostProbes)
	want := "sandbox: self-test: no write outside the temporary folder: did not hold: the command wrote " + env.Outside + "/written"
	if err == nil || err.Error() != want {
		t.Errorf("unisolated: %v, want %q", err, want)
	}
	// Each later protection is missing without isolation too, but for
	// the process kill, which the unisolated helper gives.
	os.Remove(env.Outside + "/written")
	for _, p := range hostProbes[2:] {
		err := runProbes(context.Background(), runner(Config.RunUnisolated), env, []hostProbe{p})
		os.Remove(env.SkillDir + "/written")
		holds := p.protection == "every process killed at the timeout"
		if (err == nil) != holds || err != nil && !strings.Contains(err.Error(), p.protection+": did not hold") {
			t.Errorf("unisolated, %s: %v", p.protection, err)
		}
	}
}
