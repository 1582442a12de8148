// Package fleet is the shared store of fleet mode (docs/federation.md §8,
// "Fleet mode"): several `vox-mcp --http` instances sharing one Redis or
// Valkey (`--store redis://HOST:PORT/DB`) keep there what the in-memory
// default keeps per instance — the per-session state (the active skill,
// the log level, the resource subscriptions, the negotiated protocol
// version)
// and the revoked set — and fan out through its pub/sub what must reach
// every instance: a refresh requested on one rescans on all, and a
// session ended on one ends its open requests on all.
//
// Every read and write goes to the store, so that a request may land on
// any instance. Each instance also keeps a mirror of the store, loaded
// when it (re)subscribes and kept current by the store's messages: when
// the store cannot answer, the mirror decides — a revoked session stays
// refused, a session with an active skill is refused (fail closed: its
// allowlist cannot be read), and a session without state is served — for
// at most Options.Grace after the store last answered. Writes (DELETE,
// activating a skill) are not possible without the store and fail. A
// store that lost its data (restarted without persistence) is detected by
// its epoch key and filled again from the mirrors before it is trusted.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// Defaults of Options.
const (
	// DefaultPrefix starts every key and the channel of the store.
	DefaultPrefix = "vox-mcp"
	// DefaultGrace is how long the mirror answers for a store that
	// cannot: long enough to ride out a restart of the store, short
	// enough that an instance cut off from a store others still reach
	// (whose DELETEs it cannot see) stops serving from a stale mirror.
	DefaultGrace = 30 * time.Second
	// DefaultMaxStates and DefaultMaxRevocations bound the fleet's
	// sessions with state and live revocations (each instance mirrors
	// them: at most about 1 KB per state and 100 bytes per revocation).
	DefaultMaxStates      = 100000
	DefaultMaxRevocations = 100000
	// DefaultMaxSubscriptions bounds the fleet's resource subscriptions
	// (about 150 bytes each in every mirror).
	DefaultMaxSubscriptions = 200000
)

// timeouts of one command: a store that does not answer within them is
// unreachable, and the mirror answers instead.
const (
	dialTimeout = time.Second
	ioTimeout   = time.Second
	// resyncEvery reloads the mirror and drops the expired entries of the
	// store even when nothing failed.
	resyncEvery = time.Minute
	// retryEvery is the pause between attempts to reach a store that
	// failed.
	retryEvery = 250 * time.Millisecond
)

// Options configure Open.
type Options struct {
	// URL is redis://[user:password@]HOST:PORT/DB (rediss:// for TLS).
	URL string
	// Prefix starts every key and the channel; "" means DefaultPrefix.
	Prefix string
	// Grace is how long the mirror answers for an unreachable store; 0
	// means DefaultGrace.
	Grace time.Duration
	// MaxStates and MaxRevocations bound the store; 0 means the defaults.
	MaxStates, MaxRevocations int
	// Logger receives the store's logs; nil discards them.
	Logger *slog.Logger
}

// handlers are what an instance does with what another instance fanned
// out (Store.Listen).
type handlers struct {
	refresh func()
	ended   func(key string)
}

// Store is the shared store of one instance; it implements
// session.Store and session.Revocations.
type Store struct {
	rdb      *redis.Client
	pubsub   *redis.PubSub
	log      *slog.Logger
	grace    time.Duration
	maxState int
	maxRevok int
	maxSubs  int
	instance string
	now      func() time.Time

	epochKey, statesKey, levelsKey, versionsKey, subsKey, revokedKey, channel string

	mu sync.Mutex
	// epoch is the store's epoch the mirror matches; "" until the first
	// sync. A store whose epoch differs lost its data and is not trusted
	// until the mirror has filled it again.
	epoch       string
	lastContact time.Time
	states      map[string]stateEntry
	levels      map[string]valueEntry
	versions    map[string]valueEntry
	subs        map[string]map[string]subEntry // session key → uri →
	revoked     map[string]time.Time
	handlers    handlers

	resyncNow chan struct{}
	stop      context.CancelFunc
	done      chan struct{}
}

type stateEntry struct {
	Expires int64               `json:"e"` // Unix milliseconds; 0 never
	Skill   session.ActiveSkill `json:"s"`
}

func (e stateEntry) live(now time.Time) bool { return live(e.Expires, now) }

// valueEntry is a session's log level (logging/setLevel) in the levels
// hash, or its negotiated protocol version in the versions hash.
type valueEntry struct {
	Expires int64  `json:"e"` // Unix milliseconds; 0 never
	Value   string `json:"l"`
}

// subEntry is one resource subscription of a session: where its
// notifications go (mcp-go's session id).
type subEntry struct {
	Expires int64  `json:"e"` // Unix milliseconds; 0 never
	Address string `json:"a"`
}

// subField is the field of a subscription in the subscriptions hash.
func subField(key, uri string) string { return key + "\x00" + uri }

func live(expires int64, now time.Time) bool { return expires == 0 || now.UnixMilli() < expires }

// event is a message of the store's channel.
type event struct {
	Op      string      `json:"op"` // set, clear, level, unlevel, version, unversion, sub, unsub, revoke, refresh
	Key     string      `json:"key,omitempty"`
	From    string      `json:"from,omitempty"`
	Expires int64       `json:"expires,omitempty"`
	State   *stateEntry `json:"state,omitempty"`
	Level   *valueEntry `json:"level,omitempty"` // of level and version
	Sub     *subEntry   `json:"sub,omitempty"`
	URIs    []string    `json:"uris,omitempty"`
}

// Open connects to the store, subscribes to its channel and loads the
// mirror; it fails when the store cannot be reached, so that an instance
// never starts without knowing the fleet's revocations.
func Open(ctx context.Context, opts Options) (*Store, error) {
	ropts, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("--store %s: want redis://HOST:PORT/DB (or rediss:// for TLS): %v", redact(opts.URL), err)
	}
	ropts.DialTimeout, ropts.ReadTimeout, ropts.WriteTimeout = dialTimeout, ioTimeout, ioTimeout
	// One retry (a pooled connection may have died with a restarted
	// store), and one dial: a store that refuses connections must let
	// the mirror answer at once, not after go-redis's five dials.
	ropts.MaxRetries, ropts.DialerRetries = 1, 1
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	rdb := redis.NewClient(ropts)
	// Commands of traced requests are spans (trace.go).
	rdb.AddHook(traceHook{})
	s := &Store{
		rdb:         rdb,
		log:         opts.Logger,
		grace:       opts.Grace,
		maxState:    opts.MaxStates,
		maxRevok:    opts.MaxRevocations,
		maxSubs:     DefaultMaxSubscriptions,
		instance:    randomID(),
		now:         time.Now,
		epochKey:    prefix + ":epoch",
		statesKey:   prefix + ":states",
		levelsKey:   prefix + ":levels",
		versionsKey: prefix + ":versions",
		subsKey:     prefix + ":subscriptions",
		revokedKey:  prefix + ":revoked",
		channel:     prefix + ":events",
		states:      map[string]stateEntry{},
		levels:      map[string]valueEntry{},
		versions:    map[string]valueEntry{},
		subs:        map[string]map[string]subEntry{},
		revoked:     map[string]time.Time{},
		resyncNow:   make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	// go-redis logs its dial failures on the standard logger, once per
	// failed command while the store is down; the store says it once.
	redisLogger.Do(func() { redis.SetLogger(debugLogger{s.log}) })
	if s.grace <= 0 {
		s.grace = DefaultGrace
	}
	if s.maxState <= 0 {
		s.maxState = DefaultMaxStates
	}
	if s.maxRevok <= 0 {
		s.maxRevok = DefaultMaxRevocations
	}
	s.pubsub = s.rdb.Subscribe(ctx, s.channel)
	fail := func(err error) (*Store, error) {
		_ = s.pubsub.Close()
		_ = s.rdb.Close()
		return nil, fmt.Errorf("--store %s: cannot reach the store: %v (start redis-server or valkey-server there, or fix the URL)", redact(opts.URL), err)
	}
	// Subscribed before the mirror is loaded, so that no change falls
	// between the two.
	if _, err := s.pubsub.Receive(ctx); err != nil {
		return fail(err)
	}
	if err := s.resync(ctx); err != nil {
		return fail(err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	go s.listen(lctx)
	return s, nil
}

var redisLogger sync.Once

// debugLogger is go-redis's logger: the first store's logger at debug
// level.
type debugLogger struct{ l *slog.Logger }

func (d debugLogger) Printf(ctx context.Context, format string, v ...any) {
	d.l.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}

// redact hides the password of a store URL in messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Close stops listening and closes the connections.
func (s *Store) Close() error {
	s.stop()
	err := s.pubsub.Close() // ends a receive in progress
	<-s.done
	return errors.Join(err, s.rdb.Close())
}
