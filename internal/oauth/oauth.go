// Package oauth validates OAuth 2.1 access tokens for vox-mcp's HTTP
// transport, which acts as an OAuth resource server (docs/security.md, OAuth):
// a token is a JWT signed by one of the configured authorization servers
// with a key of its JWKS (found through its OpenID discovery document,
// cached, fetched again on an unknown key id at most every 10s by default), whose aud names this
// resource (RFC 8707), and whose exp and nbf hold with a small skew. The
// algorithms are an allowlist of asymmetric ones: never none, never an
// HMAC whose secret could be the issuer's public key. A token that is not
// a JWT is checked, when so configured, at its issuer's introspection
// endpoint (RFC 7662, introspect.go).
//
// The package knows tokens, not roles: the server maps a token's scopes
// to its roles (internal/server/auth.go). It imports nothing of the
// module, so that it can be tested, and replaced, on its own.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Environment variables of the configuration, read by ConfigFromEnv.
const (
	EnvIssuer   = "VOX_MCP_AUTH_ISSUER"   // one issuer URL, or several separated by commas or spaces
	EnvAudience = "VOX_MCP_AUTH_AUDIENCE" // this resource's canonical URI
	// EnvIntrospect names the issuer whose introspection endpoint checks
	// opaque tokens (introspect.go).
	EnvIntrospect = "VOX_MCP_AUTH_INTROSPECT"
	// EnvClientID and EnvClientSecret are this resource server's
	// credentials at that issuer, for introspection: read from the
	// environment only, so that the secret is not in the process list.
	EnvClientID     = "VOX_MCP_AUTH_CLIENT_ID"
	EnvClientSecret = "VOX_MCP_AUTH_CLIENT_SECRET"
)

// Scopes that grant vox-mcp's roles (docs/security.md, OAuth).
const (
	ScopeFull = "vox:full" // every request, as VOX_MCP_TOKEN
	ScopeRead = "vox:read" // the read role, as VOX_MCP_READ_TOKEN
)

// DefaultSkew is the leeway on exp, nbf and iat: clocks of the
// authorization server and of this host may disagree by that much.
const DefaultSkew = 30 * time.Second

// Algorithms are the signature algorithms a token may use: asymmetric
// only. "none" and HS256/384/512 are absent: go-jose refuses a token
// whose header names another before any key is looked at.
var Algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// retryDiscovery is how long a failed discovery of an issuer is
// remembered before a token of that issuer makes the validator try again,
// so that a flood of tokens does not become a flood of fetches.
const retryDiscovery = 10 * time.Second

// Config configures a Validator.
type Config struct {
	// Issuers are the authorization servers whose tokens are accepted,
	// exactly as their tokens' iss claim spells them.
	Issuers []string
	// Audience is this resource's canonical URI, the URL clients use to
	// reach the MCP endpoint (http://127.0.0.1:8080/mcp): a token's aud
	// must contain it.
	Audience string
	// Skew is the leeway on the token's times; 0 means DefaultSkew.
	Skew time.Duration
	// MinRefetch is the least time between two fetches of an issuer's
	// JWKS for a token naming a key id the cache lacks; 0 means
	// DefaultMinRefetch.
	MinRefetch time.Duration
	// HTTPClient fetches the discovery documents and the JWKS; nil means
	// a client with a 10s timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Introspect, when set, sends the tokens that are not JWTs to the
	// introspection endpoint of one of the Issuers (RFC 7662,
	// introspect.go).
	Introspect *Introspection
}

// Token is what a validated access token says.
type Token struct {
	Issuer  string
	Subject string
	Scopes  []string
	Expiry  time.Time
}

// Principal is who the token speaks for, "sub@issuer", the name an audit
// trail records.
func (t *Token) Principal() string { return t.Subject + "@" + t.Issuer }

// HasScope reports whether the token carries scope s.
func (t *Token) HasScope(s string) bool { return slices.Contains(t.Scopes, s) }

// ErrUnavailable wraps the error of a token that could not be checked
// because its issuer's metadata or keys could not be fetched: the token
// may be good, the server answers 503 rather than refusing it.
var ErrUnavailable = errors.New("authorization server unavailable")

// Validator validates access tokens. It is safe for concurrent use.
type Validator struct {
	cfg     Config
	issuers map[string]*issuer
	intro   *introspector // nil without Config.Introspect
}

// issuer is one authorization server, discovered on first use.
type issuer struct {
	url        string
	client     *http.Client
	minRefetch time.Duration

	mu      sync.Mutex
	keys    *keySet
	failed  time.Time
	lastErr error
	// introspection is the discovery document's introspection_endpoint
	// (RFC 8414), "" when it names none; read with keys.
	introspection string
}

// New checks cfg and returns its validator. Nothing is fetched yet: an
// issuer is discovered when the first token that names it arrives, so
// the server starts while an authorization server is down.
func New(cfg Config) (*Validator, error) {
	if len(cfg.Issuers) == 0 {
		return nil, errors.New("oauth: no issuer: give --auth-issuer URL (or " + EnvIssuer + ")")
	}
	if err := checkAudience(cfg.Audience); err != nil {
		return nil, err
	}
	if cfg.Skew <= 0 {
		cfg.Skew = DefaultSkew
	}
	if cfg.MinRefetch <= 0 {
		cfg.MinRefetch = DefaultMinRefetch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	v := &Validator{cfg: cfg, issuers: map[string]*issuer{}}
	for _, iss := range cfg.Issuers {
		if err := checkIssuer(iss); err != nil {
			return nil, err
		}
		v.issuers[iss] = &issuer{url: iss, client: cfg.HTTPClient, minRefetch: cfg.MinRefetch}
	}
	if cfg.Introspect != nil {
		intro, err := newIntrospector(*cfg.Introspect, v.issuers)
		if err != nil {
			return nil, err
		}
		v.intro = intro
	}
	return v, nil
}

// checkIssuer accepts https issuers, and http ones on a loopback host
// (an authorization server on the same machine, as in the tests): keys
// fetched over plain HTTP from elsewhere could be anyone's.
func checkIssuer(iss string) error {
	u, err := url.Parse(iss)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("oauth: issuer %q: want an absolute https URL without query or fragment, such as https://auth.example.com", iss)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("oauth: issuer %q: want https (http only on a loopback host such as 127.0.0.1)", iss)
}

func checkAudience(aud string) error {
	u, err := url.Parse(aud)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.Fragment != "" {
		return fmt.Errorf("oauth: audience %q: want the absolute URL clients use for the MCP endpoint, such as https://mcp.example.com/mcp (--auth-audience or %s)", aud, EnvAudience)
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Audience is this resource's canonical URI.
func (v *Validator) Audience() string { return v.cfg.Audience }

// Skew is the leeway on a token's times: a token is accepted until its
// exp plus Skew.
func (v *Validator) Skew() time.Duration { return v.cfg.Skew }

// Issuers are the accepted authorization servers, in configured order.
func (v *Validator) Issuers() []string { return slices.Clone(v.cfg.Issuers) }

// ConfigFromEnv reads VOX_MCP_AUTH_ISSUER and VOX_MCP_AUTH_AUDIENCE; the
// issuers are split on commas and spaces. With VOX_MCP_AUTH_INTROSPECT it
// sets Introspect, its credentials from VOX_MCP_AUTH_CLIENT_ID and
// VOX_MCP_AUTH_CLIENT_SECRET (IntrospectionFromEnv).
func ConfigFromEnv(getenv func(string) string) Config {
	cfg := Config{
		Issuers:  strings.FieldsFunc(getenv(EnvIssuer), func(r rune) bool { return r == ',' || r == ' ' }),
		Audience: strings.TrimSpace(getenv(EnvAudience)),
	}
	if iss := strings.TrimSpace(getenv(EnvIntrospect)); iss != "" {
		cfg.Introspect = IntrospectionFromEnv(iss, getenv)
	}
	return cfg
}

// claims are the fields of an access token the validator reads: the
// registered ones, and the scopes as RFC 9068 (scope, space-separated)
// or as some servers send them (scp, a list or a string).
type claims struct {
	jwt.Claims
	Scope string          `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

// Validate checks raw, a compact JWS, and returns what it says. A refusal
// is an error whose text says why (for the log and the 401 body); an
// issuer that cannot be reached wraps ErrUnavailable.
func (v *Validator) Validate(ctx context.Context, raw string) (*Token, error) {
	if !jwtShaped(raw) {
		if v.intro == nil {
			return nil, errors.New("not a JWT, and this server introspects no opaque tokens (--auth-introspect): want a JWT access token of a trusted issuer")
		}
		return v.intro.validate(ctx, v, raw)
	}
	// The algorithm allowlist applies before anything else: the header
	// of a token with alg none or HS256 is refused here.
	jws, err := jose.ParseSignedCompact(raw, Algorithms)
	if err != nil {
		return nil, fmt.Errorf("not a JWT signed with an accepted algorithm (%v): want one of RS*, PS*, ES*, EdDSA", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("the token must carry exactly one signature")
	}
	// Which issuer's keys to try is read before the signature is checked;
	// iss is checked again once it is.
	var unverified claims
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &unverified); err != nil {
		return nil, fmt.Errorf("the token's claims are no JSON object (%v)", err)
	}
	iss, ok := v.issuers[unverified.Issuer]
	if !ok {
		return nil, fmt.Errorf("issuer %q is not one this server trusts (--auth-issuer)", unverified.Issuer)
	}
	keys, err := iss.keySet(ctx, v.cfg.Now())
	if err != nil {
		return nil, err
	}
	payload, err := keys.verify(ctx, jws, v.cfg.Now())
	if err != nil {
		return nil, err
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("the token's claims are no JSON object (%v)", err)
	}
	return v.checkClaims(&c, iss.url)
}

// checkClaims applies the rules every access token meets, whether its
// claims come from a verified JWT or from the issuer's introspection
// answer: exp and sub present, iss the issuer's, aud naming this
// resource, exp, nbf and iat holding with the skew.
func (v *Validator) checkClaims(c *claims, issuerURL string) (*Token, error) {
	if c.Expiry == nil {
		return nil, errors.New("the token has no exp claim")
	}
	if c.Subject == "" {
		return nil, errors.New("the token has no sub claim")
	}
	expected := jwt.Expected{Issuer: issuerURL, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: v.cfg.Now()}
	if err := c.ValidateWithLeeway(expected, v.cfg.Skew); err != nil {
		switch {
		case errors.Is(err, jwt.ErrInvalidAudience):
			return nil, fmt.Errorf("the token's aud %q does not name this resource %q (RFC 8707: ask the authorization server for resource=%s)", []string(c.Audience), v.cfg.Audience, v.cfg.Audience)
		case errors.Is(err, jwt.ErrExpired):
			return nil, fmt.Errorf("the token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
		}
		return nil, fmt.Errorf("the token's claims do not hold: %v", err)
	}
	tok := &Token{Issuer: issuerURL, Subject: c.Subject, Expiry: c.Expiry.Time(), Scopes: strings.Fields(c.Scope)}
	tok.Scopes = append(tok.Scopes, scpScopes(c.Scp)...)
	return tok, nil
}

// scpScopes reads the scp claim, a list of scopes or one space-separated
// string; anything else grants nothing.
func scpScopes(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.Fields(s)
	}
	return nil
}

// keySet returns the issuer's key set, discovering its jwks_uri first
// with go-oidc, which also checks that the discovery document names the
// issuer exactly.
func (i *issuer) keySet(ctx context.Context, now time.Time) (*keySet, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.keys != nil {
		return i.keys, nil
	}
	if i.lastErr != nil && now.Sub(i.failed) < retryDiscovery {
		return nil, i.lastErr
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, i.client), 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, i.url)
	if err == nil {
		var meta struct {
			JWKSURI       string `json:"jwks_uri"`
			Introspection string `json:"introspection_endpoint"`
		}
		if err = p.Claims(&meta); err == nil && meta.JWKSURI == "" {
			err = errors.New("its discovery document has no jwks_uri")
		}
		if err == nil {
			i.introspection = meta.Introspection
			i.keys = &keySet{url: meta.JWKSURI, client: i.client, minRefetch: i.minRefetch}
			i.lastErr = nil
			return i.keys, nil
		}
	}
	i.failed, i.lastErr = now, fmt.Errorf("%w: discovering %s (%s/.well-known/openid-configuration): %v", ErrUnavailable, i.url, strings.TrimSuffix(i.url, "/"), err)
	return nil, i.lastErr
}
