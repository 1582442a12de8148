package server

import (
	"context"
	"errors"

	"github.com/vox-lang/vox-mcp/runtime/skills"
)

func init() { registerHandler("vox_skill_add", skillAdd) }

// skillAdd copies skills from a local folder or a git repository into the
// install target and installs them. Cloning reaches the network, so it
// needs the network permission that VOX_MCP_ALLOW_NETWORK=1 gives.
func skillAdd(ctx context.Context, s *Server, args Args) (any, error) {
	source := args.String("source")
	if skills.IsGitURL(source) && !s.opts.AllowNetwork {
		return nil, errors.New("adding from a git URL needs network access, which is off: start vox-mcp with VOX_MCP_ALLOW_NETWORK=1, or add from a local folder")
	}
	ins, warnings, err := s.skills.reg.Add(ctx, source, args.Bool("global"), args.String("skill"))
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		s.log.Warn("added skill: " + w)
	}
	for _, in := range ins {
		s.log.Info("skill added", "skill", in.ID, "path", in.Path, "source", source)
	}
	if len(ins) == 1 {
		return installedResult(ins[0].ID, ins[0].Name, ins[0].Path), nil
	}
	list := make([]installedSkill, len(ins))
	for i, in := range ins {
		list[i] = installedResult(in.ID, in.Name, in.Path)
	}
	return map[string]any{"installed": list}, nil
}
