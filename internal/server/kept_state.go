package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// State a client makes the server keep (docs/security.md, "State a client
// makes the server keep"): every value a client supplies that outlives its
// request is bounded in bytes, and what one session may hold in all, and
// a value over its bound is refused with -32602 naming the bound before
// anything of it is kept. The shim (shim.go) checks them on both
// transports before mcp-go reads the request:
//
//   - resources/subscribe is recorded here, in the session's state
//     (session.Store enforces session.MaxURIBytes, MaxSubscriptions and
//     MaxSubscriptionBytes), rather than in an mcp-go hook, whose errors
//     mcp-go can only answer with -32600;
//   - subscriptions/listen (protocol 2026-07-28) keeps its list of
//     resource URIs with the stream for as long as it is open: the same
//     bounds apply to the list;
//   - initialize's clientInfo and capabilities, which mcp-go keeps with the
//     session, take at most session.MaxClientInfoBytes together.
//
// The log level (logging/setLevel) is kept only when it is one of the
// eight levels, the protocol version only as negotiated from the server's
// own list, and the active skill only as the server's own record of an
// installed skill, so none of them can grow with what a client sends.

// keptStateMethods are the methods whose requests keptStateReply checks.
var keptStateMethods = map[string]bool{
	string(mcp.MethodInitialize):          true,
	string(mcp.MethodResourcesSubscribe):  true,
	string(mcp.MethodSubscriptionsListen): true,
}

// keptStateReply checks a request that makes the server keep what the
// client sent, and records a resources/subscribe: it answers -32602 when
// a value is over its bound (answered), and nil when the request goes on
// to mcp-go.
func (s *Server) keptStateReply(ctx context.Context, raw []byte, m *rpcMessage, modern bool) (reply []byte, answered bool) {
	if len(m.ID) == 0 || !keptStateMethods[m.Method] {
		return nil, false
	}
	refuse := func(err error) ([]byte, bool) {
		return errorReply(m.ID, mcp.INVALID_PARAMS, m.Method+": "+err.Error()), true
	}
	switch m.Method {
	case string(mcp.MethodInitialize):
		var p struct {
			ClientInfo   json.RawMessage `json:"clientInfo"`
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if unmarshal(m.Params, &p) != nil {
			return nil, false // mcp-go refuses it
		}
		if n := len(p.ClientInfo) + len(p.Capabilities); n > session.MaxClientInfoBytes {
			return refuse(fmt.Errorf("clientInfo and capabilities take %d bytes together; the server keeps them for the session's lifetime and accepts at most %d", n, session.MaxClientInfoBytes))
		}
	case string(mcp.MethodSubscriptionsListen):
		var p struct {
			Notifications struct {
				ResourceSubscriptions []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		}
		if unmarshal(m.Params, &p) != nil {
			return nil, false
		}
		if err := checkListenedURIs(p.Notifications.ResourceSubscriptions); err != nil {
			return refuse(err)
		}
	case string(mcp.MethodResourcesSubscribe):
		if modern {
			return nil, false // 2026-07-28 has no resources/subscribe: mcp-go refuses it
		}
		if err := s.recordSubscription(ctx, raw, m.Params); err != nil {
			if errors.Is(err, session.ErrLimit) {
				return refuse(err)
			}
			return errorReply(m.ID, mcp.INTERNAL_ERROR, m.Method+": "+err.Error()), true
		}
	}
	return nil, false
}

// checkListenedURIs applies the bounds of a session's subscriptions to the
// resource URIs of one subscriptions/listen.
func checkListenedURIs(uris []string) error {
	seen := make(map[string]bool, min(len(uris), session.MaxSubscriptions+1))
	bytes := 0
	for i, u := range uris {
		if err := session.CheckSubscription(len(seen), bytes, seen[u], u); err != nil {
			return fmt.Errorf("notifications.resourceSubscriptions[%d]: %w", i, err)
		}
		if !seen[u] {
			seen[u] = true
			bytes += session.SubscriptionCost(u)
		}
	}
	return nil
}

// shortURI is uri as an error message names it: its first 80 bytes.
func shortURI(uri string) string {
	const most = 80
	if len(uri) <= most {
		return uri
	}
	return uri[:most] + "…"
}
