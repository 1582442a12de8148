package server

import (
	"reflect"
	"slices"

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
