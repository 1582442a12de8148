package server

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// resourceEntry is one resource of the MCP plane and its read handler.
type resourceEntry struct {
	resource mcp.Resource
	handler  mcpserver.ResourceHandlerFunc
}

// resourceSource supplies the current resources of one origin (the
// workspace, skills); implementations return a fresh slice on every call.
type resourceSource interface {
	resourceEntries() []resourceEntry
}

// syncResources merges every resource source (the first source wins a
// URI) and updates mcp-go's registrations with only what changed: removed
// URIs are deleted and new or changed ones upserted, each step notifying
// clients with resources/list_changed. It does not use SetResources, which
// empties the table before refilling it: a concurrent resources/read could
// miss a resource that stays.
func (s *Server) syncResources() {
	s.resMu.Lock()
	defer s.resMu.Unlock()
	want := map[string]resourceEntry{}
	for _, src := range s.resourceSources {
		for _, e := range src.resourceEntries() {
			if _, taken := want[e.resource.URI]; !taken {
				want[e.resource.URI] = e
			}
		}
	}
	removed, changed := registrationChanges(want, s.registeredResources, func(e resourceEntry, prev mcp.Resource) bool {
		return reflect.DeepEqual(prev, e.resource)
	})
	if len(removed) > 0 {
		s.mcp.DeleteResources(removed...)
	}
	if len(changed) > 0 {
		add := make([]mcpserver.ServerResource, len(changed))
		for i, uri := range changed {
			add[i] = mcpserver.ServerResource{Resource: want[uri].resource, Handler: want[uri].handler}
		}
		s.mcp.AddResources(add...)
	}
	next := make(map[string]mcp.Resource, len(want))
	for uri, e := range want {
		next[uri] = e.resource
	}
	s.registeredResources = next
	s.syncResourceTemplates()
}

// registrationChanges compares what should be registered with mcp-go
// (want) with what is (had): the keys to delete and the keys to add or
// replace, each sorted, so that a sync changes (and notifies) only what
// differs. same reports whether a wanted entry equals the registered one.
func registrationChanges[W, H any](want map[string]W, had map[string]H, same func(W, H) bool) (removed, changed []string) {
	for key := range had {
		if _, ok := want[key]; !ok {
			removed = append(removed, key)
		}
	}
	for key, w := range want {
		if h, ok := had[key]; !ok || !same(w, h) {
			changed = append(changed, key)
		}
	}
	slices.Sort(removed)
	slices.Sort(changed)
	return removed, changed
}

// unknownResource answers a resources/read of a URI that no resource is
// registered for: resource-not-found (-32002; -32602 under protocol
// 2026-07-28, as mcp-go answers it) with data.uri naming the URI, which
// mcp-go never sets (docs/federation.md §5). The only resource templates
// registered with mcp-go are the workspace's (resource_templates.go; the
// skill file template is only advertised, see completion.go), so a URI
// that is no registered resource and expands no workspace template has
// no handler; neither has a URI in a reserved scheme (skill://) that no
// skill serves, since such a URI never reaches a workspace template
// (templateMatches). ok is false when the URI is registered, or the
// request has none, and for what the read role may not read: mcp-go
// answers then, after the read role's check (auth.go).
func (s *Server) unknownResource(ctx context.Context, id, params json.RawMessage, modern bool) (reply []byte, ok bool) {
	var p struct {
		URI string `json:"uri"`
	}
	if unmarshal(params, &p) != nil || p.URI == "" || s.resourceRegistered(p.URI) ||
		roleFrom(ctx) == roleRead && !workspace.ReservedURI(p.URI) {
		return nil, false
	}
	if s.audit.on() {
		s.audit.write(ctx, time.Now(), audit.ActionResourceRead, "", uriArgs(p.URI), audit.OutcomeError, reasonNotFound)
	}
	code := mcp.RESOURCE_NOT_FOUND
	if modern {
		code = mcp.INVALID_PARAMS
	}
	return rpcReply(id, nil, &rpcError{Code: code, Message: "resource " + p.URI + " not found: resources/list shows the served resources",
		Data: map[string]string{"uri": p.URI}}), true
}

// resourceRegistered reports whether uri is a registered workspace or
// skill resource, or expands a registered workspace resource template.
func (s *Server) resourceRegistered(uri string) bool {
	s.resMu.Lock()
	_, ok := s.registeredResources[uri]
	ok = ok || s.templateMatches(uri)
	s.resMu.Unlock()
	if ok || s.skills == nil {
		return ok
	}
	p := s.skills
	p.resMu.Lock()
	defer p.resMu.Unlock()
	_, ok = p.resources[uri]
	return ok
}
