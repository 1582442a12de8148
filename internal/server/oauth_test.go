package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

// oauthResource is a vox-mcp HTTP server on loopback that accepts the
// tokens of the given authorization servers (and the static full token
// "static-full"), served by the same routes as ListenAndServeHTTP.
type oauthResource struct {
	URL      string // the MCP endpoint, which is the audience
	Origin   string
	validate *oauth.Validator
	srv      *Server
	auth     Auth
}

func startOAuthResource(t *testing.T, issuers ...string) *oauthResource {
	t.Helper()
	return startOAuthResourceWith(t, oauth.Config{Issuers: issuers})
}

// startOAuthResourceWith is startOAuthResource with cfg, whose Audience
// is set to the server's endpoint.
func startOAuthResourceWith(t *testing.T, cfg oauth.Config) *oauthResource {
	t.Helper()
	s := newServer(t, nil)
	ts := httptest.NewUnstartedServer(nil)
	origin := "http://" + ts.Listener.Addr().String()
	// A fetch of the JWKS for every unknown key id, so that the rotation
	// in TestOAuthRefusals is followed at once after the forgeries.
	cfg.Audience, cfg.MinRefetch = origin+EndpointPath, time.Nanosecond
	v, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth := Auth{Token: "static-full", OAuth: v}
	ts.Config.Handler = routes(auth, s.HTTPHandler(auth))
	ts.Start()
	t.Cleanup(ts.Close)
	return &oauthResource{URL: origin + EndpointPath, Origin: origin, validate: v, srv: s, auth: auth}
}

// startAuthServer starts a real authorization server for the test
// (internal/oauthtest: zitadel/oidc's OpenID provider).
func startAuthServer(t *testing.T) *testAS {
	t.Helper()
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	return &testAS{Server: as, t: t}
}

// testAS fails the test where oauthtest returns an error.
type testAS struct {
	*oauthtest.Server
	t *testing.T
}

func (as *testAS) token(t *testing.T, resource string, scopes ...string) string {
	t.Helper()
	tok, err := as.Token(resource, scopes...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (as *testAS) mint(mod func(map[string]any), resource string) string {
	as.t.Helper()
	c := as.Claims(resource, oauth.ScopeFull)
	if mod != nil {
		mod(c)
	}
	tok, err := as.Mint(c)
	if err != nil {
		as.t.Fatal(err)
	}
	return tok
}

func (as *testAS) forge(kind, token string) string {
	as.t.Helper()
	tok, err := as.Forge(kind, token)
	if err != nil {
		as.t.Fatal(err)
	}
	return tok
}

// post sends an initialize with the bearer token (none when empty).
func (r *oauthResource) post(t *testing.T, token string) httpReply {
	t.Helper()
	cl := &httpClient{t: t, url: r.URL}
	if token == "" {
		return cl.do(http.MethodPost, initializeBody)
	}
	return cl.do(http.MethodPost, initializeBody, "Authorization", "Bearer "+token)
}

// A token of a real authorization server (zitadel/oidc's OpenID provider,
// client credentials, resource = this server) opens the MCP plane through
// mcp-go's client: initialize and tools/list.
func TestOAuthTokenOpensThePlane(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResource(t, as.URL)
	token := as.token(t, res.URL, oauth.ScopeFull)

	tr, err := transport.NewStreamableHTTP(res.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "oauth-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize with the access token: %v", err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list with the access token: %v", err)
	}
	if len(tools.Tools) == 0 {
		t.Fatal("tools/list with the access token: no tools")
	}

	// The static token still works beside OAuth.
	if r := res.post(t, "static-full"); r.status != http.StatusOK {
		t.Errorf("the static token beside OAuth: status %d", r.status)
	}
}

// The principal of a request is the token's subject at its issuer, and
// the scopes map to the roles of docs/security.md, OAuth.
func TestOAuthPrincipalAndRoles(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResource(t, as.URL)
	var got struct {
		principal string
		role      role
	}
	h := res.srv.requireToken(res.auth, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.principal, got.role = PrincipalFrom(r.Context()), roleFrom(r.Context())
	}))
	for _, c := range []struct {
		token     string
		principal string
		role      role
	}{
		{as.token(t, res.URL, oauth.ScopeFull), oauthtest.ClientID + "@" + as.URL, roleFull},
		{as.token(t, res.URL, oauth.ScopeRead), oauthtest.ClientID + "@" + as.URL, roleRead},
		{as.token(t, res.URL, oauth.ScopeRead, oauth.ScopeFull), oauthtest.ClientID + "@" + as.URL, roleFull},
		{"static-full", PrincipalFullToken, roleFull},
	} {
		got.principal = ""
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, res.URL, nil)
		r.Header.Set("Authorization", "Bearer "+c.token)
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK || got.principal != c.principal || got.role != c.role {
			t.Errorf("token %.20s...: status %d, principal %q, role %d; want %q, %d", c.token, rec.Code, got.principal, got.role, c.principal, c.role)
		}
	}
	if p := PrincipalFrom(context.Background()); p != PrincipalInProcess {
		t.Errorf("PrincipalFrom of a program's own call = %q, want %q", p, PrincipalInProcess)
	}
}

// The protected resource metadata (RFC 9728) is served at both
// well-known paths with resource equal to the URL clients use, and a 401
// points to it.
func TestOAuthResourceMetadata(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResource(t, as.URL)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(res.Origin + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		if err := json.Unmarshal(body, &meta); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s (%v)", path, resp.StatusCode, body, err)
		}
		if meta.Resource != res.URL || !slices.Equal(meta.AuthorizationServers, []string{as.URL}) ||
			!slices.Contains(meta.ScopesSupported, oauth.ScopeFull) || !slices.Contains(meta.ScopesSupported, oauth.ScopeRead) {
			t.Errorf("GET %s: %s", path, body)
		}
	}
	r := res.post(t, "")
	want := `Bearer resource_metadata="` + res.Origin + `/.well-known/oauth-protected-resource/mcp"`
	if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d, WWW-Authenticate %q; want 401, %q", r.status, r.header.Get("WWW-Authenticate"), want)
	}
}

// Every token that must not open the plane gets 401 invalid_token (or
// 403 insufficient_scope) with the resource metadata's URL; a rotation of
// the server's key is followed (a new kid fetches the JWKS again).
func TestOAuthRefusals(t *testing.T) {
	as := startAuthServer(t)
	other := startAuthServer(t) // a real server this resource does not trust
	res := startOAuthResource(t, as.URL)
	good := as.token(t, res.URL, oauth.ScopeFull)
	if r := res.post(t, good); r.status != http.StatusOK {
		t.Fatalf("the good token: status %d: %s", r.status, r.body)
	}
	now := time.Now()
	// A token minted with the server's key and claims is accepted: the
	// refusals below fail for what each changes, nothing else.
	if r := res.post(t, as.mint(nil, res.URL)); r.status != http.StatusOK {
		t.Fatalf("a token minted with the server's key: status %d: %s", r.status, r.body)
	}
	// Within the skew (30s) an expired token still passes.
	if r := res.post(t, as.mint(func(c map[string]any) { c["exp"] = now.Add(-10 * time.Second).Unix() }, res.URL)); r.status != http.StatusOK {
		t.Errorf("a token expired 10s ago (skew 30s): status %d: %s", r.status, r.body)
	}
	invalid := []struct{ name, token string }{
		{"another audience", as.token(t, "http://127.0.0.1:1/mcp", oauth.ScopeFull)},
		{"no audience", as.token(t, "", oauth.ScopeFull)},
		{"another issuer", other.token(t, res.URL, oauth.ScopeFull)},
		{"another issuer claimed, signed by the trusted one", as.mint(func(c map[string]any) { c["iss"] = other.URL }, res.URL)},
		{"expired", as.mint(func(c map[string]any) { c["exp"] = now.Add(-5 * time.Minute).Unix() }, res.URL)},
		{"no exp", as.mint(func(c map[string]any) { delete(c, "exp") }, res.URL)},
		{"no sub", as.mint(func(c map[string]any) { delete(c, "sub") }, res.URL)},
		{"not yet valid", as.mint(func(c map[string]any) { c["nbf"] = now.Add(5 * time.Minute).Unix() }, res.URL)},
		{"not a JWT", "opaque-token-value"},
	}
	for _, kind := range oauthtest.Forgeries {
		invalid = append(invalid, struct{ name, token string }{"forged: " + kind, as.forge(kind, good)})
	}
	metadata := `resource_metadata="` + res.Origin + `/.well-known/oauth-protected-resource/mcp"`
	for _, c := range invalid {
		r := res.post(t, c.token)
		h := r.header.Get("WWW-Authenticate")
		t.Logf("%s: %d %s", c.name, r.status, strings.TrimSpace(string(r.body)))
		if r.status != http.StatusUnauthorized || !strings.Contains(h, metadata) || !strings.Contains(h, `error="invalid_token"`) {
			t.Errorf("%s: status %d, WWW-Authenticate %q; want 401 with %s and invalid_token (%s)", c.name, r.status, h, metadata, r.body)
		}
	}

	// A token without a vox scope is authentic but grants nothing.
	r := res.post(t, as.token(t, res.URL, "openid"))
	if h := r.header.Get("WWW-Authenticate"); r.status != http.StatusForbidden ||
		!strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, `scope="vox:full"`) || !strings.Contains(h, metadata) {
		t.Errorf("no vox scope: status %d, WWW-Authenticate %q; want 403 insufficient_scope, scope vox:full", r.status, h)
	}

	// The server rotates its key: the new kid is unknown to the cached
	// JWKS, which is fetched again.
	if err := as.Rotate(); err != nil {
		t.Fatal(err)
	}
	if r := res.post(t, as.token(t, res.URL, oauth.ScopeFull)); r.status != http.StatusOK {
		t.Errorf("a token signed with the rotated key: status %d: %s", r.status, r.body)
	}
}

// With --auth-introspect, an opaque token of the authorization server
// opens the plane through its introspection endpoint (RFC 7662), its
// principal the subject at the issuer; one the endpoint calls inactive
// gets 401 invalid_token, one without a vox scope 403; a forged JWT is
// refused without asking the endpoint.
func TestOAuthOpaqueTokens(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResourceWith(t, oauth.Config{Issuers: []string{as.URL},
		Introspect: &oauth.Introspection{Issuer: as.URL, ClientID: oauthtest.ResourceClientID, ClientSecret: oauthtest.ResourceClientSecret}})
	opaque := func(resource string, scopes ...string) string {
		tok, err := as.TokenOf(oauthtest.OpaqueClientID, resource, scopes...)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	var principal string
	h := res.srv.requireToken(res.auth, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { principal = PrincipalFrom(r.Context()) }))
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, res.URL, nil)
	r.Header.Set("Authorization", "Bearer "+opaque(res.URL, oauth.ScopeFull))
	h.ServeHTTP(rec, r)
	if want := oauthtest.OpaqueClientID + "@" + as.URL; rec.Code != http.StatusOK || principal != want {
		t.Errorf("an opaque token: status %d, principal %q; want 200, %q", rec.Code, principal, want)
	}
	if r := res.post(t, opaque(res.URL, oauth.ScopeFull)); r.status != http.StatusOK {
		t.Errorf("initialize with an opaque token: status %d: %s", r.status, r.body)
	}
	metadata := `resource_metadata="` + res.Origin + `/.well-known/oauth-protected-resource/mcp"`
	for _, c := range []struct{ name, token, why string }{
		{"inactive", "opaque-token-value", "not active"},
		{"another audience", opaque("http://127.0.0.1:1/mcp", oauth.ScopeFull), "does not name this resource"},
	} {
		r := res.post(t, c.token)
		if h := r.header.Get("WWW-Authenticate"); r.status != http.StatusUnauthorized || !strings.Contains(h, `error="invalid_token"`) ||
			!strings.Contains(h, metadata) || !strings.Contains(string(r.body), c.why) {
			t.Errorf("%s: status %d, WWW-Authenticate %q, body %q; want 401 invalid_token naming %q", c.name, r.status, h, r.body, c.why)
		}
	}
	if r := res.post(t, opaque(res.URL, "openid")); r.status != http.StatusForbidden || !strings.Contains(r.header.Get("WWW-Authenticate"), "insufficient_scope") {
		t.Errorf("an opaque token without a vox scope: status %d, WWW-Authenticate %q; want 403 insufficient_scope", r.status, r.header.Get("WWW-Authenticate"))
	}
	before := as.Introspections()
	forged := as.forge(oauthtest.ForgeResignSameKid, as.token(t, res.URL, oauth.ScopeFull))
	if r := res.post(t, forged); r.status != http.StatusUnauthorized {
		t.Errorf("a forged JWT: status %d", r.status)
	}
	if n := as.Introspections() - before; n != 0 {
		t.Errorf("a forged JWT was sent to the introspection endpoint %d times", n)
	}
}

// A session belongs to the principal that initialized it: another
// principal's token of the same role gets 404 for it (POST, GET, DELETE)
// and the owner keeps it, also with a new token of its own; a GET stream
// opened with an access token ends when the token stops being accepted
// (exp plus the skew), not when the session expires.
func TestOAuthSessionsAreBoundToThePrincipal(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResource(t, as.URL)
	owner := &httpClient{t: t, url: res.URL, token: as.token(t, res.URL, oauth.ScopeFull)}
	owner.initialize()
	other, err := as.TokenOf(oauthtest.OtherClientID, res.URL, oauth.ScopeFull)
	if err != nil {
		t.Fatal(err)
	}
	thief := &httpClient{t: t, url: res.URL, token: other, session: owner.session}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		if r := thief.do(method, pingBody, "MCP-Protocol-Version", "2025-06-18"); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "not to this token's principal") {
			t.Errorf("%s of another principal's session: %d %s", method, r.status, r.body)
		}
	}
	// The static full token has full access too, but is another principal.
	if r := (&httpClient{t: t, url: res.URL, token: "static-full", session: owner.session}).do(http.MethodPost, pingBody); r.status != http.StatusNotFound {
		t.Errorf("the static token on an OAuth principal's session: %d %s", r.status, r.body)
	}
	if text, isErr := owner.call("vox_tool_search"); isErr {
		t.Fatalf("the owner after the other principal's attempts: %s", text)
	}
	owner.token = as.token(t, res.URL, oauth.ScopeFull) // a refreshed token of the same principal
	if r := owner.do(http.MethodPost, pingBody); r.status != http.StatusOK {
		t.Errorf("the owner with a new token: %d %s", r.status, r.body)
	}

	// A token of the owner that expired 27s ago passes within the 30s
	// skew: the stream it opens must end about 3s later.
	expiring := as.mint(func(c map[string]any) {
		c["sub"] = oauthtest.ClientID
		c["exp"] = time.Now().Add(-27 * time.Second).Unix()
	}, res.URL)
	req, _ := http.NewRequest(http.MethodGet, res.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", owner.session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+expiring)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET stream with a token within its skew: %d %s", resp.StatusCode, b)
	}
	ended := make(chan struct{})
	go func() { io.Copy(io.Discard, resp.Body); close(ended) }()
	select {
	case <-ended:
	case <-time.After(15 * time.Second):
		t.Fatal("the GET stream outlived the token that opened it")
	}
	if r := owner.do(http.MethodPost, pingBody); r.status != http.StatusOK {
		t.Errorf("the session after the stream's token expired, with a valid token: %d %s", r.status, r.body)
	}
}
