package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/sandbox"
)

func init() { registerHandler("vox_skill_run", skillRun) }

// skillRun runs a command for an installed skill in the sandbox
// (docs/security.md, "The skill sandbox"). The sandbox requirement was
// checked before: the start-up self-test passed, or VOX_SKILL_SANDBOX=off
// chose the unisolated run. The sandbox binds the folder the registry
// discovered, checked by device and inode, never what its path leads to
// now.
func skillRun(ctx context.Context, s *Server, args Args) (any, error) {
	in, err := s.skills.reg.Snapshot().Lookup(args.String("id"))
	if err != nil {
		return nil, err
	}
	spec := sandbox.Spec{
		SkillID:  in.ID,
		SkillDir: in.RealPath(),
		Folder:   sandbox.FolderID{Dev: in.Dev, Ino: in.Ino},
		Command:  args.String("command"),
		Timeout:  time.Duration(args.Int("timeout_ms", 0)) * time.Millisecond,
	}
	cfg := s.opts.SkillSandbox
	var res sandbox.Result
	if s.skills.sandboxOff {
		s.log.Warn("VOX_SKILL_SANDBOX=off: running a skill command without isolation", "skill", in.ID)
		res, err = cfg.RunUnisolated(ctx, spec)
	} else {
		res, err = cfg.Run(ctx, spec)
	}
	for _, w := range res.Warnings {
		s.log.Warn("vox_skill_run: "+w, "skill", in.ID)
	}
	var se *sandbox.SetupError
	switch {
	case errors.As(err, &se) && se.Step == sandbox.StepOpenSkill:
		return nil, fmt.Errorf("skill %s: the command did not run: %v", in.ID, err)
	case err != nil:
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
