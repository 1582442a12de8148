package server

import "context"

func init() { registerHandler("vox_skill_discover", skillDiscover) }

// skillDiscover reports what the skill roots hold now.
func skillDiscover(_ context.Context, s *Server, _ Args) (any, error) {
	entries, warnings := s.skills.reg.Discover()
	for _, w := range warnings {
		s.log.Debug("skill discovery: " + w)
	}
	return map[string]any{"entries": entries}, nil
}
