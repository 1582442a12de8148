package server

import (
	"context"
	"net/http"
	"net/url"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/oauth"
)

// Principals of the requests that carry no OAuth subject
// (docs/security.md, OAuth).
const (
	PrincipalStdio     = "stdio"      // the client that started the process
	PrincipalAnonymous = "anonymous"  // HTTP without any token configured (loopback only)
	PrincipalFullToken = "token:full" // HTTP with VOX_MCP_TOKEN
	PrincipalReadToken = "token:read" // HTTP with VOX_MCP_READ_TOKEN
)

type principalKey struct{}

func withPrincipal(ctx context.Context, p string) context.Context {
	var v any = p
	switch p { // the static tokens' principals are not boxed per request
	case PrincipalFullToken:
		v = principalFull
	case PrincipalReadToken:
		v = principalRead
	}
	return context.WithValue(ctx, principalKey{}, v)
}

var principalFull, principalRead any = PrincipalFullToken, PrincipalReadToken

// httpPrincipal is the principal of a request of the HTTP endpoint before
// the endpoint marked it as one (withHTTP): "anonymous" without a token
// configured (requireToken).
func httpPrincipal(ctx context.Context) string {
	if p, ok := ctx.Value(principalKey{}).(string); ok {
		return p
	}
	return PrincipalAnonymous
}

// PrincipalFrom is who the request behind ctx speaks for, as the audit
// trail and the tasks name it: what the HTTP authentication recorded —
// "sub@issuer" for an OAuth access token, "token:full" or "token:read"
// for the static tokens, "anonymous" for HTTP without any token
// configured — "stdio" for the client that started the process, and
// "in-process" for a program's own call of MCP().HandleMessage.
func PrincipalFrom(ctx context.Context) string {
	if p, ok := ctx.Value(principalKey{}).(string); ok {
		return p
	}
	if ctx.Value(httpSessionKey{}) != nil {
		// A request of the HTTP endpoint without a principal: no token is
		// configured, and requireToken did not copy the request to say so.
		return PrincipalAnonymous
	}
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil && cs.SessionID() == "stdio" {
		return PrincipalStdio
	}
	return PrincipalInProcess
}

// ResourceMetadataURL is the URL of the protected resource metadata of
// the resource audience (RFC 9728 §3.1): the well-known path with the
// resource's path appended, on the resource's origin, so
// http://127.0.0.1:8080/mcp has
// http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp.
func ResourceMetadataURL(audience string) string {
	u, err := url.Parse(audience)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: mcpserver.ProtectedResourceMetadataPath(audience)}).String()
}

// ResourceMetadataPaths are the paths the metadata is served at: the
// path-suffixed form RFC 9728 defines, and the bare well-known path that
// clients of the MCP specification of 2025-03-26 try first.
func ResourceMetadataPaths(audience string) []string {
	paths := []string{mcpserver.WellKnownProtectedResourcePath}
	if p := mcpserver.ProtectedResourceMetadataPath(audience); p != paths[0] {
		paths = append(paths, p)
	}
	return paths
}

// ResourceMetadataHandler serves the protected resource metadata of v
// (RFC 9728): resource is the audience exactly as configured, which must
// be the URL clients use (a mismatch makes clients such as VS Code give
// up), with the issuers and the scopes of docs/security.md, OAuth.
func ResourceMetadataHandler(v *oauth.Validator) http.Handler {
	return mcpserver.NewProtectedResourceMetadataHandler(mcpserver.ProtectedResourceMetadataConfig{
		Resource:               v.Audience(),
		AuthorizationServers:   v.Issuers(),
		ScopesSupported:        []string{oauth.ScopeFull, oauth.ScopeRead},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "vox-mcp",
	})
}

// PrincipalInProcess is the principal of a program calling
// MCP().HandleMessage: no transport, so no identity of its own.
const PrincipalInProcess = "in-process"

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
