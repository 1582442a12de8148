package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Where the sandbox is not built from namespaces whose set-up proves
// itself step by step (macOS), the start-up self-test exercises each
// protection on the host instead: each probe runs a command that tries
// what the policy forbids and checks, from the host, that it did not
// happen. A probe also checks that the command did run (what it was
// allowed to do worked), so that a sandbox refusing everything, or a
// missing shell, does not pass for one that confines. The first probe
// that does not hold fails the self-test closed, naming its protection.

// probeEnv is what the probes need of the host: things the self-test
// made for them outside the run, and ways to look from outside.
type probeEnv struct {
	// Outside is a folder of the host outside every folder a run may
	// touch; it holds the file "secret" whose content is Secret.
	Outside string
	Secret  string
	// Home is a folder the command must not list (the user's home).
	Home string
	// SkillDir is the host path of the skill folder of the runs, which
	// holds SkillFile (at ./skill/SkillFile in the run) whose content is
	// SkillText.
	SkillDir, SkillFile, SkillText string
	// Connect is a shell command that connects to a listener of the host
	// on the loopback interface and prints "connected" if it could.
	Connect string
	// Connected reports whether the listener accepted a connection.
	Connected func() bool
	// Exists reports whether a host path exists.
	Exists func(path string) bool
	// Alive reports whether process pid still lives (after the run, it
	// gives the kill a moment to land).
	Alive func(pid int) bool
}

// probeRunner runs command as a skill command, isolated.
type probeRunner func(ctx context.Context, command string, timeout time.Duration) (Result, error)

// hostProbe is one protection exercised on the host.
type hostProbe struct {
	protection string // named when it does not hold
	timeout    time.Duration
	command    func(e *probeEnv) string
	// check says why the protection did not hold, "" when it held.
	check func(e *probeEnv, res Result) string
}

// probeTimeout is the timeout of every probe but the one of the timeout.
const probeTimeout = 20 * time.Second

// hostProbes are the protections of docs/sandbox.md, "Linux",
// in the order they are tried.
var hostProbes = []hostProbe{
	{
		protection: "a command runs",
		timeout:    probeTimeout,
		command:    func(*probeEnv) string { return "true" },
		check: func(_ *probeEnv, r Result) string {
			if r.TimedOut || r.ExitCode != 0 {
				return fmt.Sprintf("`true` exited with status %d (timed out %v): %s", r.ExitCode, r.TimedOut, probeLine(r.Stderr))
			}
			return ""
		},
	},
	{
		protection: "no write outside the temporary folder",
		timeout:    probeTimeout,
		command: func(e *probeEnv) string {
			return "echo inside > ./probe && cat ./probe; echo escaped > " + shellQuote(e.Outside+"/written")
		},
		check: func(e *probeEnv, r Result) string {
			if !strings.Contains(r.Stdout, "inside") {
				return "the command could not write its own temporary folder: " + probeLine(r.Stderr)
			}
			if e.Exists(e.Outside + "/written") {
				return "the command wrote " + e.Outside + "/written"
			}
			return ""
		},
	},
	{
		protection: "the skill folder is read-only",
		timeout:    probeTimeout,
		command: func(e *probeEnv) string {
			return "cat ./skill/" + shellQuote(e.SkillFile) + "; echo escaped > ./skill/written"
		},
		check: func(e *probeEnv, r Result) string {
			if !strings.Contains(r.Stdout, e.SkillText) {
				return "the command could not read the skill folder: " + probeLine(r.Stderr)
			}
			if e.Exists(e.SkillDir + "/written") {
				return "the command wrote " + e.SkillDir + "/written"
			}
			return ""
		},
	},
	{
		protection: "no read outside the skill and temporary folders",
		timeout:    probeTimeout,
		command: func(e *probeEnv) string {
			return "cat ./skill/" + shellQuote(e.SkillFile) + "; cat " + shellQuote(e.Outside+"/secret") +
				"; ls -a " + shellQuote(e.Home) + " >/dev/null 2>&1 && echo home-listed"
		},
		check: func(e *probeEnv, r Result) string {
			switch {
			case !strings.Contains(r.Stdout, e.SkillText):
				return "the command could not read the skill folder: " + probeLine(r.Stderr)
			case strings.Contains(r.Stdout, e.Secret):
				return "the command read " + e.Outside + "/secret"
			case strings.Contains(r.Stdout, "home-listed"):
				return "the command listed " + e.Home
			}
			return ""
		},
	},
	{
		protection: "no network",
		timeout:    probeTimeout,
		command:    func(e *probeEnv) string { return "echo trying; " + e.Connect },
		check: func(e *probeEnv, r Result) string {
			switch {
			case !strings.Contains(r.Stdout, "trying"):
				return "the probe did not run: " + probeLine(r.Stderr)
			case e.Connected() || strings.Contains(r.Stdout, "connected"):
				return "the command connected to a listener of the host on the loopback interface"
			}
			return ""
		},
	},
	{
		protection: "every process killed at the timeout",
		timeout:    time.Second,
		// A background job, and one whose parent exited at once (it
		// belongs to the host's init, but still to the process group).
		command: func(*probeEnv) string { return "sleep 60 & echo $!; (sleep 60 & echo $!); wait" },
		check: func(e *probeEnv, r Result) string {
			if !r.TimedOut {
				return fmt.Sprintf("`wait` on a background sleep ended before the timeout (status %d): %s", r.ExitCode, probeLine(r.Stderr))
			}
			pids := strings.Fields(r.Stdout)
			if len(pids) != 2 {
				return fmt.Sprintf("the probe printed %q, not two process ids", r.Stdout)
			}
			for _, s := range pids {
				pid, err := strconv.Atoi(s)
				if err != nil || pid <= 1 {
					return fmt.Sprintf("the probe printed %q, not two process ids", r.Stdout)
				}
				if e.Alive(pid) {
					return fmt.Sprintf("process %d, started by the command, still runs after the timeout", pid)
				}
			}
			return ""
		},
	},
}

// runProbes runs the probes in order and returns the error of the first
// one that does not hold, naming its protection; nil when all held.
func runProbes(ctx context.Context, run probeRunner, e *probeEnv, probes []hostProbe) error {
	for _, p := range probes {
		res, err := run(ctx, p.command(e), p.timeout)
		if err != nil {
			return fmt.Errorf("sandbox: self-test: %s: the probe could not run: %w", p.protection, err)
		}
		if why := p.check(e, res); why != "" {
			return fmt.Errorf("sandbox: self-test: %s: did not hold: %s", p.protection, why)
		}
	}
	return nil
}

// shellQuote quotes s for /bin/sh as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// probeLine is the first line of s, trimmed, for a probe's message.
func probeLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
