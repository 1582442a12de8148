package sandbox

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeHost is a host on which each protection can be made to fail: the
// runner plays what a command would do under the probes' commands.
type fakeHost struct {
	broken  string // the protection that does not hold
	written map[string]bool
	conn    bool
	alive   map[int]bool
	ran     []string
}

func (h *fakeHost) env() *probeEnv {
	return &probeEnv{
		Outside: "/host/outside", Secret: "s3cret", Home: "/Users/ada",
		SkillDir: "/host/skill", SkillFile: "probe.txt", SkillText: "skill-text",
		Connect:   "nc 127.0.0.1 4242 && echo connected",
		Connected: func() bool { return h.conn },
		Exists:    func(p string) bool { return h.written[p] },
		Alive:     func(pid int) bool { return h.alive[pid] },
	}
}

func (h *fakeHost) run(_ context.Context, command string, timeout time.Duration) (Result, error) {
	h.ran = append(h.ran, command)
	var out strings.Builder
	switch {
	case command == "true":
		if h.broken == "a command runs" {
			return Result{ExitCode: 71, Stderr: "sandbox-exec: profile rejected"}, nil
		}
	case strings.Contains(command, "/host/outside/written"):
		out.WriteString("inside\n")
		if h.broken == "no write outside the temporary folder" {
			h.written["/host/outside/written"] = true
		}
	case strings.Contains(command, "./skill/written"):
		out.WriteString("skill-text\n")
		if h.broken == "the skill folder is read-only" {
			h.written["/host/skill/written"] = true
		}
	case strings.Contains(command, "secret"):
		out.WriteString("skill-text\n")
		if h.broken == "no read outside the skill and temporary folders" {
			out.WriteString("s3cret\n")
		}
	case strings.Contains(command, "nc 127.0.0.1"):
		out.WriteString("trying\n")
		if h.broken == "no network" {
			h.conn = true
		}
	case strings.Contains(command, "sleep 60"):
		out.WriteString("4242\n4343\n")
		if timeout != time.Second {
			return Result{}, errors.New("the timeout probe must time out after a second")
		}
		if h.broken == "every process killed at the timeout" {
			h.alive[4343] = true
		}
		return Result{ExitCode: -1, TimedOut: true, Stdout: out.String()}, nil
	default:
		return Result{}, errors.New("unexpected probe command " + command)
	}
	return Result{Stdout: out.String()}, nil
}

// TestHostProbesNameTheProtectionThatFails runs the self-test's probes
// on a host that holds everything, then on hosts that each break one
// protection: the self-test fails closed naming it, and stops there.
func TestHostProbesNameTheProtectionThatFails(t *testing.T) {
	h := &fakeHost{written: map[string]bool{}, alive: map[int]bool{}}
	if err := runProbes(context.Background(), h.run, h.env(), hostProbes); err != nil {
		t.Fatalf("every protection holds, yet: %v", err)
	}
	if len(h.ran) != len(hostProbes) {
		t.Errorf("ran %d probes, want %d", len(h.ran), len(hostProbes))
	}
	for i, p := range hostProbes {
		h := &fakeHost{broken: p.protection, written: map[string]bool{}, alive: map[int]bool{}}
		err := runProbes(context.Background(), h.run, h.env(), hostProbes)
		want := "sandbox: self-test: " + p.protection + ": did not hold: "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s broken: %v, want an error starting %q", p.protection, err, want)
		}
		if len(h.ran) != i+1 {
			t.Errorf("%s broken: ran %d probes, want %d (stop at the first that fails)", p.protection, len(h.ran), i+1)
		}
	}
	// A probe whose command could not run is no proof either way.
	failing := func(context.Context, string, time.Duration) (Result, error) {
		return Result{}, &SetupError{Step: "apply seatbelt profile", Err: errors.New("bad profile")}
	}
	err := runProbes(context.Background(), failing, (&fakeHost{}).env(), hostProbes)
	if err == nil || err.Error() != "sandbox: self-test: a command runs: the probe could not run: sandbox: apply seatbelt profile: bad profile" {
		t.Errorf("set-up failure = %v", err)
	}
}

// TestHostProbesNeedTheCommandToRun: a sandbox that refuses everything,
// or a host where the probe's tools are missing, proves nothing: each
// probe also checks what the command was allowed to do.
func TestHostProbesNeedTheCommandToRun(t *testing.T) {
	refuseAll := func(_ context.Context, command string, _ time.Duration) (Result, error) {
		if command == "true" {
			return Result{}, nil
		}
		return Result{ExitCode: 1, Stderr: "sh: Operation not permitted"}, nil
	}
	err := runProbes(context.Background(), refuseAll, (&fakeHost{written: map[string]bool{}}).env(), hostProbes)
	want := "sandbox: self-test: no write outside the temporary folder: did not hold: the command could not write its own temporary folder: sh: Operation not permitted"
	if err == nil || err.Error() != want {
		t.Errorf("a sandbox refusing everything: %v, want %q", err, want)
	}
}

func TestRunProcesses(t *testing.T) {
	procs := []procInfo{
		{pid: 1, ppid: 0, pgid: 1},
		{pid: 100, ppid: 1, pgid: 100},             // the host's
		{pid: 500, ppid: 90, pgid: 500},            // the run's first process (the shell)
		{pid: 501, ppid: 500, pgid: 500, start: 7}, // a job
		{pid: 502, ppid: 500, pgid: 502},           // left the group, parent alive
		{pid: 503, ppid: 502, pgid: 503},           // below it, in a session of its own
		{pid: 504, ppid: 1, pgid: 500},             // orphaned, still in the group
		{pid: 505, ppid: 504, pgid: 505},           // below the orphan, out of the group
		{pid: 506, ppid: 1, pgid: 506},             // left the group and lost its parent: not found
	}
	var got []int
	for _, p := range runProcesses(procs, 500) {
		got = append(got, p.pid)
		// The killer compares the start time before it kills: a PID
		// reused since the listing is left alone.
		if p.pid == 501 && p.start != 7 {
			t.Errorf("process 501 lost its start time: %+v", p)
		}
	}
	slices.Sort(got)
	if want := []int{501, 502, 503, 504, 505}; !slices.Equal(got, want) {
		t.Errorf("runProcesses = %v, want %v", got, want)
	}
}
