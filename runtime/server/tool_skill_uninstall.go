package server

import "context"

func init() { registerHandler("vox_skill_uninstall", skillUninstall) }

// skillUninstall drops a skill from this process's registry; its folder
// stays.
func skillUninstall(_ context.Context, s *Server, args Args) (any, error) {
	in, err := s.skills.reg.Uninstall(args.String("id"))
	if err != nil {
		return nil, err
	}
	s.log.Info("skill uninstalled for this process", "skill", in.ID, "path", in.Path)
	return deletion{ID: in.ID, Path: in.Path, Deleted: false}, nil
}

// deletion is the result of uninstall (deleted false) and remove (true).
type deletion struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Deleted bool   `json:"deleted"`
}
