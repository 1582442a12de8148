package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	keyA = []byte("0123456789abcdef0123456789abcdef")
	keyB = []byte("fedcba9876543210fedcba9876543210")
)

// clock is a settable time for the tests.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func signer(t *testing.T, c *clock, keys ...[]byte) *Signer {
	t.Helper()
	s, err := NewSigner(keys, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.now = c.now
	return s
}

// owner is the principal the ids of these tests are minted for.
const owner = "alice@https://auth.example.com"

func TestMintedIDsVerify(t *testing.T) {
	c := newClock()
	s := signer(t, c, keyA)
	raw, minted := s.Mint(1, owner)
	if len(raw) != encodedBytes || !strings.HasPrefix(raw, "vox1.") {
		t.Fatalf("id %q: want %d characters starting with vox1.", raw, encodedBytes)
	}
	for _, r := range raw {
		if r < 0x21 || r > 0x7e {
			t.Fatalf("id %q has %q: session ids must be visible ASCII", raw, r)
		}
	}
	got, err := s.Verify(raw, owner)
	if err != nil {
		t.Fatal(err)
	}
	if got != minted || got.Role != 1 || len(got.Key) != 32 || !got.Issued.Equal(c.t) || !got.Expires.Equal(c.t.Add(Lifetime)) {
		t.Fatalf("verified %+v, minted %+v", got, minted)
	}
	if other, _ := s.Mint(1, owner); other == raw {
		t.Fatal("two ids are equal: the nonce is not random")
	}
}

func TestVerifyRefusesWhatWasNotMinted(t *testing.T) {
	c := newClock()
	s := signer(t, c, keyA)
	raw, _ := s.Mint(0, owner)
	flip := func(i int) string {
		b := []byte(raw)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	foreign, _ := signer(t, c, keyB).Mint(0, owner)
	cases := map[string]struct {
		id   string
		want error
	}{
		"empty":                    {"", ErrMalformed},
		"mcp-go's stateless id":    {"mcp-session-7b6c1f0e-2d7a-4a55-9d0b-3f3b5c2a9e11", ErrMalformed},
		"truncated":                {raw[:len(raw)-1], ErrMalformed},
		"one character more":       {raw + "A", ErrMalformed},
		"another prefix":           {"vox2." + raw[5:], ErrMalformed},
		"not base64":               {raw[:20] + "!" + raw[21:], ErrMalformed},
		"role changed":             {flip(len(prefix) + 2), ErrNotIssued},
		"version changed":          {flip(len(prefix) + 1), ErrMalformed},
		"nonce changed":            {flip(len(prefix) + 5), ErrNotIssued},
		"expiry changed":           {flip(len(prefix) + 42), ErrNotIssued},
		"MAC changed":              {flip(len(raw) - 3), ErrNotIssued},
		"signed with another key":  {foreign, ErrNotIssued},
		"all zero, right length":   {prefix + strings.Repeat("A", encodedBytes-len(prefix)), ErrMalformed},
		"version 1, zero MAC":      {prefix + "AQ" + strings.Repeat("A", encodedBytes-len(prefix)-2), ErrNotIssued},
		"128 bytes of padding out": {raw + strings.Repeat("=", 128), ErrMalformed},
	}
	// The genuine id is verified first, so that it is remembered: none
	// of its alterations may pass for it.
	if _, err := s.Verify(raw, owner); err != nil {
		t.Fatal(err)
	}
	for name, c := range cases {
		if _, err := s.Verify(c.id, owner); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if n := remembered(s); n != 1 {
		t.Errorf("%d ids remembered after one genuine id and %d refused ones, want 1", n, len(cases))
	}
}

// An id is bound to the principal it was minted for: presented by
// another, it does not verify, whether the signer remembers it as
// verified or not, and the owner still uses it.
func TestVerifyRefusesAnotherOwner(t *testing.T) {
	c := newClock()
	s := signer(t, c, keyA)
	for _, remember := range []bool{false, true} {
		raw, _ := s.Mint(0, owner)
		if remember {
			if _, err := s.Verify(raw, owner); err != nil {
				t.Fatal(err)
			}
		}
		for _, other := range []string{"mallory@https://auth.example.com", "", "token:full", owner + "x", owner[:len(owner)-1]} {
			if _, err := s.Verify(raw, other); !errors.Is(err, ErrNotIssued) {
				t.Errorf("remembered %v: the id of %q presented by %q: %v, want ErrNotIssued", remember, owner, other, err)
			}
		}
		if id, err := s.Verify(raw, owner); err != nil || id.Owner != owner {
			t.Errorf("remembered %v: the owner's own id: %+v, %v", remember, id, err)
		}
	}
}

// remembered is the number of ids s remembers as verified.
func remembered(s *Signer) int {
	n := 0
	s.verified.Range(func(_, _ any) bool { n++; return true })
	return n
}

func TestRememberedIDsAreBounded(t *testing.T) {
	c := newClock()
	s := signer(t, c, keyA)
	for range maxVerified + 10 {
		raw, _ := s.Mint(0, owner)
		if _, err := s.Verify(raw, owner); err != nil {
			t.Fatal(err)
		}
	}
	if n := remembered(s); n == 0 || n > maxVerified {
		t.Fatalf("%d ids remembered, want 1 to %d", n, maxVerified)
	}
	// An id minted expired is refused and not remembered.
	old, _ := s.MintAt(0, owner, c.t.Add(-25*time.Hour))
	if _, err := s.Verify(old, owner); !errors.Is(err, ErrExpired) {
		t.Fatalf("an id minted 25 hours ago: %v", err)
	}
	if _, ok := s.verified.Load(old); ok {
		t.Fatal("an expired id was remembered")
	}
}

func TestIDsExpire(t *testing.T) {
	c := newClock()
	s := signer(t, c, keyA)
	raw, id := s.Mint(0, owner)
	c.t = id.Expires.Add(-time.Second)
	if _, err := s.Verify(raw, owner); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	c.t = id.Expires
	_, err := s.Verify(raw, owner)
	if !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "session expired at 2026-03-02T12:00:00Z") {
		t.Fatalf("at expiry: %v", err)
	}
	old, _ := s.MintAt(0, owner, c.t.Add(-25*time.Hour))
	if _, err := s.Verify(old, owner); !errors.Is(err, ErrExpired) {
		t.Fatalf("an id minted 25 hours ago: %v", err)
	}
}

func TestKeyRotation(t *testing.T) {
	c := newClock()
	before := signer(t, c, keyA)
	during := signer(t, c, keyB, keyA) // the new key signs, the old one still verifies
	after := signer(t, c, keyB)
	old, _ := before.Mint(0, owner)
	if _, err := during.Verify(old, owner); err != nil {
		t.Fatalf("an id of the old key during the rotation: %v", err)
	}
	fresh, _ := during.Mint(0, owner)
	for name, s := range map[string]*Signer{"during": during, "after": after} {
		if _, err := s.Verify(fresh, owner); err != nil {
			t.Errorf("%s: an id of the new key: %v", name, err)
		}
	}
	if _, err := after.Verify(old, owner); !errors.Is(err, ErrNotIssued) {
		t.Errorf("after the rotation, an id of the old key: %v", err)
	}
}

func TestParseKeys(t *testing.T) {
	keys, err := ParseKeys(" " + string(keyA) + " , " + string(keyB))
	if err != nil || len(keys) != 2 || string(keys[0]) != string(keyA) || string(keys[1]) != string(keyB) {
		t.Fatalf("%q, %v", keys, err)
	}
	for value, want := range map[string]string{
		"short":                  "key 1 has 5 bytes: each key needs at least 32 (make one with: openssl rand -base64 32)",
		string(keyA) + ",":       "key 2 has 0 bytes",
		"":                       "key 1 has 0 bytes",
		string(keyA) + ",tiny,x": "key 2 has 4 bytes",
	} {
		if _, err := ParseKeys(value); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseKeys(%q) = %v, want %q", value, err, want)
		}
	}
	if _, err := NewSigner([][]byte{[]byte("short")}, 0); err == nil {
		t.Error("NewSigner took a 5-byte key")
	}
	if _, err := NewSigner([][]byte{keyA}, time.Millisecond); err == nil {
		t.Error("NewSigner took a lifetime under a second")
	}
	if k := GenerateKey(); len(k) != MinKeyBytes {
		t.Errorf("generated key of %d bytes", len(k))
	}
}

func TestRevocationsNeverForgetALiveOne(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	r := NewMemoryRevocations(3)
	r.now = c.now
	for i, ttl := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour} {
		if err := r.Revoke(ctx, fmt.Sprint("k", i), c.t.Add(ttl)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Revoke(ctx, "k0", c.t.Add(time.Hour)); err != nil {
		t.Fatalf("revoking a revoked key: %v", err)
	}
	err := r.Revoke(ctx, "k3", c.t.Add(time.Hour))
	var full *FullError
	if !errors.As(err, &full) || !errors.Is(err, ErrFull) || full.RetryAfter != time.Hour || full.Max != 3 {
		t.Fatalf("revoking past the bound: %v", err)
	}
	for i := range 3 {
		if ok, _ := r.Revoked(ctx, fmt.Sprint("k", i)); !ok {
			t.Errorf("k%d was forgotten to make room", i)
		}
	}
	if ok, _ := r.Revoked(ctx, "k3"); ok {
		t.Error("k3 is revoked although Revoke failed")
	}
	// Once the earliest expires, its place is free.
	c.t = c.t.Add(time.Hour)
	if err := r.Revoke(ctx, "k3", c.t.Add(time.Hour)); err != nil {
		t.Fatalf("after the earliest expired: %v", err)
	}
	if r.Len() != 3 {
		t.Errorf("%d keys held, want 3", r.Len())
	}
	// An id that expired needs no entry.
	if err := r.Revoke(ctx, "old", c.t); err != nil || r.Len() != 3 {
		t.Errorf("revoking an expired id: %v, %d keys", err, r.Len())
	}
}

func TestMemoryStoreEndsTheLeastRecentlyUsedSession(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	var ended []string
	fail := false
	m := NewMemoryStore(3, func(key string, _ time.Time) error {
		if fail {
			return &FullError{Max: 1, RetryAfter: time.Minute}
		}
		ended = append(ended, key)
		return nil
	})
	m.now = c.now
	skill := ActiveSkill{ID: "s", Name: "s", Tools: []string{"a"}}
	exp := c.t.Add(time.Hour)
	for _, k := range []string{"stdio", "a", "b"} {
		e := exp
		if k == "stdio" {
			e = time.Time{}
		}
		if err := m.SetActiveSkill(ctx, k, e, skill); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := m.ActiveSkill(ctx, "a"); !ok {
		t.Fatal("a lost its skill")
	}
	// b is now the least recently used that can be ended (stdio never is).
	if err := m.SetActiveSkill(ctx, "c", exp, skill); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0] != "b" {
		t.Fatalf("ended %v, want [b]", ended)
	}
	for k, want := range map[string]bool{"stdio": true, "a": true, "b": false, "c": true} {
		if _, ok, _ := m.ActiveSkill(ctx, k); ok != want {
			t.Errorf("%s has a skill: %v, want %v", k, ok, want)
		}
	}
	// When no session can be ended, the new state is refused and nothing
	// is forgotten.
	fail = true
	err := m.SetActiveSkill(ctx, "d", exp, skill)
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "the state of 3 sessions is kept and none could be ended to make room") {
		t.Fatalf("store full: %v", err)
	}
	if m.Len() != 3 {
		t.Fatalf("%d sessions after a refused set", m.Len())
	}
	// Expired sessions make room without ending anyone.
	c.t = exp
	if err := m.SetActiveSkill(ctx, "d", c.t.Add(time.Hour), skill); err != nil {
		t.Fatalf("after a and c expired: %v", err)
	}
	if m.Len() != 2 || len(ended) != 1 {
		t.Fatalf("%d sessions, ended %v; want stdio and d, nobody else ended", m.Len(), ended)
	}
}

func TestMemoryStoreDropsExpiredState(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	m := NewMemoryStore(10, func(string, time.Time) error { return nil })
	m.now = c.now
	exp := c.t.Add(time.Hour)
	for _, k := range []string{"a", "b"} {
		if err := m.SetActiveSkill(ctx, k, exp, ActiveSkill{ID: k}); err != nil {
			t.Fatal(err)
		}
	}
	c.t = exp
	if _, ok, _ := m.ActiveSkill(ctx, "a"); ok {
		t.Fatal("an expired session still has its skill")
	}
	c.t = c.t.Add(purgeEvery)
	m.ActiveSkill(ctx, "x") // any use purges once a minute
	if m.Len() != 0 {
		t.Fatalf("%d sessions kept after they expired", m.Len())
	}
	if err := m.SetActiveSkill(ctx, "a", c.t.Add(time.Hour), ActiveSkill{ID: "a", Tools: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Drop(ctx, "a"); err != nil || m.Len() != 0 {
		t.Fatalf("Drop: %v, %d left", err, m.Len())
	}
}

// A session's log level and active skill are kept together: clearing the
// skill keeps the level, Drop forgets both, and another session sees
// neither.
func TestMemoryStoreKeepsTheLogLevel(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	m := NewMemoryStore(10, func(string, time.Time) error { return nil })
	m.now = c.now
	exp := c.t.Add(time.Hour)
	if _, ok, _ := m.LogLevel(ctx, "a"); ok {
		t.Fatal("a level before any was set")
	}
	if err := m.SetLogLevel(ctx, "a", exp, "warning"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetActiveSkill(ctx, "a", exp, ActiveSkill{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := m.ClearActiveSkill(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if l, ok, _ := m.LogLevel(ctx, "a"); !ok || l != "warning" {
		t.Errorf("after clearing the skill: level %q %v", l, ok)
	}
	if _, ok, _ := m.LogLevel(ctx, "b"); ok {
		t.Error("b sees a's level")
	}
	if err := m.ClearActiveSkill(ctx, "b"); err != nil || m.Len() != 1 {
		t.Errorf("clearing a session without state: %v, %d sessions", err, m.Len())
	}
	m.Drop(ctx, "a")
	if _, ok, _ := m.LogLevel(ctx, "a"); ok || m.Len() != 0 {
		t.Error("Drop kept the level")
	}
	// An expired session's level is gone.
	m.SetLogLevel(ctx, "c", exp, "debug")
	c.t = exp
	if _, ok, _ := m.LogLevel(ctx, "c"); ok {
		t.Error("an expired session kept its level")
	}
}

// Subscriptions are kept per session with their address, bounded, and
// forgotten with the session.
func TestMemoryStoreSubscriptions(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore(10, func(string, time.Time) error { return nil })
	exp := time.Now().Add(time.Hour)
	for i := range MaxSubscriptions {
		if err := m.Subscribe(ctx, "a", exp, "addr-a", fmt.Sprintf("x://%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Subscribe(ctx, "a", exp, "addr-a", "x://one-more"); err == nil {
		t.Error("a subscription beyond the bound was kept")
	}
	if err := m.Subscribe(ctx, "a", exp, "addr-a", "x://0"); err != nil {
		t.Errorf("subscribing again to a kept URI: %v", err)
	}
	m.Subscribe(ctx, "b", exp, "addr-b", "x://0")
	if got, _ := m.Subscribers(ctx, "x://0"); fmt.Sprint(got) != "[addr-a addr-b]" {
		t.Errorf("subscribers %v", got)
	}
	m.Unsubscribe(ctx, "b", "x://0")
	if got, _ := m.Subscribers(ctx, "x://0"); fmt.Sprint(got) != "[addr-a]" || m.Len() != 1 {
		t.Errorf("after unsubscribing b: %v, %d sessions", got, m.Len())
	}
	m.Drop(ctx, "a")
	if got, _ := m.Subscribers(ctx, "x://0"); len(got) != 0 {
		t.Errorf("after Drop: %v", got)
	}
}

// A session's negotiated protocol version is kept with its other state,
// and is soft: making room forgets a session holding only its version
// before it ends any session, and a session with a log level is ended
// only when no soft one is left.
func TestMemoryStoreProtocolVersionIsSoftState(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	var ended []string
	m := NewMemoryStore(2, func(key string, _ time.Time) error { ended = append(ended, key); return nil })
	m.now = c.now
	exp := c.t.Add(time.Hour)
	if _, ok, _ := m.ProtocolVersion(ctx, "a"); ok {
		t.Fatal("a version before any was set")
	}
	if err := m.SetProtocolVersion(ctx, "a", exp, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLogLevel(ctx, "b", exp, "debug"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetProtocolVersion(ctx, "b", exp, "2025-06-18"); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := m.ProtocolVersion(ctx, "a"); !ok || v != "2025-11-25" {
		t.Fatalf("a's version %q %v", v, ok)
	}
	// a was used last, b holds a level: c's state takes a's place anyway.
	if err := m.SetActiveSkill(ctx, "c", exp, ActiveSkill{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := m.ProtocolVersion(ctx, "a"); ok || len(ended) != 0 {
		t.Fatalf("making room: a kept its version %v, ended %v; want a's version forgotten and no session ended", ok, ended)
	}
	if v, ok, _ := m.ProtocolVersion(ctx, "b"); !ok || v != "2025-06-18" {
		t.Fatalf("b's version %q %v, want kept", v, ok)
	}
	// Only hard state left: the least recently used session (c) is ended.
	if err := m.SetLogLevel(ctx, "d", exp, "info"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ended) != "[c]" {
		t.Fatalf("ended %v, want [c]", ended)
	}
	m.Drop(ctx, "b")
	if _, ok, _ := m.ProtocolVersion(ctx, "b"); ok {
		t.Error("Drop kept the version")
	}
	m.SetProtocolVersion(ctx, "e", exp, "2025-11-25")
	c.t = exp
	if _, ok, _ := m.ProtocolVersion(ctx, "e"); ok {
		t.Error("an expired session kept its version")
	}
}
