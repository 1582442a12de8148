package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

// introspecting is a validator of as's tokens that introspects its opaque
// ones with the resource server's credentials, on a clock the test moves.
type introspecting struct {
	as    *oauthtest.Server
	v     *oauth.Validator
	mu    sync.Mutex
	now   time.Time
	t     *testing.T
	count func() int
}

func newIntrospecting(t *testing.T, secret string) *introspecting {
	t.Helper()
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	in := &introspecting{as: as, now: time.Now(), t: t, count: as.Introspections}
	in.v, err = oauth.New(oauth.Config{Issuers: []string{as.URL}, Audience: audience, Now: in.clock,
		Introspect: &oauth.Introspection{Issuer: as.URL, ClientID: oauthtest.ResourceClientID, ClientSecret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func (in *introspecting) clock() time.Time { in.mu.Lock(); defer in.mu.Unlock(); return in.now }

func (in *introspecting) advance(d time.Duration) {
	in.mu.Lock()
	in.now = in.now.Add(d)
	in.mu.Unlock()
}

func (in *introspecting) mint(mod func(*oauthtest.Introspected)) string {
	in.t.Helper()
	c := oauthtest.Introspected{Issuer: in.as.URL, Subject: "opaque-minted", Audience: []string{audience},
		Scopes: []string{oauth.ScopeFull}, Expiry: time.Now().Add(5 * time.Minute)}
	if mod != nil {
		mod(&c)
	}
	tok, err := in.as.MintOpaque(c)
	if err != nil {
		in.t.Fatal(err)
	}
	return tok
}

// An opaque token of the authorization server (client credentials) is
// accepted through its introspection endpoint: principal sub@issuer and
// its scopes; the active answer is reused, and no more than until the
// token's exp.
func TestIntrospectionAcceptsAndCaches(t *testing.T) {
	in := newIntrospecting(t, oauthtest.ResourceClientSecret)
	raw, err := in.as.TokenOf(oauthtest.OpaqueClientID, audience, oauth.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := in.v.Validate(context.Background(), raw)
	if err != nil {
		t.Fatalf("an opaque token of the trusted server: %v", err)
	}
	if tok.Principal() != oauthtest.OpaqueClientID+"@"+in.as.URL || !slices.Equal(tok.Scopes, []string{oauth.ScopeRead}) {
		t.Errorf("principal %q, scopes %q", tok.Principal(), tok.Scopes)
	}
	for range 5 {
		if _, err := in.v.Validate(context.Background(), raw); err != nil {
			t.Fatal(err)
		}
	}
	if n := in.count(); n != 1 {
		t.Errorf("6 validations of one token introspected %d times, want 1 (the answer cached)", n)
	}
	in.advance(oauth.DefaultIntrospectionCache + time.Second)
	if _, err := in.v.Validate(context.Background(), raw); err != nil {
		t.Fatal(err)
	}
	if n := in.count(); n != 2 {
		t.Errorf("after %v the token was introspected %d times in all, want 2", oauth.DefaultIntrospectionCache, n)
	}

	// A token expiring in 2s is cached until then, not for the full minute.
	short := in.mint(func(c *oauthtest.Introspected) { c.Expiry = in.clock().Add(2 * time.Second) })
	before := in.count()
	for range 2 {
		if _, err := in.v.Validate(context.Background(), short); err != nil {
			t.Fatal(err)
		}
	}
	in.advance(3 * time.Second) // past exp, within the skew: still accepted, asked again
	if _, err := in.v.Validate(context.Background(), short); err != nil {
		t.Fatal(err)
	}
	if n := in.count() - before; n != 2 {
		t.Errorf("a token cached past its exp: %d introspections, want 2", n)
	}
}

// What the introspection endpoint says must hold as for a JWT: active,
// this resource in aud, the trusted iss, exp (with the skew), sub; a
// JWT, forged or not, is never sent to the endpoint.
func TestIntrospectionRefusals(t *testing.T) {
	in := newIntrospecting(t, oauthtest.ResourceClientSecret)
	other, err := in.as.TokenOf(oauthtest.OpaqueClientID, "http://127.0.0.1:1/mcp", oauth.ScopeFull)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, token, why string }{
		{"unknown", "an-opaque-token-nobody-issued", "not active"},
		{"another audience", other, "does not name this resource"},
		{"another issuer", in.mint(func(c *oauthtest.Introspected) { c.Issuer = "https://other.example.com" }), "issuer"},
		{"expired", in.mint(func(c *oauthtest.Introspected) { c.Expiry = time.Now().Add(-5 * time.Minute) }), "expired"},
		{"no sub", in.mint(func(c *oauthtest.Introspected) { c.Subject = "" }), "no sub"},
		{"too long", strings.Repeat("x", 5000), "at most 4096"},
	} {
		if _, err := in.v.Validate(context.Background(), c.token); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want a refusal naming %q", c.name, err, c.why)
		}
	}

	before := in.count()
	good, err := in.as.Mint(in.as.Claims(audience, oauth.ScopeFull))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range oauthtest.Forgeries {
		forged, err := in.as.Forge(kind, good)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.v.Validate(context.Background(), forged); err == nil {
			t.Errorf("forgery %s accepted", kind)
		}
	}
	expired := in.as.Claims(audience, oauth.ScopeFull)
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	if raw, err := in.as.Mint(expired); err != nil {
		t.Fatal(err)
	} else if _, err := in.v.Validate(context.Background(), raw); err == nil {
		t.Error("an expired JWT accepted")
	}
	if n := in.count() - before; n != 0 {
		t.Errorf("refused JWTs were sent to the introspection endpoint %d times, want never", n)
	}
}

// Credentials the endpoint refuses make tokens uncheckable, not refused:
// ErrUnavailable (503), naming the variables to check.
func TestIntrospectionWithWrongCredentialsIsUnavailable(t *testing.T) {
	in := newIntrospecting(t, "not-the-secret")
	raw, err := in.as.TokenOf(oauthtest.OpaqueClientID, audience, oauth.ScopeFull)
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.v.Validate(context.Background(), raw)
	if !errors.Is(err, oauth.ErrUnavailable) || !strings.Contains(err.Error(), oauth.EnvClientSecret) {
		t.Errorf("wrong credentials: %v, want ErrUnavailable naming %s", err, oauth.EnvClientSecret)
	}
}

// The configuration is refused without credentials or for an issuer that
// is not trusted; without introspection an opaque token is refused unsent.
func TestIntrospectionConfig(t *testing.T) {
	iss := "https://auth.example.com"
	for _, c := range []struct {
		intro oauth.Introspection
		want  string
	}{
		{oauth.Introspection{Issuer: iss}, oauth.EnvClientID},
		{oauth.Introspection{Issuer: "https://other.example.com", ClientID: "a", ClientSecret: "b"}, "not one of the issuers"},
	} {
		_, err := oauth.New(oauth.Config{Issuers: []string{iss}, Audience: audience, Introspect: &c.intro})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.intro, err, c.want)
		}
	}
	v, err := oauth.New(oauth.Config{Issuers: []string{iss}, Audience: audience, HTTPClient: &http.Client{Transport: failingTransport{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Validate(context.Background(), "opaque"); err == nil || !strings.Contains(err.Error(), "--auth-introspect") {
		t.Errorf("an opaque token without introspection: %v", err)
	}
}

// failingTransport fails every request: nothing may be fetched.
type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no request expected")
}
