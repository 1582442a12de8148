package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// Environment variables holding the HTTP bearer tokens (docs/federation.md §8).
const (
	EnvToken     = "VOX_MCP_TOKEN"      // full access
	EnvReadToken = "VOX_MCP_READ_TOKEN" // read role
)

// Auth holds the bearer tokens of the HTTP transport. With none set and
// no OAuth, every request has full access (only allowed on loopback
// addresses, see CheckListenAddr).
type Auth struct {
	Token     string // full access
	ReadToken string // read role
	// OAuth, when set, also accepts the access tokens of its authorization
	// servers, their scopes mapped to roles by scopeRole (docs/security.md,
	// OAuth); the static tokens above still work beside it.
	OAuth *oauth.Validator
}

// AuthFromEnv reads VOX_MCP_TOKEN and VOX_MCP_READ_TOKEN.
func AuthFromEnv(getenv func(string) string) Auth {
	return Auth{Token: getenv(EnvToken), ReadToken: getenv(EnvReadToken)}
}

// Enabled reports whether any token is configured.
func (a Auth) Enabled() bool { return a.Token != "" || a.ReadToken != "" || a.OAuth != nil }

func (a Auth) hasStatic() bool { return a.Token != "" || a.ReadToken != "" }

// role is what an authenticated request may do.
type role int

const (
	// roleFull may do everything: stdio, HTTP with VOX_MCP_TOKEN, and HTTP
	// without any token configured (loopback only).
	roleFull role = iota
	// roleRead may list, read skill:// resources and call the catalog tools
	// marked http_read_role_eligible: it never runs the repository's code
	// (readRoleRequest, readRoleContext).
	roleRead
)

type roleKey struct{}

func withRole(ctx context.Context, r role) context.Context {
	return context.WithValue(ctx, roleKey{}, r)
}

// roleFrom is the role of the request behind ctx; contexts that did not
// come through the HTTP authentication (stdio, in-process) have full access.
func roleFrom(ctx context.Context) role {
	if r, ok := ctx.Value(roleKey{}).(role); ok {
		return r
	}
	return roleFull
}

// verdict is what the authentication of a request decided.
type verdict struct {
	role      role
	principal string
	// until is when the access token stops being accepted (its exp plus
	// the skew), zero for the static tokens: the request ends then.
	until   time.Time
	status  int    // 0 when the request may go on, else 401, 403 or 503
	errCode string // the WWW-Authenticate error: invalid_token, insufficient_scope or none
	text    string // why, for the log and the response body
}

// authenticate decides what a request's Authorization header grants. A
// static token is tried first: both are always compared, each in
// constant time over SHA-256 digests, so neither the token lengths nor
// which token matched shows in the timing. A bearer value that is neither
// is an OAuth access token when OAuth is configured.
func (a Auth) authenticate(ctx context.Context, header string) verdict {
	if !a.Enabled() {
		return verdict{role: roleFull, principal: PrincipalAnonymous}
	}
	scheme, token, found := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return verdict{status: http.StatusUnauthorized, text: "send Authorization: Bearer <token>"}
	}
	presented := sha256.Sum256([]byte(token))
	full := a.Token != "" && tokenEqual(presented, a.Token)
	read := a.ReadToken != "" && tokenEqual(presented, a.ReadToken)
	switch {
	case full:
		return verdict{role: roleFull, principal: PrincipalFullToken}
	case read:
		return verdict{role: roleRead, principal: PrincipalReadToken}
	case a.OAuth == nil:
		return verdict{status: http.StatusUnauthorized, errCode: "invalid_token", text: "the bearer token is neither " + EnvToken + " nor " + EnvReadToken}
	}
	tok, err := a.OAuth.Validate(ctx, token)
	if err != nil {
		if errors.Is(err, oauth.ErrUnavailable) {
			return verdict{status: http.StatusServiceUnavailable, text: err.Error()}
		}
		return verdict{status: http.StatusUnauthorized, errCode: "invalid_token", text: "access token refused: " + err.Error()}
	}
	rl, ok := scopeRole(tok)
	if !ok {
		return verdict{status: http.StatusForbidden, errCode: "insufficient_scope",
			text: fmt.Sprintf("the access token of %s carries neither %s nor %s: ask the authorization server for scope %s", tok.Principal(), oauth.ScopeFull, oauth.ScopeRead, oauth.ScopeFull)}
	}
	return verdict{role: rl, principal: tok.Principal(), until: tok.Expiry.Add(a.OAuth.Skew())}
}

// scopeRole maps an access token's scopes to a role (docs/security.md,
// OAuth): vox:full grants full access, vox:read the read role; a token
// with both is full.
func scopeRole(t *oauth.Token) (role, bool) {
	switch {
	case t.HasScope(oauth.ScopeFull):
		return roleFull, true
	case t.HasScope(oauth.ScopeRead):
		return roleRead, true
	}
	return 0, false
}

func tokenEqual(presented [32]byte, configured string) bool {
	want := sha256.Sum256([]byte(configured))
	return subtle.ConstantTimeCompare(presented[:], want[:]) == 1
}

// challenge is the WWW-Authenticate value of a refusal (RFC 6750 §3,
// RFC 9728 §5.1): the resource metadata's URL when OAuth is configured,
// so that a client finds the authorization servers, the error code when
// a token was presented, and the scope a 403 asks for.
func (a Auth) challenge(v verdict) string {
	var params []string
	if a.OAuth != nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", ResourceMetadataURL(a.OAuth.Audience())))
	}
	if v.errCode != "" {
		params = append(params, fmt.Sprintf("error=%q", v.errCode))
	}
	if v.errCode == "insufficient_scope" {
		params = append(params, fmt.Sprintf("scope=%q", oauth.ScopeFull))
	}
	if len(params) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(params, ", ")
}

// requireToken wraps the MCP endpoint: a request without a token the
// server accepts gets 401 with WWW-Authenticate: Bearer (403 for an
// access token without a vox scope); an authenticated one carries its
// role and principal in the request context, where the read-role checks
// and PrincipalFrom find them. A request authenticated by an access
// token ends when the token stops being accepted: a GET event stream, or
// a long call, does not live on past the token that opened it
// (docs/security.md, The HTTP plane).
func (s *Server) requireToken(a Auth, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := a.authenticate(r.Context(), r.Header.Get("Authorization"))
		if v.status != 0 {
			s.log.Debug("http: request refused", "remote", r.RemoteAddr, "method", r.Method, "status", v.status, "why", v.text)
			if v.status != http.StatusServiceUnavailable {
				w.Header().Set("WWW-Authenticate", a.challenge(v))
			}
			http.Error(w, http.StatusText(v.status)+": "+v.text, v.status)
			return
		}
		if !a.Enabled() {
			// Full access as "anonymous", which PrincipalFrom answers for
			// every request of the endpoint without a principal of its
			// own: the request is not copied to carry either (roleFrom).
			next.ServeHTTP(w, r)
			return
		}
		ctx := withPrincipal(r.Context(), v.principal)
		if !v.until.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, v.until)
			defer cancel()
		}
		if v.role == roleRead {
			ctx = readRoleContext(ctx)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// readRoleDoesNotRunCode is why the read role's request cannot run a
// function of the repository.
const readRoleDoesNotRunCode = "read role may not run the repository's code: use a full-access token"

// readRoleContext is the context of a read-role request: its role, and
// workspace.WithoutRepositoryCode, so that no function of the repository
// runs for it whatever the request — what readRoleRequest refuses up
// front by method, name and URI scheme is refused again where the code
// would run, should a route ever be missed (a prompt that changes source
// between the check and the dispatch, say).
func readRoleContext(ctx context.Context) context.Context {
	return workspace.WithoutRepositoryCode(withRole(ctx, roleRead), readRoleDoesNotRunCode)
}

// readRoleDenial is the text of a tool call the read role may not make.
func readRoleDenial(tool string) string {
	return fmt.Sprintf("read role may not call %s: use a full-access token", tool)
}

// checkReadRole is the role step (call_checks.go): the read role may call only catalog tools
// whose row has http_read_role_eligible: true — never workspace or skill
// macro tools, which have no catalog row.
func (s *Server) checkReadRole(ctx context.Context, c toolCall) *refusal {
	if roleFrom(ctx) != roleRead {
		return nil
	}
	if e := c.entry; e != nil && e.op != nil && e.op.MCP != nil && e.op.MCP.HTTPReadRoleEligible {
		return nil
	}
	return &refusal{text: readRoleDenial(c.name)}
}

// readRoleRequest is an OnRequestInitialization hook: it refuses the
// JSON-RPC requests the read role may not send, before mcp-go dispatches
// them (mcp-go answers with -32600 and this text). What decides is what
// the request would run: the read role never runs the repository's code
// (docs/federation.md §8, Tokens). It may use initialize and
// server/discover (its 2026-07-28 counterpart), ping,
// subscriptions/listen (the 2026-07-28 stream for list_changed), every
// */list method and logging/setLevel, which run none; resources/read,
// subscribe and unsubscribe of URIs in a reserved scheme (skill://, any
// case), which are routed by their scheme to the server's own resources
// and never to a workspace template (workspace.ReservedURI);
// completion/complete of skill prompts and of templates in a reserved
// scheme (the skill file template), prompts/get of skill prompts — never
// of workspace prompts or resources, whose functions are the
// repository's code — and tools/call, which checkReadRole narrows per
// tool so that a denied call is an error result. Notifications and
// responses never reach this hook.
func (s *Server) readRoleRequest(ctx context.Context, _ any, message any) error {
	if roleFrom(ctx) != roleRead {
		return nil
	}
	raw, ok := message.(json.RawMessage)
	if !ok {
		return errors.New("read role: the request could not be inspected: use a full-access token")
	}
	if _, ok := checkedMessage(ctx, raw); ok {
		return nil // a tools/call the shim decoded and checked (checkReadRole)
	}
	// mcp-go decodes the same bytes with encoding/json into fields of the
	// same names, so this sees the method, URI and name that mcp-go
	// dispatches on.
	var req struct {
		Method string `json:"method"`
		Params struct {
			URI  string `json:"uri"`
			Name string `json:"name"`
			Ref  struct {
				Type string `json:"type"`
				URI  string `json:"uri"`
				Name string `json:"name"`
			} `json:"ref"`
		} `json:"params"`
	}
	if err := unmarshal(raw, &req); err != nil {
		return fmt.Errorf("read role: the request could not be inspected (%v): use a full-access token", err)
	}
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodInitialize, mcp.MethodServerDiscover, mcp.MethodPing,
		mcp.MethodSubscriptionsListen, mcp.MethodToolsCall, mcp.MethodSetLogLevel:
		return nil
	case mcp.MethodCompletionComplete:
		// Completing a workspace prompt's argument or a workspace
		// template's variable may run its @mcp.complete function.
		ref := req.Params.Ref
		switch {
		case ref.Type == "ref/prompt" && s.promptSourceOf(ref.Name) == registry.SourceWorkspace:
			return fmt.Errorf("read role may not complete workspace prompt %s: use a full-access token", ref.Name)
		case ref.Type == "ref/resource" && !workspace.ReservedURI(ref.URI):
			return fmt.Errorf("read role may not complete workspace resource %s: use a full-access token", ref.URI)
		}
		return nil
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		if workspace.ReservedURI(req.Params.URI) {
			return nil
		}
		s.audit.roleRefusal(ctx, mcp.MCPMethod(req.Method), req.Params.URI, "")
		return fmt.Errorf("read role may not %s %s: use a full-access token", strings.TrimPrefix(req.Method, "resources/"), req.Params.URI)
	case mcp.MethodPromptsGet:
		if s.promptSourceOf(req.Params.Name) == registry.SourceSkill {
			return nil
		}
		s.audit.roleRefusal(ctx, mcp.MethodPromptsGet, "", req.Params.Name)
		return fmt.Errorf("read role may not get prompt %s: use a full-access token", req.Params.Name)
	}
	if strings.HasSuffix(req.Method, "/list") {
		return nil
	}
	return fmt.Errorf("read role may not call %s: use a full-access token", req.Method)
}

// readRolePrompts is the prompt filter of mcp-go: the read role sees the
// skill prompts only (see readRoleRequest).
func (s *Server) readRolePrompts(ctx context.Context, prompts []mcp.Prompt) []mcp.Prompt {
	if roleFrom(ctx) != roleRead {
		return prompts
	}
	kept := prompts[:0:0]
	for _, p := range prompts {
		if s.promptSourceOf(p.Name) == registry.SourceSkill {
			kept = append(kept, p)
		}
	}
	return kept
}
