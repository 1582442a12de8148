package server

import "context"

func init() { registerHandler("vox_workspace_mcp_refresh", workspaceRefresh) }

// workspaceRefresh rescans the workspace with the scan config as it is on
// disk now, swaps the surface atomically and returns the refresh result
// (spec 30-federation §4). A fatal scan error is an error result and the
// previous surface stays in service.
func workspaceRefresh(_ context.Context, s *Server, _ Args) (any, error) {
	res, err := s.workspace.refresh()
	if err != nil {
		return nil, err
	}
	return res, nil
}
