// Package session is what vox-mcp knows of an HTTP session
// (docs/federation.md §8): the session ids, which any instance holding the
// key verifies without shared state; the revoked set, which remembers the
// ids ended early (DELETE) until they would have expired anyway; and the
// per-session state (the active skill), kept until the session ends or
// expires.
//
// The revoked set and the state are interfaces, Revocations and Store,
// with bounded in-memory implementations for one instance; fleet mode
// puts both in a shared store so that every instance sees the same
// revocations and the same state. The package knows no transport: the
// server maps its HTTP requests onto it (internal/server/sessions.go).
package session

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Lifetime is how long a session id is valid after initialize minted it,
// unless the server is configured otherwise. A day: an agent left open
// overnight keeps its session, and a client re-initializes at most once a
// day; it also bounds how long a revocation must be remembered.
const Lifetime = 24 * time.Hour

// MinKeyBytes is the shortest session key accepted: 256 bits when the key
// is random bytes, 192 when it is base64 text.
const MinKeyBytes = 32

// prefix starts every id of this format; the version byte inside, which
// the MAC covers, says the same.
const prefix = "vox1."

const (
	version    = 1
	nonceBytes = 16
	macBytes   = sha256.Size
	// payload: version, role, nonce, issued (unix s), expires (unix s).
	payloadBytes = 1 + 1 + nonceBytes + 8 + 8
	idBytes      = payloadBytes + macBytes
	// encodedBytes is the length of every well-formed id.
	encodedBytes = len(prefix) + (idBytes*8+5)/6
)

// Errors of Verify. Each means the same to a client (HTTP 404: start a
// new session); they differ for the log.
var (
	// ErrMalformed: not an id of this format.
	ErrMalformed = errors.New("not a vox-mcp session id")
	// ErrNotIssued: the MAC does not match any key for the owner
	// presenting it, so no instance holding this server's key minted it
	// for that owner (forged, minted by a server with another key, such
	// as before a restart without VOX_MCP_SESSION_KEY, or minted for
	// another principal).
	ErrNotIssued = errors.New("session id not issued by this server or one sharing its key, for this principal")
	// ErrExpired: the id was issued here and its lifetime is over.
	ErrExpired = errors.New("session expired")
)

// ID is what a session id says, once verified.
type ID struct {
	// Key names the session in the revoked set and the state store: the
	// random nonce, in hex.
	Key string
	// Role is the access role of the request that initialized the
	// session (the server's; 0 is full access). A request presenting the
	// id with another role is refused, so a read-role client cannot end
	// or use a full-access session.
	Role uint8
	// Owner is the principal the id was minted for (the server's
	// PrincipalFrom): the MAC covers it without the id carrying it, so
	// the id of one principal presented by another does not verify.
	Owner   string
	Issued  time.Time
	Expires time.Time
}

// Signer mints and verifies session ids: HMAC-SHA-256 over the version,
// the role, a random nonce, the issue and expiry times and the owner
// (the principal that initialized the session), with a key
// derived from the configured one. Several keys may be configured: the
// first signs, every one verifies, so a fleet can rotate keys without
// ending sessions. A Signer is safe for concurrent use.
type Signer struct {
	macs     []*sync.Pool // one pool of keyed HMACs per key; macs[0] signs
	lifetime time.Duration
	now      func() time.Time

	// verified remembers ids whose MAC matched, by their exact text, so
	// that the requests of a session after its first pay a lookup instead
	// of a MAC, a base64 decode and a hex encode (docs/benchmarks.md,
	// "The HTTP rows under load"). Only an id that passed the MAC check enters it,
	// so a forged id never matches an entry; the expiry is checked on
	// every use, and revocation is not the Signer's: the server asks the
	// revoked set on every request, cached id or not. The map's lookup
	// hashes with a per-process random seed and compares whole strings,
	// so its timing says nothing an attacker can use to build a MAC.
	verified      sync.Map // string → ID
	verifiedCount atomic.Int32
}

// maxVerified bounds the remembered ids; when full the memory is
// dropped whole and refills from the sessions in use.
const maxVerified = 4096

// NewSigner returns a Signer for keys (see ParseKeys) whose ids live for
// lifetime (Lifetime when 0).
func NewSigner(keys [][]byte, lifetime time.Duration) (*Signer, error) {
	if len(keys) == 0 {
		return nil, errors.New("no session key")
	}
	if lifetime == 0 {
		lifetime = Lifetime
	}
	if lifetime < time.Second {
		return nil, fmt.Errorf("session lifetime %v: want at least 1s", lifetime)
	}
	s := &Signer{lifetime: lifetime, now: time.Now}
	for i, k := range keys {
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("session key %d has %d bytes, want at least %d", i+1, len(k), MinKeyBytes)
		}
		// The MAC key is derived, so the configured key can serve other
		// purposes later without the two ever colliding.
		d := hmac.New(sha256.New, k)
		d.Write([]byte("vox-mcp session id v1"))
		macKey := d.Sum(nil)
		s.macs = append(s.macs, &sync.Pool{New: func() any { return hmac.New(sha256.New, macKey) }})
	}
	return s, nil
}

// Lifetime is how long the ids of s live.
func (s *Signer) Lifetime() time.Duration { return s.lifetime }

// GenerateKey returns a random key of MinKeyBytes bytes, for a server
// started without one.
func GenerateKey() []byte {
	k := make([]byte, MinKeyBytes)
	if _, err := rand.Read(k); err != nil {
		panic("session: no randomness: " + err.Error()) // crypto/rand never fails on supported platforms
	}
	return k
}

// ParseKeys reads the value of VOX_MCP_SESSION_KEY: one key, or several
// separated by commas (the first signs new ids, all verify). A key is its
// bytes as written, at least MinKeyBytes of them; spaces around a key are
// ignored.
func ParseKeys(value string) ([][]byte, error) {
	var keys [][]byte
	for i, k := range strings.Split(value, ",") {
		k = strings.TrimSpace(k)
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("key %d has %d bytes: each key needs at least %d (make one with: openssl rand -base64 32)", i+1, len(k), MinKeyBytes)
		}
		keys = append(keys, []byte(k))
	}
	return keys, nil
}

// Mint returns a new session id for role and owner, valid from now for
// the Signer's lifetime.
func (s *Signer) Mint(role uint8, owner string) (string, ID) { return s.MintAt(role, owner, s.now()) }

// MintAt returns a new session id for role and owner as if minted at
// issued: for tests, and for tools that need an id of a given age.
func (s *Signer) MintAt(role uint8, owner string, issued time.Time) (string, ID) {
	var b [idBytes]byte
	b[0] = version
	b[1] = role
	if _, err := rand.Read(b[2 : 2+nonceBytes]); err != nil {
		panic("session: no randomness: " + err.Error())
	}
	issued = issued.Truncate(time.Second).UTC()
	expires := issued.Add(s.lifetime)
	binary.BigEndian.PutUint64(b[2+nonceBytes:], uint64(issued.Unix()))
	binary.BigEndian.PutUint64(b[2+nonceBytes+8:], uint64(expires.Unix()))
	s.sum(0, b[:payloadBytes], owner, b[payloadBytes:payloadBytes])
	id := ID{Key: hex.EncodeToString(b[2 : 2+nonceBytes]), Role: role, Owner: owner, Issued: issued, Expires: expires}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), id
}

// sum appends the MAC of payload and owner under key i to out. The
// payload has a fixed length, so the owner after it needs no delimiter.
func (s *Signer) sum(i int, payload []byte, owner string, out []byte) []byte {
	m := s.macs[i].Get().(hash.Hash)
	m.Reset()
	m.Write(payload)
	m.Write([]byte(owner))
	out = m.Sum(out)
	s.macs[i].Put(m)
	return out
}

// Verify checks a session id presented by owner: its format, its MAC
// over the id and owner (in constant time, against every key), then its
// expiry. It holds no state and touches none, so a forged id costs one
// MAC and nothing after.
func (s *Signer) Verify(raw, owner string) (ID, error) {
	if len(raw) != encodedBytes || !strings.HasPrefix(raw, prefix) {
		return ID{}, ErrMalformed
	}
	if v, ok := s.verified.Load(raw); ok {
		// Remembered for the owner whose MAC matched; another owner's
		// MAC would not have.
		if id := v.(ID); hmac.Equal([]byte(id.Owner), []byte(owner)) {
			return s.unexpired(id)
		}
		return ID{}, ErrNotIssued
	}
	var b [idBytes]byte
	if n, err := base64.RawURLEncoding.Decode(b[:], []byte(raw[len(prefix):])); err != nil || n != idBytes {
		return ID{}, ErrMalformed
	}
	if b[0] != version {
		return ID{}, ErrMalformed
	}
	var want [macBytes]byte
	ok := 0
	for i := range s.macs {
		// Every key is tried, so the time taken does not say which matched.
		ok |= subtleEqual(s.sum(i, b[:payloadBytes], owner, want[:0]), b[payloadBytes:])
	}
	if ok != 1 {
		return ID{}, ErrNotIssued
	}
	id := ID{
		Key:     hex.EncodeToString(b[2 : 2+nonceBytes]),
		Role:    b[1],
		Owner:   owner,
		Issued:  time.Unix(int64(binary.BigEndian.Uint64(b[2+nonceBytes:])), 0).UTC(),
		Expires: time.Unix(int64(binary.BigEndian.Uint64(b[2+nonceBytes+8:])), 0).UTC(),
	}
	id, err := s.unexpired(id)
	if err == nil {
		if s.verifiedCount.Add(1) > maxVerified {
			s.verified.Clear()
			s.verifiedCount.Store(1)
		}
		s.verified.Store(raw, id)
	}
	return id, err
}

// unexpired returns id, or ErrExpired once its lifetime is over.
func (s *Signer) unexpired(id ID) (ID, error) {
	if !s.now().Before(id.Expires) {
		return id, fmt.Errorf("%w at %s", ErrExpired, id.Expires.UTC().Format(time.RFC3339))
	}
	return id, nil
}

// subtleEqual is hmac.Equal as 0 or 1.
func subtleEqual(a, b []byte) int {
	if hmac.Equal(a, b) {
		return 1
	}
	return 0
}
