package server

import "context"

func init() { registerHandler("vox_skill_info", skillInfo) }

// skillInfo shows an installed skill's manifest, folder and files.
func skillInfo(_ context.Context, s *Server, args Args) (any, error) {
	in, err := s.skills.reg.Snapshot().Lookup(args.String("id"))
	if err != nil {
		return nil, err
	}
	return in.Info(), nil
}
