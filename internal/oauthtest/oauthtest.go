// Package oauthtest runs a real OAuth authorization server on loopback
// for tests: zitadel/oidc's OpenID provider over its example storage,
// wrapped so that the client-credentials grant gives JWT access tokens
// whose aud is the resource the client asked for (RFC 8707) and whose
// scope claim carries the granted scopes, signed with a key the test can
// rotate and use to mint and forge tokens (docs/security.md, OAuth). Its
// opaque tokens (client OpaqueClientID) are answered for at its
// introspection endpoint (RFC 7662) to the resource server's client. Only
// tests import it: no binary links the provider.
package oauthtest

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/oauth2/clientcredentials"
)

// Server is a running authorization server; URL is its issuer.
type Server struct {
	URL      string
	srv      *httptest.Server
	provider *op.Provider

	mu  sync.Mutex
	key *rsa.PrivateKey
	kid string
	// opaque are the opaque tokens issued or minted, by token id, as the
	// introspection endpoint answers for them.
	opaque         map[string]Introspected
	introspections int
}

// Introspected is what the introspection endpoint answers for an opaque
// token while it is active.
type Introspected struct {
	Issuer   string
	Subject  string
	Audience []string
	Scopes   []string
	Expiry   time.Time
	// Minted tokens are answered active whatever their Expiry, as a
	// server whose clock lags would: the resource checks exp itself.
	Minted bool
}

// The clients of the server, allowed the client-credentials grant: the
// tokens of ClientID and OtherClientID are JWTs (two subjects), those of
// OpaqueClientID opaque, for introspection.
const (
	ClientID           = "vox-agent"
	ClientSecret       = "agent-secret"
	OtherClientID      = "vox-other-agent"
	OtherClientSecret  = "other-secret"
	OpaqueClientID     = "vox-opaque-agent"
	OpaqueClientSecret = "opaque-secret"
)

// ResourceClientID and ResourceClientSecret are the resource server's
// credentials at the introspection endpoint; no other client may
// introspect.
const (
	ResourceClientID     = "vox-mcp"
	ResourceClientSecret = "resource-secret"
)

// clientSecrets are the secrets of the token clients.
var clientSecrets = map[string]string{ClientID: ClientSecret, OtherClientID: OtherClientSecret, OpaqueClientID: OpaqueClientSecret}

// Start starts a server on 127.0.0.1; Close stops it.
func Start() (*Server, error) {
	as := &Server{opaque: map[string]Introspected{}}
	if err := as.Rotate(); err != nil {
		return nil, err
	}
	as.srv = httptest.NewUnstartedServer(nil)
	as.URL = "http://" + as.srv.Listener.Addr().String()
	st := &asStorage{Storage: storage.NewStorage(storage.NewUserStore(as.URL)), as: as}
	provider, err := op.NewProvider(&op.Config{CryptoKey: sha256.Sum256([]byte("test")), CodeMethodS256: true}, st, op.StaticIssuer(as.URL),
		op.WithAllowInsecure(), op.WithHttpInterceptors(as.interceptor))
	if err != nil {
		as.srv.Close()
		return nil, fmt.Errorf("oauthtest: %w", err)
	}
	as.provider = provider
	as.srv.Config.Handler = provider
	as.srv.Start()
	return as, nil
}

// Close stops the server.
func (as *Server) Close() { as.srv.Close() }

// Rotate gives the server a new signing key under a new key id; the old
// one leaves its JWKS.
func (as *Server) Rotate() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	as.mu.Lock()
	as.key, as.kid = key, uuid.NewString()
	as.mu.Unlock()
	return nil
}

// SigningKey is the server's current key and its id.
func (as *Server) SigningKey() (*rsa.PrivateKey, string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.key, as.kid
}

// Token asks the server for a client-credentials token of ClientID for
// resource with scopes, as an MCP client does: a JWT.
func (as *Server) Token(resource string, scopes ...string) (string, error) {
	return as.TokenOf(ClientID, resource, scopes...)
}

// TokenOf asks for a token of client (ClientID, OtherClientID or
// OpaqueClientID): a JWT, or an opaque token for OpaqueClientID.
func (as *Server) TokenOf(client, resource string, scopes ...string) (string, error) {
	cfg := clientcredentials.Config{
		ClientID: client, ClientSecret: clientSecrets[client], TokenURL: as.URL + "/oauth/token",
		Scopes: scopes, EndpointParams: map[string][]string{"resource": {resource}},
	}
	tok, err := cfg.Token(context.Background())
	if err != nil {
		return "", fmt.Errorf("oauthtest: client credentials of %s from %s: %w", client, as.URL, err)
	}
	if isJWT := strings.Count(tok.AccessToken, ".") == 2; isJWT != (client != OpaqueClientID) {
		return "", fmt.Errorf("oauthtest: the access token of %s is not of its kind: %q", client, tok.AccessToken)
	}
	return tok.AccessToken, nil
}

// MintOpaque makes an opaque token the introspection endpoint answers
// with c, active whatever c.Expiry says.
func (as *Server) MintOpaque(c Introspected) (string, error) {
	id := uuid.NewString()
	c.Minted = true
	as.mu.Lock()
	as.opaque[id] = c
	as.mu.Unlock()
	return op.CreateBearerToken(id, c.Subject, as.provider.Crypto())
}

// Introspections is how many introspection requests the server answered.
func (as *Server) Introspections() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.introspections
}

// Claims are the claims of a token the server would issue for resource
// with scope, valid for 5 minutes from now, for Mint to sign after a
// test changed them.
func (as *Server) Claims(resource, scope string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": as.URL, "sub": "minted", "aud": []string{resource}, "scope": scope,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
}

// Mint signs claims with the server's current key, as the server would.
func (as *Server) Mint(claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	key, kid := as.SigningKey()
	return SignRS256(key, kid, payload)
}

type resourceKey struct{}

// interceptor puts the token request's resource parameter (RFC 8707)
// in the context, where ClientCredentialsTokenRequest reads it, and
// counts the introspection requests.
func (as *Server) interceptor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/introspect") {
			as.mu.Lock()
			as.introspections++
			as.mu.Unlock()
		}
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") {
			_ = r.ParseForm()
			r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, r.PostForm["resource"]))
		}
		next.ServeHTTP(w, r)
	})
}

type asStorage struct {
	*storage.Storage
	as *Server
}

// ccClient is the example's web client, given the client-credentials
// grant and JWT access tokens, or opaque ones.
type ccClient struct {
	*storage.Client
	opaque bool
}

func (c ccClient) AccessTokenType() op.AccessTokenType {
	if c.opaque {
		return op.AccessTokenTypeBearer
	}
	return op.AccessTokenTypeJWT
}
func (ccClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}

func (s *asStorage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	if want, ok := clientSecrets[id]; !ok || secret != want {
		return nil, oidc.ErrInvalidClient()
	}
	return ccClient{Client: storage.WebClient(id, secret), opaque: id == OpaqueClientID}, nil
}

// CreateAccessToken records an opaque token's grant for the
// introspection endpoint.
func (s *asStorage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, exp, err := s.Storage.CreateAccessToken(ctx, req)
	if err != nil {
		return "", time.Time{}, err
	}
	s.as.mu.Lock()
	s.as.opaque[id] = Introspected{Issuer: s.as.URL, Subject: req.GetSubject(), Audience: req.GetAudience(), Scopes: req.GetScopes(), Expiry: exp}
	s.as.mu.Unlock()
	return id, exp, nil
}

// AuthorizeClientIDSecret admits the resource server at the
// introspection endpoint.
func (s *asStorage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	if id == ResourceClientID {
		if secret != ResourceClientSecret {
			return errors.New("invalid secret")
		}
		return nil
	}
	return s.Storage.AuthorizeClientIDSecret(ctx, id, secret)
}

// SetIntrospectionFromToken answers for an opaque token, to the resource
// server only: active with its grant until it expires (RFC 7662).
func (s *asStorage) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, tokenID, _, clientID string) error {
	s.as.mu.Lock()
	defer s.as.mu.Unlock()
	c, ok := s.as.opaque[tokenID]
	if !ok || clientID != ResourceClientID || (!c.Minted && time.Now().After(c.Expiry)) {
		return errors.New("token is not active")
	}
	resp.Issuer, resp.Subject, resp.Audience, resp.Scope = c.Issuer, c.Subject, c.Audience, c.Scopes
	resp.Expiration, resp.ClientID, resp.TokenType = oidc.FromTime(c.Expiry), c.Subject, "Bearer"
	return nil
}

func (s *asStorage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	aud, _ := ctx.Value(resourceKey{}).([]string)
	return &oidc.JWTTokenRequest{Subject: id, Audience: aud, Scopes: scopes}, nil
}

func (s *asStorage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(scopes, " ")}, nil
}

func (s *asStorage) SigningKey(context.Context) (op.SigningKey, error) {
	key, kid := s.as.SigningKey()
	return asKey{key: key, kid: kid}, nil
}

func (s *asStorage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *asStorage) KeySet(context.Context) ([]op.Key, error) {
	key, kid := s.as.SigningKey()
	return []op.Key{asKey{key: key, kid: kid, public: true}}, nil
}

// asKey is the server's key, private for signing, public in its JWKS.
type asKey struct {
	key    *rsa.PrivateKey
	kid    string
	public bool
}

func (k asKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k asKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k asKey) ID() string                                  { return k.kid }
func (k asKey) Use() string                                 { return "sig" }
func (k asKey) Key() any {
	if k.public {
		return &k.key.PublicKey
	}
	return k.key
}

// SignRS256 signs payload with key under kid.
func SignRS256(key *rsa.PrivateKey, kid string, payload []byte) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// Forgeries a test can make of a good token (Forge).
const (
	ForgeResignSameKid  = "resign"     // its claims signed with another RSA key, same kid
	ForgeResignOtherKid = "resign-kid" // the same under a kid the server never had
	ForgeAlgNone        = "none"       // alg none, no signature
	ForgeHS256PEM       = "hs256-pem"  // HS256 with the server's public key (PEM) as secret
	ForgeHS256DER       = "hs256-der"  // HS256 with the server's public key (DER) as secret
	ForgeTampered       = "tampered"   // sub changed, signature kept
)

// Forgeries lists the kinds Forge makes.
var Forgeries = []string{ForgeResignSameKid, ForgeResignOtherKid, ForgeAlgNone, ForgeHS256PEM, ForgeHS256DER, ForgeTampered}

// Forge makes the forgery kind of token, a good token of the server.
func (as *Server) Forge(kind, token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("oauthtest: not a compact JWS: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", err
	}
	key, kid := as.SigningKey()
	b64 := base64.RawURLEncoding.EncodeToString
	hs256 := func(secret []byte) string {
		head := b64([]byte(`{"alg":"HS256","typ":"JWT","kid":"`+kid+`"}`)) + "." + parts[1]
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(head))
		return head + "." + b64(mac.Sum(nil))
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", err
	}
	switch kind {
	case ForgeResignSameKid, ForgeResignOtherKid:
		other, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return "", err
		}
		if kind == ForgeResignOtherKid {
			kid = "unknown-kid"
		}
		return SignRS256(other, kid, payload)
	case ForgeAlgNone:
		return b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".", nil
	case ForgeHS256PEM:
		return hs256(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})), nil
	case ForgeHS256DER:
		return hs256(pubDER), nil
	case ForgeTampered:
		var c map[string]any
		if err := json.Unmarshal(payload, &c); err != nil {
			return "", err
		}
		c["sub"] = "admin"
		p, _ := json.Marshal(c)
		return parts[0] + "." + b64(p) + "." + parts[2], nil
	}
	return "", fmt.Errorf("oauthtest: unknown forgery %q: want one of %s", kind, strings.Join(Forgeries, ", "))
}
