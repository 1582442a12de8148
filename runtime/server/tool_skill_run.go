package server

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/sandbox"
)

func init() { registerHandler("vox_skill_run", skillRun) }

// skillRun runs a command for an installed skill in the sandbox (spec
// 40-skills §7). The sandbox requirement was checked before: the start-up
// self-test passed, or VOX_SKILL_SANDBOX=off chose the unisolated run.
func skillRun(ctx context.Context, s *Server, args Args) (any, error) {
	in, err := s.skills.reg.Snapshot().Lookup(args.String("id"))
	if err != nil {
		return nil, err
	}
	// The sandbox binds the folder itself, not a symlink leading to it.
	dir, err := filepath.EvalSymlinks(in.Path)
	if err != nil {
		return nil, fmt.Errorf("skill %s: its folder %s cannot be read (%v): vox_skill_discover shows where skills are", in.ID, in.Path, err)
	}
	spec := sandbox.Spec{
		SkillID:  in.ID,
		SkillDir: dir,
		Command:  args.String("command"),
		Timeout:  time.Duration(args.Int("timeout_ms", 0)) * time.Millisecond,
	}
	var res sandbox.Result
	if s.skills.sandboxOff {
		s.log.Warn("VOX_SKILL_SANDBOX=off: running a skill command without isolation", "skill", in.ID)
		res, err = sandbox.RunUnisolated(ctx, spec)
	} else {
		res, err = sandbox.Run(ctx, spec)
	}
	if err != nil {
		return nil, fmt.Errorf("the command did not run: %v; fix the host's sandbox support, or start vox-mcp with VOX_SKILL_SANDBOX=off to run without isolation", err)
	}
	return runResult{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr, TimedOut: res.TimedOut, Truncated: res.Truncated}, nil
}

// runResult is what the command did (spec 35-tool-results).
type runResult struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	TimedOut  bool   `json:"timed_out"`
	Truncated bool   `json:"truncated"`
}
