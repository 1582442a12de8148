package server

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// wantsPriming reports whether a POST of the session key should start
// its stream with a priming event: the protocol version the session's
// initialize negotiated (recordProtocolVersion) is 2025-11-25 or later
// (and not of the sessionless era, which has no resumability). A session
// whose version is not kept (the store made room, or could not answer)
// is judged by the version the request names, as before sessions kept it.
// The session's version decides because a client may name an older one
// on a request than it negotiated (the conformance suite's SSE polling
// scenario does), and a client that negotiated an older version may not
// understand an event with empty data.
func (s *Server) wantsPriming(ctx context.Context, key string, h http.Header) bool {
	v, ok, err := s.sessions.state.ProtocolVersion(ctx, key)
	if err != nil {
		s.log.Debug("the session's protocol version cannot be read; the request's decides on priming", "err", err)
	}
	if !ok {
		v = h.Get(mcp.HeaderProtocolVersion)
	}
	return v >= transport.PrimingSince && !mcp.IsModernProtocol(v)
}

// recordProtocolVersion is the AfterInitialize hook: the version an HTTP
// session's initialize negotiated is kept in its state (session.Store),
// where wantsPriming reads it. It is soft state: when it cannot be kept
// the session goes on, judged by each request's version.
func (s *Server) recordProtocolVersion(ctx context.Context, _ any, _ *mcp.InitializeRequest, result *mcp.InitializeResult) {
	if ctx.Value(httpSessionKey{}) == nil {
		return // stdio, or in-process: no SSE streams to prime
	}
	cs := mcpserver.ClientSessionFromContext(ctx)
	if cs == nil || result == nil || mcp.IsModernProtocol(result.ProtocolVersion) {
		return
	}
	id, err := s.sessions.ids.Verify(cs.SessionID(), PrincipalFrom(ctx)) // initialize minted it for this principal
	if err != nil {
		return // not a session this server minted: nothing to keep
	}
	if err := s.sessions.state.SetProtocolVersion(ctx, id.Key, id.Expires, result.ProtocolVersion); err != nil {
		s.log.Debug("the session's protocol version could not be kept; its requests' versions decide on priming", "err", err)
	}
}
