package oauth_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

const audience = "http://127.0.0.1:8931/mcp"

// Scopes come from scope (RFC 9068) or scp, as a list or a string; the
// principal is sub@issuer.
func TestScopesAndPrincipal(t *testing.T) {
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	v, err := oauth.New(oauth.Config{Issuers: []string{as.URL}, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mod  func(map[string]any)
		want []string
	}{
		{"scope", nil, []string{oauth.ScopeFull}},
		{"scp list", func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{oauth.ScopeRead, "x"} }, []string{oauth.ScopeRead, "x"}},
		{"scp string", func(c map[string]any) { delete(c, "scope"); c["scp"] = "vox:read y" }, []string{oauth.ScopeRead, "y"}},
		{"no scope", func(c map[string]any) { delete(c, "scope") }, nil},
	} {
		claims := as.Claims(audience, oauth.ScopeFull)
		if c.mod != nil {
			c.mod(claims)
		}
		raw, err := as.Mint(claims)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := v.Validate(context.Background(), raw)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(tok.Scopes, c.want) || tok.Principal() != "minted@"+as.URL {
			t.Errorf("%s: scopes %q, principal %q; want %q, minted@%s", c.name, tok.Scopes, tok.Principal(), c.want, as.URL)
		}
	}
}

// An issuer that cannot be reached makes a token uncheckable, not
// refused: ErrUnavailable, which the server answers with 503.
func TestUnreachableIssuerIsUnavailable(t *testing.T) {
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := as.Mint(as.Claims(audience, oauth.ScopeFull))
	if err != nil {
		t.Fatal(err)
	}
	as.Close()
	// Nothing listens at the issuer's address any more.
	if c, err := net.Dial("tcp", as.URL[len("http://"):]); err == nil {
		c.Close()
		t.Skip("the issuer's port was taken again")
	}
	v, err := oauth.New(oauth.Config{Issuers: []string{as.URL}, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second answer is the remembered failure
		if _, err := v.Validate(context.Background(), raw); !errors.Is(err, oauth.ErrUnavailable) {
			t.Fatalf("a token of an unreachable issuer: %v, want ErrUnavailable", err)
		}
	}
}

// countingTransport counts the requests to each path.
type countingTransport struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.paths[r.URL.Path]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (c *countingTransport) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paths[path]
}

// Tokens naming unknown key ids, sent by anyone, fetch the JWKS at most
// once per MinRefetch, and a bad signature under a known key id never
// does; a rotation is followed once that time has passed.
func TestJWKSFetchesAreBounded(t *testing.T) {
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	ct := &countingTransport{paths: map[string]int{}}
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v, err := oauth.New(oauth.Config{Issuers: []string{as.URL}, Audience: audience, HTTPClient: &http.Client{Transport: ct}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	good, err := as.Mint(as.Claims(audience, oauth.ScopeFull))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Validate(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	const jwks = "/keys" // zitadel's op serves its JWKS there
	if n := ct.count(jwks); n != 1 {
		t.Fatalf("JWKS fetched %d times for the first token (paths %v)", n, ct.paths)
	}
	for range 20 {
		for _, kind := range []string{oauthtest.ForgeResignOtherKid, oauthtest.ForgeResignSameKid} {
			forged, err := as.Forge(kind, good)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Validate(context.Background(), forged); err == nil {
				t.Fatalf("forgery %s accepted", kind)
			}
		}
	}
	if n := ct.count(jwks); n != 1 {
		t.Errorf("40 forged tokens fetched the JWKS %d more times, want none within %v", n-1, oauth.DefaultMinRefetch)
	}
	if err := as.Rotate(); err != nil {
		t.Fatal(err)
	}
	rotated, err := as.Mint(as.Claims(audience, oauth.ScopeFull))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(oauth.DefaultMinRefetch + time.Second)
	mu.Unlock()
	if _, err := v.Validate(context.Background(), rotated); err != nil {
		t.Fatalf("a token of the rotated key after %v: %v", oauth.DefaultMinRefetch, err)
	}
	if n := ct.count(jwks); n != 2 {
		t.Errorf("JWKS fetched %d times in all, want 2", n)
	}
}
