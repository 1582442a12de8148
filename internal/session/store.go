package session

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ActiveSkill is what the allowlist needs of a session's active skill
// (docs/skills.md §6), taken when it was activated.
type ActiveSkill struct {
	ID, Name string
	// Tools is the allowlist; callers must not modify it.
	Tools []string
}

// Store is the per-session state: everything vox-mcp keeps about a
// session besides its id — the active skill, the log level it asked for
// with logging/setLevel, its resource subscriptions, the protocol version
// its initialize negotiated — so that fleet mode can put all of it in one
// shared store.
//
// A session is named by its key (ID.Key; "stdio" for the process session
// of stdio, which never expires). State is kept until the session's id
// expires (expires; zero for never) or Drop is called when the session
// ends. An implementation that cannot answer returns an error; the server
// then fails closed: a call whose session's active skill cannot be read
// is refused, never let through unrestricted.
type Store interface {
	// ActiveSkill returns the session's active skill; ok is false when it
	// has none.
	ActiveSkill(ctx context.Context, key string) (skill ActiveSkill, ok bool, err error)
	// SetActiveSkill makes skill the session's active skill until the
	// session ends or expires.
	SetActiveSkill(ctx context.Context, key string, expires time.Time, skill ActiveSkill) error
	// ClearActiveSkill removes the session's active skill.
	ClearActiveSkill(ctx context.Context, key string) error
	// LogLevel returns the level the session asked for with
	// logging/setLevel; ok is false when it asked for none.
	LogLevel(ctx context.Context, key string) (level string, ok bool, err error)
	// SetLogLevel keeps the session's log level until the session ends or
	// expires.
	SetLogLevel(ctx context.Context, key string, expires time.Time, level string) error
	// ProtocolVersion returns the protocol version the session's
	// initialize negotiated; ok is false when none is kept.
	ProtocolVersion(ctx context.Context, key string) (version string, ok bool, err error)
	// SetProtocolVersion keeps the session's negotiated protocol version
	// until the session ends or expires. It is soft state: a store short
	// of room may forget it (the server then falls back to the version
	// each request names) rather than end a session to keep it.
	SetProtocolVersion(ctx context.Context, key string, expires time.Time, version string) error
	// Subscribe records that the session wants notifications/resources/updated
	// for uri, delivered to the transport session address (mcp-go's session
	// id), until it unsubscribes, ends or expires. A URI over MaxURIBytes,
	// or one more subscription than MaxSubscriptions or
	// MaxSubscriptionBytes allow, is a *LimitError and nothing is kept.
	Subscribe(ctx context.Context, key string, expires time.Time, address, uri string) error
	// Unsubscribe forgets one subscription; an unknown one is no error.
	Unsubscribe(ctx context.Context, key, uri string) error
	// Subscribers returns the addresses of the live sessions subscribed to
	// uri.
	Subscribers(ctx context.Context, uri string) ([]string, error)
	// Drop forgets everything of the session: it ended.
	Drop(ctx context.Context, key string) error
}

// MemoryStore is the Store of one instance. It keeps the state of at most
// max sessions. To make room for another it first drops the state of
// expired sessions, then the least recently used session whose only state
// is its protocol version (soft state: see Store.SetProtocolVersion), then
// ends the least recently used session through
// end (which revokes it: its client gets 404 and starts a new session),
// so that no live session ever silently loses its state. When end fails
// (the revoked set is full), the new state is refused with an error
// matching ErrFull.
type MemoryStore struct {
	max int
	end func(key string, expires time.Time) error
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]*list.Element // of *entry
	lru      list.List                // front: most recently used
	// nextPurge is when the expired sessions are next dropped, so that an
	// expired session's state goes within purgeEvery even when nobody
	// asks for it.
	nextPurge time.Time
}

// purgeEvery is how often the store drops the state of expired sessions
// while it is used: a scan of at most max entries once a minute.
const purgeEvery = time.Minute

type entry struct {
	key      string
	expires  time.Time // zero: never
	skill    *ActiveSkill
	logLevel string // "": none asked for
	version  string // "": none negotiated (or forgotten to make room)
	address  string // where the subscriptions' notifications go
	subs     map[string]bool
	subBytes int // SubscriptionCost of every subscription in subs
}

// empty reports whether the entry holds no state.
func (e *entry) empty() bool { return e.soft() && e.version == "" }

// soft reports whether the entry holds nothing a session must not lose:
// at most its protocol version.
func (e *entry) soft() bool { return e.skill == nil && e.logLevel == "" && len(e.subs) == 0 }

func (e *entry) expired(now time.Time) bool { return !e.expires.IsZero() && !now.Before(e.expires) }

// NewMemoryStore returns an empty store of at most max sessions; end ends
// a session to make room (see MemoryStore).
func NewMemoryStore(max int, end func(key string, expires time.Time) error) *MemoryStore {
	return &MemoryStore{max: max, end: end, now: time.Now, sessions: map[string]*list.Element{}}
}

// ActiveSkill implements Store; a hit makes the session the most
// recently used.
func (m *MemoryStore) ActiveSkill(_ context.Context, key string) (ActiveSkill, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(key)
	if e == nil || e.skill == nil {
		return ActiveSkill{}, false, nil
	}
	return *e.skill, true, nil
}

// SetActiveSkill implements Store.
func (m *MemoryStore) SetActiveSkill(_ context.Context, key string, expires time.Time, skill ActiveSkill) error {
	skill.Tools = slices.Clone(skill.Tools)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.put(key, expires)
	if err != nil {
		return err
	}
	e.skill = &skill
	return nil
}

// LogLevel implements Store; a hit makes the session the most recently
// used.
func (m *MemoryStore) LogLevel(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(key)
	if e == nil || e.logLevel == "" {
		return "", false, nil
	}
	return e.logLevel, true, nil
}

// SetLogLevel implements Store.
func (m *MemoryStore) SetLogLevel(_ context.Context, key string, expires time.Time, level string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.put(key, expires)
	if err != nil {
		return err
	}
	e.logLevel = level
	return nil
}

// ProtocolVersion implements Store; a hit makes the session the most
// recently used.
func (m *MemoryStore) ProtocolVersion(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(key)
	if e == nil || e.version == "" {
		return "", false, nil
	}
	return e.version, true, nil
}

// SetProtocolVersion implements Store.
func (m *MemoryStore) SetProtocolVersion(_ context.Context, key string, expires time.Time, version string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.put(key, expires)
	if err != nil {
		return err
	}
	e.version = version
	return nil
}

// Subscribe implements Store.
func (m *MemoryStore) Subscribe(_ context.Context, key string, expires time.Time, address, uri string) error {
	if err := CheckSubscribedURI(uri); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.sessions[key]; ok {
		if e := el.Value.(*entry); !e.expired(m.now()) {
			if err := CheckSubscription(len(e.subs), e.subBytes, e.subs[uri], uri); err != nil {
				return err
			}
		}
	}
	e, err := m.put(key, expires)
	if err != nil {
		return err
	}
	if e.subs == nil {
		e.subs = map[string]bool{}
	}
	if !e.subs[uri] {
		e.subs[uri] = true
		e.subBytes += SubscriptionCost(uri)
	}
	e.address = address
	return nil
}

// Unsubscribe implements Store.
func (m *MemoryStore) Unsubscribe(_ context.Context, key, uri string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.sessions[key]; ok {
		e := el.Value.(*entry)
		if e.subs[uri] {
			delete(e.subs, uri)
			e.subBytes -= SubscriptionCost(uri)
		}
		if e.empty() {
			m.remove(el)
		}
	}
	return nil
}

// Subscribers implements Store: a scan of the sessions with state, at
// most the store's bound.
func (m *MemoryStore) Subscribers(_ context.Context, uri string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var out []string
	for _, el := range m.sessions {
		if e := el.Value.(*entry); e.subs[uri] && !e.expired(now) {
			out = append(out, e.address)
		}
	}
	slices.Sort(out)
	return out, nil
}

// get returns the live entry of key, made the most recently used, or nil.
// It holds mu.
func (m *MemoryStore) get(key string) *entry {
	now := m.now()
	m.purgeDue(now)
	el, ok := m.sessions[key]
	if !ok {
		return nil
	}
	e := el.Value.(*entry)
	if e.expired(now) {
		m.remove(el)
		return nil
	}
	m.lru.MoveToFront(el)
	return e
}

// put returns the entry of key, made the most recently used with its
// expiry updated, adding it (and making room) when there is none. It
// holds mu.
func (m *MemoryStore) put(key string, expires time.Time) (*entry, error) {
	now := m.now()
	m.purgeDue(now)
	if el, ok := m.sessions[key]; ok {
		e := el.Value.(*entry)
		if e.expired(now) {
			*e = entry{key: key}
		}
		e.expires = expires
		m.lru.MoveToFront(el)
		return e, nil
	}
	if len(m.sessions) >= m.max {
		if err := m.makeRoom(now); err != nil {
			return nil, err
		}
	}
	e := &entry{key: key, expires: expires}
	m.sessions[key] = m.lru.PushFront(e)
	return e, nil
}

// makeRoom frees one place: the expired sessions go first, then the least
// recently used session holding soft state only forgets it, and only then
// is the least recently used session that can expire (never the stdio
// session) ended. It holds mu while end runs: end must not call back
// into m.
func (m *MemoryStore) makeRoom(now time.Time) error {
	m.purge(now)
	if len(m.sessions) < m.max {
		return nil
	}
	for el := m.lru.Back(); el != nil; el = el.Prev() {
		if el.Value.(*entry).soft() {
			m.remove(el)
			return nil
		}
	}
	for el := m.lru.Back(); el != nil; el = el.Prev() {
		e := el.Value.(*entry)
		if e.expires.IsZero() {
			continue
		}
		if err := m.end(e.key, e.expires); err != nil {
			return fmt.Errorf("the state of %d sessions is kept and none could be ended to make room (%w): end unused sessions with DELETE, or try again later", m.max, err)
		}
		m.remove(el)
		return nil
	}
	return fmt.Errorf("the state of %d sessions is kept and none can be ended: %w", m.max, ErrFull)
}

// purgeDue drops the expired sessions when a purge is due.
func (m *MemoryStore) purgeDue(now time.Time) {
	if now.Before(m.nextPurge) {
		return
	}
	m.purge(now)
}

// purge drops the state of every expired session.
func (m *MemoryStore) purge(now time.Time) {
	m.nextPurge = now.Add(purgeEvery)
	for el := m.lru.Back(); el != nil; {
		prev := el.Prev()
		if el.Value.(*entry).expired(now) {
			m.remove(el)
		}
		el = prev
	}
}

func (m *MemoryStore) remove(el *list.Element) {
	delete(m.sessions, el.Value.(*entry).key)
	m.lru.Remove(el)
}

// ClearActiveSkill implements Store: the session's other state stays,
// and a session left with none is forgotten.
func (m *MemoryStore) ClearActiveSkill(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.sessions[key]; ok {
		e := el.Value.(*entry)
		e.skill = nil
		if e.empty() {
			m.remove(el)
		}
	}
	return nil
}

// Drop implements Store.
func (m *MemoryStore) Drop(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.sessions[key]; ok {
		m.remove(el)
	}
	return nil
}

// Len is the number of sessions with state, expired ones not yet dropped
// included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
