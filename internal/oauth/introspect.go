package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Introspection configures the check of opaque access tokens at an
// issuer's introspection endpoint (RFC 7662; docs/security.md, OAuth).
type Introspection struct {
	// Issuer is the authorization server that issues the opaque tokens,
	// one of Config.Issuers. Its discovery document's
	// introspection_endpoint gets them; no other issuer ever sees one,
	// since a token sent to a server that did not issue it is a token
	// given away.
	Issuer string
	// ClientID and ClientSecret authenticate this resource server at the
	// endpoint (client_secret_basic).
	ClientID     string
	ClientSecret string
	// CacheFor is the longest an active answer is reused; 0 means
	// DefaultIntrospectionCache. An answer is never reused past the
	// token's exp.
	CacheFor time.Duration
}

// IntrospectionFromEnv is the introspection at issuer with the
// credentials of VOX_MCP_AUTH_CLIENT_ID and VOX_MCP_AUTH_CLIENT_SECRET.
func IntrospectionFromEnv(issuer string, getenv func(string) string) *Introspection {
	return &Introspection{Issuer: issuer, ClientID: getenv(EnvClientID), ClientSecret: getenv(EnvClientSecret)}
}

// DefaultIntrospectionCache is how long an active answer is reused: a
// token revoked at the authorization server is still accepted for at
// most that long.
const DefaultIntrospectionCache = 60 * time.Second

// Bounds of the introspection: anyone can send an opaque token, and each
// unknown one costs a request to the authorization server.
const (
	maxIntrospectionCache = 10000   // cached active answers
	maxIntrospectionsOpen = 8       // requests to the endpoint in flight at once
	maxOpaqueTokenBytes   = 4096    // longer tokens are refused unsent
	maxIntrospectionBytes = 1 << 20 // an answer
)

// introspector checks opaque tokens at one issuer's endpoint and caches
// the active answers.
type introspector struct {
	iss          *issuer
	clientID     string
	clientSecret string
	cacheFor     time.Duration
	open         chan struct{} // a slot per request in flight

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cachedToken
}

type cachedToken struct {
	tok   *Token
	until time.Time
}

func newIntrospector(cfg Introspection, issuers map[string]*issuer) (*introspector, error) {
	iss, ok := issuers[cfg.Issuer]
	if !ok {
		return nil, fmt.Errorf("oauth: --auth-introspect %q is not one of the issuers (--auth-issuer): name the issuer whose opaque tokens to introspect", cfg.Issuer)
	}
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, fmt.Errorf("oauth: --auth-introspect %s needs this server's credentials at that issuer: set %s and %s", cfg.Issuer, EnvClientID, EnvClientSecret)
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = DefaultIntrospectionCache
	}
	return &introspector{iss: iss, clientID: cfg.ClientID, clientSecret: cfg.ClientSecret, cacheFor: cfg.CacheFor,
		open: make(chan struct{}, maxIntrospectionsOpen), cache: map[[sha256.Size]byte]cachedToken{}}, nil
}

// jwtShaped reports whether raw looks like a compact JWS: three
// base64url parts whose first is a JSON object. Such a token is checked
// as a JWT only and never introspected, whatever its refusal: a forged or
// re-signed JWT is not a question for the authorization server, and
// sending it one would hand a forger an oracle.
func jwtShaped(raw string) bool {
	head, rest, ok := strings.Cut(raw, ".")
	if !ok || strings.Count(rest, ".") != 1 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal(b, &obj) == nil
}

// introspectionAnswer is an introspection response (RFC 7662 §2.2): the
// registered claims as in a JWT, with active and the scopes.
type introspectionAnswer struct {
	Active bool `json:"active"`
	claims
}

// validate checks an opaque token: a cached active answer, or the
// endpoint's. active false is a refusal; the claims of an active answer
// must hold as a JWT's (checkClaims), iss being the introspecting
// issuer's when the answer names none.
func (in *introspector) validate(ctx context.Context, v *Validator, raw string) (*Token, error) {
	if len(raw) > maxOpaqueTokenBytes {
		return nil, fmt.Errorf("an opaque token of %d bytes (at most %d) is not one this server introspects", len(raw), maxOpaqueTokenBytes)
	}
	key := sha256.Sum256([]byte(raw))
	now := v.cfg.Now()
	if tok, ok := in.cached(key, now); ok {
		return tok, nil
	}
	ans, err := in.ask(ctx, raw, now)
	if err != nil {
		return nil, err
	}
	if !ans.Active {
		return nil, fmt.Errorf("the authorization server %s says the token is not active (RFC 7662: expired, revoked, or not its own)", in.iss.url)
	}
	if ans.Issuer == "" {
		ans.Issuer = in.iss.url
	}
	tok, err := v.checkClaims(&ans.claims, in.iss.url)
	if err != nil {
		return nil, err
	}
	in.store(key, tok, now)
	return tok, nil
}

func (in *introspector) cached(key [sha256.Size]byte, now time.Time) (*Token, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	c, ok := in.cache[key]
	if !ok {
		return nil, false
	}
	if !now.Before(c.until) {
		delete(in.cache, key)
		return nil, false
	}
	return c.tok, true
}

// store keeps an active answer until the token's exp or cacheFor from
// now, whichever comes first. A full cache first drops what expired, and
// is emptied when nothing did: it refills from the tokens in use.
func (in *introspector) store(key [sha256.Size]byte, tok *Token, now time.Time) {
	until := now.Add(in.cacheFor)
	if tok.Expiry.Before(until) {
		until = tok.Expiry
	}
	if !now.Before(until) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.cache) >= maxIntrospectionCache {
		for k, c := range in.cache {
			if !now.Before(c.until) {
				delete(in.cache, k)
			}
		}
		if len(in.cache) >= maxIntrospectionCache {
			clear(in.cache)
		}
	}
	in.cache[key] = cachedToken{tok: tok, until: until}
}

// ask posts the token to the endpoint (RFC 7662 §2.1), at most
// maxIntrospectionsOpen at once. An endpoint that cannot be reached or
// answers with anything but 200 and JSON is ErrUnavailable: the token may
// be good.
func (in *introspector) ask(ctx context.Context, raw string, now time.Time) (*introspectionAnswer, error) {
	if _, err := in.iss.keySet(ctx, now); err != nil { // the discovery, which finds the endpoint
		return nil, err
	}
	in.iss.mu.Lock()
	endpoint := in.iss.introspection
	in.iss.mu.Unlock()
	if endpoint == "" {
		return nil, fmt.Errorf("%w: %s names no introspection_endpoint in its discovery document: opaque tokens cannot be checked (give its tokens as JWTs, or drop --auth-introspect)", ErrUnavailable, in.iss.url)
	}
	select {
	case in.open <- struct{}{}:
		defer func() { <-in.open }()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting to introspect: %v", ErrUnavailable, ctx.Err())
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: introspection endpoint %s: %v", ErrUnavailable, endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: both are form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(in.clientID), url.QueryEscape(in.clientSecret))
	resp, err := in.iss.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspecting at %s: %v", ErrUnavailable, endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIntrospectionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: introspecting at %s: %v", ErrUnavailable, endpoint, err)
	}
	if resp.StatusCode != http.StatusOK || len(body) > maxIntrospectionBytes {
		return nil, fmt.Errorf("%w: introspecting at %s: status %s (check %s and %s)", ErrUnavailable, endpoint, resp.Status, EnvClientID, EnvClientSecret)
	}
	var ans introspectionAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("%w: introspecting at %s: the answer is no introspection response (%v)", ErrUnavailable, endpoint, err)
	}
	return &ans, nil
}
