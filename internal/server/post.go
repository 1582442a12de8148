package server

import (
	"context"
	"net/http"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// sessionPost is what a POST of a session holds while it is served, in
// one allocation (docs/benchmarks.md, "The HTTP rows under load: where a
// call's CPU goes"): its open-request record (trackInto) and its
// transport plumbing (transport.Post), whose decisions it makes.
type sessionPost struct {
	e         *endpoint
	hs        *httpSession // &session once verified
	session   httpSession
	header    http.Header
	sessionID string
	ctx       context.Context // the call's, for the priming decision
	open      openRequest
	post      transport.Post
}

// WantsPriming implements transport.PrimingWanter (wantsPriming).
func (p *sessionPost) WantsPriming() bool {
	return p.e.s.wantsPriming(p.ctx, p.hs.id.Key, p.header)
}

// RecordEvent implements transport.Recorder: the session's event store.
func (p *sessionPost) RecordEvent(ctx context.Context, stream string, data []byte) (string, error) {
	return p.e.events.StoreEvent(ctx, p.sessionID, stream, data)
}

// RouteRequest is the call's toolcall.WithRequestRoute check
// (sessionPlane.routeRequest).
func (p *sessionPost) RouteRequest(ctx context.Context, method string) error {
	return p.e.p.routeRequest(ctx, p.hs, method)
}

// ContextValue implements transport.PostOwner: the call's context carries
// its session (withHTTPSession) in the POST's one node.
func (p *sessionPost) ContextValue(key any) (any, bool) {
	if _, ok := key.(httpSessionKey); ok {
		return p.hs, true
	}
	return nil, false
}
