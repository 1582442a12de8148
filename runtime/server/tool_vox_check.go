package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
// refusing absolute paths and paths that leave the root (also through
// symlinks). It returns the clean repo-relative path.
func readWorkspaceFile(root, p string) (string, []byte, error) {
	if filepath.IsAbs(p) {
		return "", nil, fmt.Errorf("path %s: give a path relative to the workspace root", p)
	}
	abs := filepath.Join(root, filepath.FromSlash(p))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) && workspace.Inside(root, abs) {
		return "", nil, fmt.Errorf("path %s: no such file in the workspace", p)
	}
	if err != nil || !workspace.Inside(realRoot, real) {
		return "", nil, fmt.Errorf("path %s is outside the workspace", p)
	}
	src, err := os.ReadFile(real)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", nil, fmt.Errorf("path %s: %v", p, err)
	}
	rel, _ := filepath.Rel(root, abs)
	return filepath.ToSlash(rel), src, nil
}
