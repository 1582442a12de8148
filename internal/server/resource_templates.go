package server

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/uritemplate"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// registeredTemplate is a workspace resource template as registered with
// mcp-go: what resources/templates/list shows of it, and its parsed form,
// which decides what the shim lets through to mcp-go (resourceRegistered).
type registeredTemplate struct {
	name, description, mimeType, path string
	line                              int
	parsed                            *uritemplate.Template
}

// syncResourceTemplates registers the workspace's resource templates
// (docs/vox-language.md, Resources with URI parameters) with mcp-go, which
// lists them in resources/templates/list and dispatches a resources/read of
// a URI that matches one to its handler; each change sends
// resources/list_changed. mcp-go cannot delete one template, so a removal
// replaces the whole set. The caller holds resMu.
func (s *Server) syncResourceTemplates() {
	if s.workspace == nil {
		return
	}
	want := map[string]registeredTemplate{}
	var order []string
	for _, r := range s.workspace.surface.Load().Resources {
		if !r.IsTemplate() {
			continue
		}
		if _, taken := want[r.URI]; taken {
			continue
		}
		t, err := uritemplate.Parse(r.URI)
		if err != nil {
			continue // the checker rejected it: it is not on the surface
		}
		if workspace.ResourceURIProblem(r.URI) != "" {
			// The load refuses it (docs/federation.md §1.3); a surface
			// that was not loaded by that rule registers no template
			// mcp-go could match a reserved URI with all the same.
			continue
		}
		want[r.URI] = registeredTemplate{name: r.Func, description: r.Description, mimeType: r.MIMEType, path: r.Path, line: r.Line, parsed: t}
		order = append(order, r.URI)
	}
	removed, changed := registrationChanges(want, s.registeredTemplates, func(w, h registeredTemplate) bool {
		return w.name == h.name && w.description == h.description && w.mimeType == h.mimeType && w.path == h.path && w.line == h.line
	})
	entry := func(uri string) mcpserver.ServerResourceTemplate {
		t := want[uri]
		return mcpserver.ServerResourceTemplate{
			Template: mcp.NewResourceTemplate(uri, t.name, mcp.WithTemplateDescription(t.description), mcp.WithTemplateMIMEType(t.mimeType),
				func(rt *mcp.ResourceTemplate) {
					rt.Meta = &mcp.Meta{AdditionalFields: map[string]any{
						"vox_source":      registry.SourceWorkspace,
						"vox_source_path": t.path,
						"vox_source_line": t.line,
					}}
				}),
			Handler: s.workspace.readTemplate,
		}
	}
	switch {
	case len(removed) > 0:
		all := make([]mcpserver.ServerResourceTemplate, len(order))
		for i, uri := range order {
			all[i] = entry(uri)
		}
		s.mcp.SetResourceTemplates(all...)
	case len(changed) > 0:
		add := make([]mcpserver.ServerResourceTemplate, len(changed))
		for i, uri := range changed {
			add[i] = entry(uri)
		}
		s.mcp.AddResourceTemplates(add...)
	}
	s.registeredTemplates = want
}

// templateMatches reports whether uri expands a registered workspace
// resource template. A URI in a reserved scheme expands none: it is
// routed by its scheme to the server's own resources (docs/federation.md
// §5). The caller holds resMu.
func (s *Server) templateMatches(uri string) bool {
	if workspace.ReservedURI(uri) {
		return false
	}
	for _, t := range s.registeredTemplates {
		if _, ok := t.parsed.Match(uri); ok {
			return true
		}
	}
	return false
}

// readTemplate answers a resources/read that mcp-go matched with a
// workspace resource template. mcp-go picks any template that matches;
// the surface decides which one serves the URI (the first declared), so
// a read is the same whichever handler mcp-go chose. The function runs
// with the decoded variables through the call path and limits of a tool
// call, as a plain resource's does.
func (w *workspaceSource) readTemplate(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	surface := w.surface.Load()
	r, vars, ok := surface.MatchResource(req.Params.URI)
	if !ok {
		return nil, fmt.Errorf("no workspace resource template matches %s since the last refresh: resources/templates/list shows them: %w", req.Params.URI, mcpserver.ErrResourceNotFound)
	}
	ctx = toolcall.WithClient(ctx, w.s.clientOf(ctx, req.Params.Meta))
	return w.readResource(ctx, surface, r, req.Params.URI, vars)
}
