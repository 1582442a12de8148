package server

import "context"

func init() { registerHandler("vox_skill_search", skillSearch) }

// skillSearch ranks the installed skills with BM25F (spec 40-skills §3).
func skillSearch(_ context.Context, s *Server, args Args) (any, error) {
	results := s.skills.reg.Snapshot().Search(args.String("query"), int(args.Int("limit", 10)))
	return map[string]any{"results": results}, nil
}
