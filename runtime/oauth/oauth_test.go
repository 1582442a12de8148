package oauth_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/oauthtest"
	"github.com/vox-lang/vox-mcp/runtime/oauth"
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
