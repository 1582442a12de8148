package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/oauth2/clientcredentials"
)

// authServer is a real OpenID provider on loopback: zitadel/oidc's op
// over its example storage, wrapped so that the client-credentials grant
// gives JWT access tokens whose aud is the resource the client asked for
// (RFC 8707's resource parameter) and whose scope claim carries the
// granted scopes, signed with a key the test can rotate and read.
type authServer struct {
	URL string
	srv *httptest.Server

	mu  sync.Mutex
	key *rsa.PrivateKey
	kid string
}

const (
	asClientID     = "vox-agent"
	asClientSecret = "agent-secret"
)

func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	as := &authServer{}
	as.rotate(t)
	as.srv = httptest.NewUnstartedServer(nil)
	as.URL = "http://" + as.srv.Listener.Addr().String()
	st := &asStorage{Storage: storage.NewStorage(storage.NewUserStore(as.URL)), as: as}
	provider, err := op.NewOpenIDProvider(as.URL, &op.Config{CryptoKey: sha256.Sum256([]byte("test")), CodeMethodS256: true}, st,
		op.WithAllowInsecure(), op.WithHttpInterceptors(resourceParam))
	if err != nil {
		t.Fatal(err)
	}
	as.srv.Config.Handler = provider
	as.srv.Start()
	t.Cleanup(as.srv.Close)
	return as
}

// rotate gives the server a new signing key under a new key id; the old
// one leaves its JWKS.
func (as *authServer) rotate(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.key, as.kid = key, uuid.NewString()
	as.mu.Unlock()
}

func (as *authServer) signingKey() (*rsa.PrivateKey, string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.key, as.kid
}

// token asks the server for a client-credentials token for resource with
// scopes, as an MCP client does.
func (as *authServer) token(t *testing.T, resource string, scopes ...string) string {
	t.Helper()
	cfg := clientcredentials.Config{
		ClientID: asClientID, ClientSecret: asClientSecret, TokenURL: as.URL + "/oauth/token",
		Scopes: scopes, EndpointParams: map[string][]string{"resource": {resource}},
	}
	tok, err := cfg.Token(context.Background())
	if err != nil {
		t.Fatalf("client credentials from %s: %v", as.URL, err)
	}
	if strings.Count(tok.AccessToken, ".") != 2 {
		t.Fatalf("the access token is no JWT: %q", tok.AccessToken)
	}
	return tok.AccessToken
}

type resourceKey struct{}

// resourceParam puts the token request's resource parameter (RFC 8707)
// in the context, where ClientCredentialsTokenRequest reads it.
func resourceParam(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") {
			_ = r.ParseForm()
			r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, r.PostForm["resource"]))
		}
		next.ServeHTTP(w, r)
	})
}

type asStorage struct {
	*storage.Storage
	as *authServer
}

// ccClient is the example's web client, given the client-credentials
// grant and JWT access tokens.
type ccClient struct{ *storage.Client }

func (ccClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (ccClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}

func (s *asStorage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	if id != asClientID || secret != asClientSecret {
		return nil, oidc.ErrInvalidClient()
	}
	return ccClient{storage.WebClient(id, secret)}, nil
}

func (s *asStorage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	aud, _ := ctx.Value(resourceKey{}).([]string)
	return &oidc.JWTTokenRequest{Subject: id, Audience: aud, Scopes: scopes}, nil
}

func (s *asStorage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(scopes, " ")}, nil
}

func (s *asStorage) SigningKey(context.Context) (op.SigningKey, error) {
	key, kid := s.as.signingKey()
	return asKey{key: key, kid: kid}, nil
}

func (s *asStorage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *asStorage) KeySet(context.Context) ([]op.Key, error) {
	key, kid := s.as.signingKey()
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
