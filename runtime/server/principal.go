package server

import (
	"context"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Principals of the requests that carry no identity of their own
// (docs/security.md, "Audit trail").
const (
	principalStdio     = "stdio"      // the process's own client, over stdio
	principalInProcess = "in-process" // a program calling MCP().HandleMessage
	principalFull      = "token:full" // HTTP with VOX_MCP_TOKEN
	principalRead      = "token:read" // HTTP with VOX_MCP_READ_TOKEN
	principalAnonymous = "anonymous"  // HTTP without any token configured (loopback only)
)

// principalFrom is who sent the request behind ctx, as the audit trail
// names it. Static tokens name a role, not a person: every holder of
// VOX_MCP_TOKEN is token:full. An HTTP request is one that came through
// the endpoint (httpSessionKey, set on every request it dispatches); a
// full-access one carries no role in its context (requireToken), so
// whether tokens are configured tells token:full from anonymous.
func (s *Server) principalFrom(ctx context.Context) string {
	if ctx.Value(httpSessionKey{}) == nil {
		if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil && cs.SessionID() == "stdio" {
			return principalStdio
		}
		return principalInProcess
	}
	switch {
	case roleFrom(ctx) == roleRead:
		return principalRead
	case s.httpAuth.Load():
		return principalFull
	}
	return principalAnonymous
}

// sessionIDOf is the MCP session id of the request behind ctx: the
// verified Mcp-Session-Id over HTTP, mcp-go's session id otherwise ("stdio"
// over stdio), "" for a request without a session (HTTP of protocol
// 2026-07-28, a program's call without one).
func sessionIDOf(ctx context.Context) string {
	if hs := httpSessionFrom(ctx); hs != nil {
		return hs.raw
	}
	if ctx.Value(httpSessionKey{}) != nil {
		return ""
	}
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}
