package handlers

import (
	"errors"
	"fmt"

	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// VoxToolSearch ranks every tool the server knows — catalog, workspace
// (advertised or not) and skill macro tools — with BM25 (docs/skills.md
// §3).
func (h *Handlers) VoxToolSearch(_ *toolcall.Call, args catalog.VoxToolSearchArgs) (*catalog.VoxToolSearchResult, error) {
	source := ""
	if args.Source != nil {
		source = *args.Source
	}
	hits := h.svc.SearchTools(args.Query, source, int(args.Limit))
	res := &catalog.VoxToolSearchResult{Results: make([]catalog.VoxToolSearchResultResultsItem, len(hits))}
	for i, hit := range hits {
		res.Results[i] = catalog.VoxToolSearchResultResultsItem{
			Name:        hit.Name,
			Description: hit.Description,
			InputSchema: hit.InputSchema,
			VoxSource:   hit.Source,
			Score:       hit.Score,
		}
	}
	return res, nil
}

// VoxWorkspaceMCPRefresh rescans the workspace with the scan config as it
// is on disk now, swaps the surface atomically and returns the refresh
// result (docs/federation.md §4). A fatal scan error is an error result
// and the previous surface stays in service. A client that asked for
// progress hears how many of the files are compiled.
func (h *Handlers) VoxWorkspaceMCPRefresh(c *toolcall.Call, _ catalog.VoxWorkspaceMCPRefreshArgs) (*catalog.VoxWorkspaceMCPRefreshResult, error) {
	r, err := h.svc.RefreshWorkspaceReporting(func(done, total int) {
		c.Progress(float64(done), float64(total), fmt.Sprintf("%d of %d files compiled", done, total))
	})
	if err != nil {
		return nil, err
	}
	res := &catalog.VoxWorkspaceMCPRefreshResult{
		ToolCount:          int64(r.ToolCount),
		ResourceCount:      int64(r.ResourceCount),
		Shadowed:           r.Shadowed,
		DuplicateTools:     r.DuplicateTools,
		DuplicateResources: r.DuplicateResources,
		Errors:             make([]catalog.VoxWorkspaceMCPRefreshResultErrorsItem, len(r.Errors)),
	}
	for i, e := range r.Errors {
		res.Errors[i] = catalog.VoxWorkspaceMCPRefreshResultErrorsItem{Path: e.Path, Message: e.Message}
	}
	return res, nil
}

// sourcePath labels the diagnostics of source text given to vox_check.
const sourcePath = "<source>"

// VoxCheck compiles a .vox file of the workspace or source text and
// returns its diagnostics, so an agent can write a tool, check it, refresh
// and call it.
func (h *Handlers) VoxCheck(_ *toolcall.Call, args catalog.VoxCheckArgs) (*catalog.VoxCheckResult, error) {
	if (args.Path == nil) == (args.Source == nil) {
		return nil, errors.New("give exactly one of path (a .vox file inside the workspace) or source (Vox source text)")
	}
	var m *vox.Module
	if args.Source != nil {
		m = vox.Compile(sourcePath, []byte(*args.Source))
	} else {
		rel, src, err := readWorkspaceFile(h.svc.Root(), *args.Path)
		if err != nil {
			return nil, err
		}
		m = vox.Compile(rel, src)
	}
	ds := m.Diagnostics()
	// ok is false on any error: a checker error keeps its function off
	// the surface though the file compiles.
	res := &catalog.VoxCheckResult{OK: !diag.List(ds).HasErrors(), Diagnostics: make([]catalog.VoxCheckResultDiagnosticsItem, len(ds))}
	for i, d := range ds {
		res.Diagnostics[i] = catalog.VoxCheckResultDiagnosticsItem{
			Path:     d.Path,
			Line:     int64(d.Line),
			Col:      int64(d.Col),
			Severity: d.Severity.String(),
			Code:     d.Code,
			Message:  d.Message,
			Help:     append([]string{}, d.Help...),
			Fixes:    []catalog.VoxCheckResultDiagnosticsItemFixesItem{},
		}
		if f := d.Fix; f != nil {
			res.Diagnostics[i].Fixes = append(res.Diagnostics[i].Fixes, catalog.VoxCheckResultDiagnosticsItemFixesItem{
				Line: int64(f.Line), Col: int64(f.Col), EndLine: int64(f.EndLine), EndCol: int64(f.EndCol), NewText: f.NewText})
		}
	}
	return res, nil
}

// readWorkspaceFile reads a file named by a workspace-relative path,
// beneath the root and never blocking (workspace.ReadSource). It returns
// the clean repo-relative path.
func readWorkspaceFile(root, p string) (string, []byte, error) { return workspace.ReadSource(root, p) }
