package server

import (
	"context"
	"errors"

	"github.com/vox-lang/vox-mcp/runtime/vox"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

func init() { registerHandler("vox_check", voxCheck) }

// sourcePath labels the diagnostics of source text given to vox_check.
const sourcePath = "<source>"

// voxCheckResult is the result of vox_check (spec 35-tool-results).
type voxCheckResult struct {
	OK          bool              `json:"ok"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

// voxCheck compiles a .vox file of the workspace or source text and
// returns its diagnostics, so an agent can write a tool, check it, refresh
// and call it.
func voxCheck(_ context.Context, s *Server, args Args) (any, error) {
	hasPath, hasSource := args.Has("path"), args.Has("source")
	if hasPath == hasSource {
		return nil, errors.New("give exactly one of path (a .vox file inside the workspace) or source (Vox source text)")
	}
	var m *vox.Module
	if hasSource {
		m = vox.Compile(sourcePath, []byte(args.String("source")))
	} else {
		rel, src, err := readWorkspaceFile(s.root, args.String("path"))
		if err != nil {
			return nil, err
		}
		m = vox.Compile(rel, src)
	}
	ds := m.Diagnostics()
	if ds == nil {
		ds = []diag.Diagnostic{}
	}
	return voxCheckResult{OK: !m.HasErrors(), Diagnostics: ds}, nil
}

// readWorkspaceFile reads a file named by a workspace-relative path,
// beneath the root and never blocking (workspace.ReadSource). It returns
// the clean repo-relative path.
func readWorkspaceFile(root, p string) (string, []byte, error) { return workspace.ReadSource(root, p) }
