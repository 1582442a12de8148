package server

import "context"

func init() { registerHandler("vox_skill_use", skillUse) }

// skillUse makes a skill the session's active skill and returns its
// instructions; id "" clears it.
func skillUse(ctx context.Context, s *Server, args Args) (any, error) {
	id := args.String("id")
	if id == "" {
		if err := s.skills.setActive(ctx, nil); err != nil {
			return nil, err
		}
		return map[string]any{"active": nil}, nil
	}
	in, err := s.skills.reg.Snapshot().Lookup(id)
	if err != nil {
		return nil, err
	}
	a := activeSkill{id: in.ID, name: in.Name, tools: in.Tools}
	if err := s.skills.setActive(ctx, &a); err != nil {
		return nil, err
	}
	s.log.Info("skill activated", "skill", in.ID, "allowlist", in.Tools)
	return usedSkill{ID: in.ID, Name: in.Name, Description: in.Description, Body: in.Body}, nil
}

// usedSkill is the result of activating a skill: its instructions.
type usedSkill struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
}
