package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Revocations is the revoked set: the sessions ended before their ids
// expire (DELETE, or the state store making room). An entry is needed
// only until its id expires — after that Verify refuses the id anyway —
// so the set stays bounded by the revocations of one lifetime.
//
// The in-memory implementation serves one instance; fleet mode shares the
// set through its store, so that a DELETE on one instance ends the session
// on all. An implementation that cannot answer returns an error, and the
// server then refuses the request (503) rather than let a possibly
// revoked session through.
type Revocations interface {
	// Revoke records that the session key ends now; expires is when its
	// id expires anyway. Revoking a revoked key is no error.
	Revoke(ctx context.Context, key string, expires time.Time) error
	// Revoked reports whether the session key was revoked.
	Revoked(ctx context.Context, key string) (bool, error)
}

// FullError is the error of Revoke when the set holds its maximum of
// live revocations: the session is not revoked, and no revocation is
// forgotten to make room. RetryAfter is when the earliest entry expires
// and frees its place.
type FullError struct {
	Max        int
	RetryAfter time.Duration
}

func (e *FullError) Error() string {
	return fmt.Sprintf("the revoked set holds its maximum of %d live revocations; a place frees in %v", e.Max, e.RetryAfter.Round(time.Second))
}

// ErrFull matches every *FullError with errors.Is.
var ErrFull = errors.New("session store full")

func (e *FullError) Is(target error) bool { return target == ErrFull }

// MemoryRevocations is the revoked set of one instance, at most max keys.
type MemoryRevocations struct {
	max int
	now func() time.Time

	mu      sync.Mutex
	expires map[string]time.Time
	// earliest is the earliest expiry in the set when it was last
	// purged: before it, a purge cannot free anything.
	earliest time.Time
}

// NewMemoryRevocations returns an empty revoked set of at most max keys.
func NewMemoryRevocations(max int) *MemoryRevocations {
	return &MemoryRevocations{max: max, now: time.Now, expires: map[string]time.Time{}}
}

// Revoke implements Revocations. When the set is full of live
// revocations it returns a *FullError and forgets none of them.
func (m *MemoryRevocations) Revoke(_ context.Context, key string, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if !now.Before(expires) {
		return nil // expired already: Verify refuses it without the set
	}
	if _, ok := m.expires[key]; ok {
		return nil
	}
	if len(m.expires) >= m.max {
		m.purge(now)
	}
	if len(m.expires) >= m.max {
		return &FullError{Max: m.max, RetryAfter: max(m.earliest.Sub(now), time.Second)}
	}
	m.expires[key] = expires
	if m.earliest.IsZero() || expires.Before(m.earliest) {
		m.earliest = expires
	}
	return nil
}

// purge drops the expired entries and recomputes earliest; it runs only
// when the set is full and the earliest entry has expired, so its cost
// is paid once per freed batch.
func (m *MemoryRevocations) purge(now time.Time) {
	if now.Before(m.earliest) {
		return
	}
	m.earliest = time.Time{}
	for k, exp := range m.expires {
		if !now.Before(exp) {
			delete(m.expires, k)
		} else if m.earliest.IsZero() || exp.Before(m.earliest) {
			m.earliest = exp
		}
	}
}

// Revoked implements Revocations.
func (m *MemoryRevocations) Revoked(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	exp, ok := m.expires[key]
	if ok && !m.now().Before(exp) {
		delete(m.expires, key)
		return false, nil
	}
	return ok, nil
}

// Len is the number of keys held, expired ones not yet dropped included.
func (m *MemoryRevocations) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.expires)
}

// View is what a request of a session reads from the shared state before
// it is served: whether the session was revoked, and its active skill for
// the allowlist check of the call the request makes.
type View struct {
	Revoked bool
	// Skill is the active skill when HasSkill.
	Skill    ActiveSkill
	HasSkill bool
	// SkillErr is why the active skill could not be read; a call that
	// needs it is then refused (fail closed), as with Store.ActiveSkill.
	SkillErr error
}

// Viewer reads a session's View at once. Fleet mode's store implements
// it, so that a call costs the store one round trip rather than one for
// the revoked set and another for the active skill; the in-memory
// implementations need not.
type Viewer interface {
	// View answers what Revocations.Revoked and Store.ActiveSkill answer
	// for key. An error means that the revocation cannot be answered:
	// the request is refused.
	View(ctx context.Context, key string) (View, error)
}
