package server

import (
	"context"

	"github.com/vox-lang/vox-mcp/runtime/skills"
)

func init() { registerHandler("vox_skill_list", skillList) }

// skillList lists the installed skills, sorted by id.
func skillList(_ context.Context, s *Server, _ Args) (any, error) {
	list := []skills.Summary{}
	for _, in := range s.skills.reg.Snapshot().Skills() {
		list = append(list, in.Summary())
	}
	return map[string]any{"skills": list}, nil
}
