package server

import (
	"context"
	"fmt"

	"github.com/vox-lang/vox-mcp/runtime/skills"
)

func init() { registerHandler("vox_skill_parse", skillParse) }

// skillParse reads SKILL.md text without installing it.
func skillParse(_ context.Context, _ *Server, args Args) (any, error) {
	sk, warnings, err := skills.Parse([]byte(args.String("skill_md")))
	if err != nil {
		return nil, fmt.Errorf("skill_md: %w: fix the front matter and parse again", err)
	}
	return map[string]any{"skill": sk, "warnings": warnings}, nil
}
