package server

import (
	"context"
	"fmt"
)

func init() { registerHandler("vox_skill_install", skillInstall) }

// skillInstall writes a skill given as text into the install target and
// installs it.
func skillInstall(_ context.Context, s *Server, args Args) (any, error) {
	files := map[string]string{}
	if raw, ok := args["files"].(map[string]any); ok {
		for rel, v := range raw {
			text, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("argument files: the value of %q must be a string of UTF-8 text", rel)
			}
			files[rel] = text
		}
	}
	in, warnings, err := s.skills.reg.Install([]byte(args.String("skill_md")), files, args.Bool("global"))
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		s.log.Warn("installed skill: "+w, "skill", in.ID)
	}
	s.log.Info("skill installed", "skill", in.ID, "path", in.Path)
	return installedResult(in.ID, in.Name, in.Path), nil
}

// installedSkill is the result of an install or add of one skill.
type installedSkill struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Path string `json:"path"`
}

func installedResult(id, name, path string) installedSkill {
	return installedSkill{ID: id, Name: name, Path: path}
}
