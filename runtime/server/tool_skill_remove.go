package server

import "context"

func init() { registerHandler("vox_skill_remove", skillRemove) }

// skillRemove deletes an installed skill's folder (only directly under an
// install target) and uninstalls it.
func skillRemove(_ context.Context, s *Server, args Args) (any, error) {
	in, err := s.skills.reg.Remove(args.String("id"))
	if err != nil {
		return nil, err
	}
	s.log.Info("skill removed", "skill", in.ID, "path", in.Path)
	return deletion{ID: in.ID, Path: in.Path, Deleted: true}, nil
}
