package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// recordSubscription keeps a resources/subscribe in the session's state
// (session.Store), with the address its notifications go to
// (docs/federation.md §11): mcp-go answers it but records nothing for its
// own sessions. The shim calls it before mcp-go reads the request
// (kept_state.go), so that a subscription over a bound is answered -32602
// and nothing of it is kept. Any URI may be subscribed to, since a
// resource may appear later, within the bounds of session.Store.Subscribe.
// A request the read role may not send is left to mcp-go to refuse, and
// recorded by no one.
func (s *Server) recordSubscription(ctx context.Context, raw, rawParams json.RawMessage) error {
	var params struct {
		URI string `json:"uri"`
	}
	if len(rawParams) > 0 && unmarshal(rawParams, &params) != nil || params.URI == "" {
		return nil // mcp-go refuses it
	}
	ref, ok := sessionOf(ctx)
	if !ok || s.readRoleRequest(ctx, nil, raw) != nil {
		return nil
	}
	address := processSession
	if hs := httpSessionFrom(ctx); hs != nil {
		address = hs.raw // mcp-go's session id of an HTTP session is its Mcp-Session-Id
	} else if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
		address = cs.SessionID()
	}
	if err := s.sessions.state.Subscribe(ctx, ref.key, ref.expires, address, params.URI); err != nil {
		return fmt.Errorf("%s: %w", shortURI(params.URI), err)
	}
	if s.workspace != nil {
		surface := s.workspace.surface.Load()
		if _, plain := surface.Resource(params.URI); !plain {
			if _, _, expands := surface.MatchResource(params.URI); expands {
				s.expanded.add(params.URI, s.log)
			}
		}
	}
	return nil
}

// recordUnsubscribe serves recordSessionState: a resources/unsubscribe
// forgets the subscription in the session's state.
func (s *Server) recordUnsubscribe(ctx context.Context, req sessionRequest) error {
	var params struct {
		URI string `json:"uri"`
	}
	if !req.params(&params) || params.URI == "" {
		return nil
	}
	ref, ok := sessionOf(ctx)
	if !ok {
		return nil // protocol 2026-07-28 has no resources/unsubscribe: mcp-go refuses it
	}
	return s.sessions.state.Unsubscribe(ctx, ref.key, params.URI)
}

// maxExpandedSubscriptions bounds the URIs kept for expandedSubscriptions:
// every refresh asks the session state for each one's subscribers.
// maxExpandedSubscriptionBytes bounds their bytes together, since each
// may be as long as session.MaxURIBytes.
const (
	maxExpandedSubscriptions     = 4096
	maxExpandedSubscriptionBytes = 4 << 20
)

// expandedSubscriptions are the subscribed URIs that a workspace resource
// template expands, such as notes://7 of notes://{id}. The session state
// finds a URI's subscribers but cannot list the subscribed URIs, so this
// process keeps the ones subscribed through it, for the refresh to tell
// (docs/federation.md §11). A URI nobody subscribes to any more is dropped
// at the next refresh; past maxExpandedSubscriptions or
// maxExpandedSubscriptionBytes new ones are not kept, and the log says so
// once.
type expandedSubscriptions struct {
	mu     sync.Mutex
	uris   map[string]struct{}
	bytes  int
	warned bool
}

func (e *expandedSubscriptions) add(uri string, log *slog.Logger) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.uris[uri]; ok {
		return
	}
	if len(e.uris) >= maxExpandedSubscriptions || e.bytes+len(uri) > maxExpandedSubscriptionBytes {
		if !e.warned {
			e.warned = true
			log.Warn("too many subscribed URIs of resource templates: the subscribers of the others are not told of refreshes", "kept", len(e.uris), "bytes", e.bytes)
		}
		return
	}
	if e.uris == nil {
		e.uris = map[string]struct{}{}
	}
	e.uris[uri] = struct{}{}
	e.bytes += len(uri)
}

// expandedBy returns the kept URIs that surface expands, sorted.
func (e *expandedSubscriptions) expandedBy(surface *workspace.Surface) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for u := range e.uris {
		if _, _, ok := surface.MatchResource(u); ok {
			out = append(out, u)
		}
	}
	sort.Strings(out)
	return out
}

// forget drops URIs nobody subscribes to any more.
func (e *expandedSubscriptions) forget(uris []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, u := range uris {
		if _, ok := e.uris[u]; ok {
			delete(e.uris, u)
			e.bytes -= len(u)
		}
	}
}

// notifyUpdated sends notifications/resources/updated for each URI to the
// sessions subscribed to it, and returns the URIs nobody subscribes to.
func (s *Server) notifyUpdated(uris ...string) (unsubscribed []string) {
	ctx := context.Background()
	for _, uri := range uris {
		addrs, err := s.sessions.state.Subscribers(ctx, uri)
		if err != nil {
			s.log.Warn("the subscribers of a resource cannot be read; they miss its update", "uri", uri, "err", err)
			continue
		}
		if len(addrs) == 0 {
			unsubscribed = append(unsubscribed, uri)
		}
		for _, a := range addrs {
			// A session that is gone or not listening misses it, as a
			// client without a stream open would.
			_ = s.mcp.SendNotificationToSpecificClient(a, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
		}
	}
	return unsubscribed
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
