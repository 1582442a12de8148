package server

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
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
	var removed []string
	for uri := range s.registeredResources {
		if _, ok := want[uri]; !ok {
			removed = append(removed, uri)
		}
	}
	var changed []mcpserver.ServerResource
	for uri, e := range want {
		if prev, ok := s.registeredResources[uri]; !ok || !reflect.DeepEqual(prev, e.resource) {
			changed = append(changed, mcpserver.ServerResource{Resource: e.resource, Handler: e.handler})
		}
	}
	if len(removed) > 0 {
		slices.Sort(removed)
		s.mcp.DeleteResources(removed...)
	}
	if len(changed) > 0 {
		slices.SortFunc(changed, func(a, b mcpserver.ServerResource) int {
			if a.Resource.URI < b.Resource.URI {
				return -1
			}
			return 1
		})
		s.mcp.AddResources(changed...)
	}
	next := make(map[string]mcp.Resource, len(want))
	for uri, e := range want {
		next[uri] = e.resource
	}
	s.registeredResources = next
}

// unknownResource answers a resources/read of a URI that no resource is
// registered for: resource-not-found (-32002; -32602 under protocol
// 2026-07-28, as mcp-go answers it) with data.uri naming the URI, which
// mcp-go never sets (docs/federation.md §5). The server registers no
// resource templates with mcp-go (the skill file template is only
// advertised, see completion.go), so a URI that is no registered resource
// has no handler. ok is false when the URI is registered, or the request
// has none, and for what the read role may not read: mcp-go answers then,
// after the read role's check (auth.go).
func (s *Server) unknownResource(ctx context.Context, id, params json.RawMessage, modern bool) (reply []byte, ok bool) {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" || s.resourceRegistered(p.URI) ||
		roleFrom(ctx) == roleRead && !strings.HasPrefix(p.URI, "skill://") {
		return nil, false
	}
	code := mcp.RESOURCE_NOT_FOUND
	if modern {
		code = mcp.INVALID_PARAMS
	}
	return rpcReply(id, nil, &rpcError{Code: code, Message: "resource " + p.URI + " not found: resources/list shows the served resources",
		Data: map[string]string{"uri": p.URI}}), true
}

// resourceRegistered reports whether uri is a registered workspace or
// skill resource.
func (s *Server) resourceRegistered(uri string) bool {
	s.resMu.Lock()
	_, ok := s.registeredResources[uri]
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
