package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DefaultMinRefetch is the least time between two fetches of an issuer's JWKS.
// A token naming a key id the cache lacks fetches the set again (a
// rotation), but anyone can send such a token without any credential:
// the bound keeps that from turning each request into a request to the
// authorization server. A token with a known key id and a bad signature
// never fetches.
// A rotation is then followed within that time.
const DefaultMinRefetch = 10 * time.Second

// maxJWKSBytes bounds a JWKS document.
const maxJWKSBytes = 1 << 20

// errBadSignature is the refusal of a signature no key verifies.
var errBadSignature = errors.New("the signature matches no key of the issuer's JWKS")

// keySet is an issuer's JWKS, fetched on first use and again for an
// unknown key id at most every minRefetch (Config.MinRefetch). go-oidc's RemoteKeySet does
// the same without the bound, and fetches again for a bad signature too.
type keySet struct {
	url        string
	client     *http.Client
	minRefetch time.Duration

	fetchMu sync.Mutex // one fetch at a time; verifications of known keys do not wait for it
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetched time.Time
}

// verify checks jws's one signature against the key of its kid (every
// key when it names none) and returns the payload.
func (k *keySet) verify(ctx context.Context, jws *jose.JSONWebSignature, now time.Time) ([]byte, error) {
	kid := jws.Signatures[0].Header.KeyID
	keys, err := k.keysFor(ctx, kid, now)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if kid == "" || keys[i].KeyID == kid {
			if payload, err := jws.Verify(&keys[i]); err == nil {
				return payload, nil
			}
		}
	}
	return nil, errBadSignature
}

// keysFor returns the cached keys, fetched again first when they lack kid
// and the last fetch is older than minRefetch. A failed fetch keeps the
// keys it had.
func (k *keySet) keysFor(ctx context.Context, kid string, now time.Time) ([]jose.JSONWebKey, error) {
	if keys, ok := k.cached(kid, now); ok {
		return keys, nil
	}
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	if keys, ok := k.cached(kid, now); ok { // another fetch answered meanwhile
		return keys, nil
	}
	keys, err := k.fetch(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fetched = now
	if err != nil {
		if k.keys != nil {
			return k.keys, nil
		}
		return nil, fmt.Errorf("%w: fetching %s: %v", ErrUnavailable, k.url, err)
	}
	k.keys = keys
	return keys, nil
}

// cached returns the keys when they need no fetch for kid.
func (k *keySet) cached(kid string, now time.Time) ([]jose.JSONWebKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fetched.IsZero() {
		return nil, false
	}
	if now.Sub(k.fetched) < k.minRefetch || hasKey(k.keys, kid) {
		return k.keys, k.keys != nil
	}
	return nil, false
}

func hasKey(keys []jose.JSONWebKey, kid string) bool {
	for _, key := range keys {
		if kid == "" || key.KeyID == kid {
			return true
		}
	}
	return false
}

// fetch reads the JWKS. Keys of a type go-jose does not know (ES256K,
// say) are skipped rather than failing the whole set; a private or
// symmetric key is never used to verify.
func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("status %s, %d bytes (at most %d)", resp.Status, len(body), maxJWKSBytes)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %v", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if key.UnmarshalJSON(raw) != nil || !key.Valid() || !key.IsPublic() {
			continue
		}
		keys = append(keys, key)
	}
	return keys, nil
}
