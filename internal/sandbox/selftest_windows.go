package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// selfTestTimeout bounds the probe's run; the self-test ends it as soon
// as the probe has reported.
const selfTestTimeout = 60 * time.Second

// jobSummary names the job object's limits for the start-up log.
var jobSummary = fmt.Sprintf("%d processes, %d MiB memory, CPU time and rate, UI restrictions, kill on close", CgroupPids, CgroupMemory>>20)

// hostReport is the self-test of this host, run once per process: Run
// refuses every command while it found a protection that does not hold.
var hostReport = sync.OnceValue(func() Report { return selfTest(context.Background()) })

// SelfTest runs the probe once in the sandbox (the first call in the
// process; later calls return its report) and reports whether each
// protection held: a write outside the private folder and into the
// skill folder must be refused, and a process the probe leaves running
// must be dead when the run ends. What the mechanism does not confine
// (reads, the network) is observed and listed in Warnings.
func (c Config) SelfTest(context.Context) Report {
	rep := hostReport()
	rep.config = c
	return rep
}

// selfTest runs the probe: this binary, re-executed in the sandbox with
// probeArg, tries each forbidden action and reports as JSON.
func selfTest(ctx context.Context) (rep Report) {
	defer func() {
		if r := recover(); r != nil {
			rep.Err = fmt.Errorf("sandbox: internal error: %v", r)
		}
	}()
	if !initReady.Load() {
		return Report{Err: errNoInit}
	}
	// A medium-integrity folder of the user's: the probe may read it,
	// must not write it; its subfolder is the skill folder of the run.
	outside, err := os.MkdirTemp("", "vox-sandbox-self-test-")
	if err != nil {
		return Report{Err: fmt.Errorf("sandbox: self-test: %w", err)}
	}
	defer os.RemoveAll(outside)
	skill := filepath.Join(outside, "skill")
	secret := filepath.Join(outside, "secret.txt")
	for _, f := range []func() error{
		func() error { return os.Mkdir(skill, 0o700) },
		func() error { return os.WriteFile(secret, []byte("secret"), 0o600) },
	} {
		if err := f(); err != nil {
			return Report{Err: fmt.Errorf("sandbox: self-test: %w", err)}
		}
	}
	h, err := openFolder(skill)
	if err != nil {
		return Report{Err: fmt.Errorf("sandbox: self-test: %w", err)}
	}
	id, err := folderID(h)
	windows.CloseHandle(h)
	if err != nil {
		return Report{Err: fmt.Errorf("sandbox: self-test: %w", err)}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Report{Err: fmt.Errorf("sandbox: self-test: listen: %w", err)}
	}
	connected := make(chan bool, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		connected <- err == nil
	}()

	// The probe's report is its only output: the run is ended (as by its
	// timeout) once it is there, while the probe and the process it left
	// still run.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	spec := Spec{
		SkillID: "sandbox-self-test", SkillDir: skill, Folder: id, Timeout: selfTestTimeout,
		Output: func(int64) { cancel() },
	}
	res, err := Config{}.run(ctx, spec, true, []string{"check", outside, ln.Addr().String()})
	ln.Close()
	if err != nil {
		return Report{Err: err}
	}
	var found probeFindings
	found.Connected = <-connected
	_, err = os.Lstat(filepath.Join(outside, "written.txt"))
	found.OutsideWritten = err == nil
	_, err = os.Lstat(filepath.Join(skill, "written.txt"))
	found.SkillWritten = err == nil
	for _, w := range res.Warnings {
		found.HolderAlive = found.HolderAlive || strings.HasPrefix(w, outlivedWarning)
	}

	var pr probeReport
	line, _, _ := strings.Cut(res.Stdout, "\n")
	if err := json.Unmarshal([]byte(line), &pr); err != nil {
		return Report{Err: fmt.Errorf("sandbox: self-test: the probe reported nothing (exit %d, timed out %v): %s",
			res.ExitCode, res.TimedOut, firstLine(res.Stderr))}
	}
	rep.Mechanism = "low-integrity token, job object (" + jobSummary + ")"
	rep.Warnings, rep.Err = judgeProbe(pr, found)
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	return rep
}

// runProbe is the probe: "check OUTSIDE ADDR" tries what the sandbox
// forbids and prints a probeReport, then waits to be killed; "hold"
// says "held" on stderr and waits to be killed, holding its stdout (the
// run's output) open, so that the run sees whether it outlived the job.
func runProbe(args []string) int {
	switch {
	case len(args) == 1 && args[0] == "hold":
		fmt.Fprintln(os.Stderr, "held")
		select {}
	case len(args) == 3 && args[0] == "check":
		outside, addr := args[1], args[2]
		errText := func(err error) string {
			if err == nil {
				return ""
			}
			return err.Error()
		}
		var r probeReport
		r.TempWrite = errText(os.WriteFile("probe.txt", []byte("x"), 0o600))
		r.OutsideWrite = errText(os.WriteFile(filepath.Join(outside, "written.txt"), []byte("x"), 0o600))
		r.SkillWrite = errText(os.WriteFile(filepath.Join(outside, "skill", "written.txt"), []byte("x"), 0o600))
		_, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
		r.OutsideRead = errText(err)
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			c.Close()
		}
		r.Network = errText(err)
		r.Holder = errText(startHolder())
		b, _ := json.Marshal(r)
		os.Stdout.Write(append(b, '\n'))
		select {}
	}
	fmt.Fprintf(os.Stderr, "%s: unknown probe arguments %q\n", probeArg, args)
	return 2
}

// startHolder starts the probe's second process, its stdout the probe's
// (the run's output), and waits until it runs.
func startHolder() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, probeArg, "hold")
	cmd.Stdout = os.Stdout
	said, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line, _ := bufio.NewReader(said).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		return fmt.Errorf("the second process said %q", strings.TrimSpace(line))
	}
	return nil
}

// firstLine is the first line of s, for an error message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
