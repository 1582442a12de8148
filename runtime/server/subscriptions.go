package server

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/skills"
)

// recordSubscription serves recordSessionState: mcp-go answers
// resources/subscribe and unsubscribe but records nothing for its own
// sessions, so the subscription is kept here, in the session's state
// (session.Store), with the address its notifications go to
// (docs/federation.md §11). Any URI may be subscribed to, since a resource
// may appear later; a session holds at most session.MaxSubscriptions.
func (s *Server) recordSubscription(ctx context.Context, req sessionRequest) error {
	var params struct {
		URI string `json:"uri"`
	}
	if !req.params(&params) || params.URI == "" {
		return nil
	}
	method := mcp.MCPMethod(req.Method)
	ref, ok := sessionOf(ctx)
	if !ok {
		return nil // protocol 2026-07-28 has no resources/subscribe: mcp-go refuses it
	}
	if method == mcp.MethodResourcesUnsubscribe {
		return s.sessions.state.Unsubscribe(ctx, ref.key, params.URI)
	}
	address := processSession
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
		address = cs.SessionID()
	}
	if err := s.sessions.state.Subscribe(ctx, ref.key, ref.expires, address, params.URI); err != nil {
		return fmt.Errorf("resources/subscribe %s: %w", params.URI, err)
	}
	return nil
}

// notifyUpdated sends notifications/resources/updated for each URI to the
// sessions subscribed to it.
func (s *Server) notifyUpdated(uris ...string) {
	ctx := context.Background()
	for _, uri := range uris {
		addrs, err := s.sessions.state.Subscribers(ctx, uri)
		if err != nil {
			s.log.Warn("the subscribers of a resource cannot be read; they miss its update", "uri", uri, "err", err)
			continue
		}
		for _, a := range addrs {
			// A session that is gone or not listening misses it, as a
			// client without a stream open would.
			_ = s.mcp.SendNotificationToSpecificClient(a, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
		}
	}
}

// changedSkillURIs are the skill:// URIs whose contents differ between
// two snapshots: every file of a skill that was added, removed or loaded
// again, and the index when any was.
func changedSkillURIs(old, cur *skills.Snapshot) []string {
	var out []string
	seen := map[string]bool{}
	files := func(in *skills.Installed) {
		for _, p := range in.FilePaths() {
			if u := skills.SkillURI(in.ID, p); !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	for _, in := range cur.Skills() {
		if prev, ok := old.Get(in.ID); !ok || prev != in {
			files(in)
			if ok {
				files(prev)
			}
		}
	}
	for _, in := range old.Skills() {
		if now, ok := cur.Get(in.ID); !ok || now.ID != in.ID {
			files(in)
		}
	}
	if len(out) > 0 {
		out = append(out, skills.IndexURI)
	}
	return out
}
