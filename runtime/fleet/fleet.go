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
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/runtime/session"
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

// errEpoch is the scripts' answer when the store's epoch is not the one
// the caller knows: the store lost its data since.
const errEpoch = "VOXEPOCH"

// readScript returns a field of a hash when the store's epoch is ARGV[1].
var readScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('` + errEpoch + `') end
return redis.call('HGET', KEYS[2], ARGV[2])
`)

// viewScript returns the fields KEYS[2] and KEYS[3] named ARGV[2] (the
// session's revocation and state) when the store's epoch is ARGV[1]: one
// round trip for what a call reads (Store.View).
var viewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('` + errEpoch + `') end
return {redis.call('HGET', KEYS[2], ARGV[2]), redis.call('HGET', KEYS[3], ARGV[2])}
`)

// writeScript sets (ARGV[2] = "set", value ARGV[4]) or deletes field
// ARGV[3] (and the fields after ARGV[7]) of hash KEYS[2] and publishes
// ARGV[5] on channel ARGV[6], when the store's epoch is ARGV[1]; a new
// field is refused ("full") when the hash holds ARGV[7] fields.
var writeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('` + errEpoch + `') end
if ARGV[2] == 'set' then
  if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[7]) then return 'full' end
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
else
  redis.call('HDEL', KEYS[2], ARGV[3])
  for i = 8, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
end
redis.call('PUBLISH', ARGV[6], ARGV[5])
return 'ok'
`)

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
	s := &Store{
		rdb:         redis.NewClient(ropts),
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

// Listen sets what this instance does with what others fan out:
// refresh rescans (another instance refreshed, or the store is back after
// an outage during which announcements were lost), and ended ends the
// open requests of a session another instance ended. Set it before
// serving.
func (s *Store) Listen(refresh func(), ended func(key string)) {
	s.mu.Lock()
	s.handlers = handlers{refresh: refresh, ended: ended}
	s.mu.Unlock()
}

// Close stops listening and closes the connections.
func (s *Store) Close() error {
	s.stop()
	err := s.pubsub.Close() // ends a receive in progress
	<-s.done
	return errors.Join(err, s.rdb.Close())
}

// listen applies the channel's messages to the mirror until ctx ends. A
// failed connection is retried; once subscribed again the mirror is
// reloaded (whatever was published meanwhile is lost), and the instance
// rescans, since a refresh may have been announced meanwhile.
func (s *Store) listen(ctx context.Context) {
	defer close(s.done)
	down, reload := false, false
	nextResync := s.now().Add(resyncEvery)
	for ctx.Err() == nil {
		msg, err := s.pubsub.ReceiveTimeout(ctx, ioTimeout)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				_ = s.pubsub.Ping(ctx)
			} else {
				if !down {
					s.log.Error("fleet: the shared store is unreachable; serving from this instance's mirror of it, refusing the calls of sessions with an active skill and every DELETE", "err", err, "grace", s.grace)
					down = true
				}
				sleep(ctx, retryEvery)
				continue
			}
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			// Subscribed again after a failure: reload the mirror.
			reload = true
		case *redis.Message:
			s.touch()
			s.apply(m.Payload)
		case *redis.Pong:
			s.touch()
		}
		if reload {
			// Until the reload succeeds it is tried again, between reads
			// of the channel: the subscription that asked for it is not
			// announced again, and the commands of the calls made during
			// an outage may leave the client refusing to dial for a while
			// after the store is back.
			if err := s.resync(ctx); err != nil {
				s.log.Error("fleet: cannot reload the mirror of the shared store", "err", err)
				sleep(ctx, retryEvery)
				continue
			}
			reload = false
			nextResync = s.now().Add(resyncEvery)
			if down {
				s.log.Info("fleet: the shared store answers again; mirror reloaded, rescanning the workspace")
				down = false
			}
			s.refresh()
		}
		select {
		case <-s.resyncNow:
			nextResync = time.Time{}
		default:
		}
		if !s.now().Before(nextResync) {
			if err := s.resync(ctx); err != nil {
				s.log.Warn("fleet: cannot reload the mirror of the shared store", "err", err)
			}
			nextResync = s.now().Add(resyncEvery)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (s *Store) touch() {
	s.mu.Lock()
	s.lastContact = s.now()
	s.mu.Unlock()
}

func (s *Store) refresh() {
	s.mu.Lock()
	f := s.handlers.refresh
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

// apply applies one message of the channel to the mirror.
func (s *Store) apply(payload string) {
	var ev event
	if err := json.Unmarshal([]byte(payload), &ev); err != nil {
		s.log.Warn("fleet: ignoring a message of the store's channel that is not vox-mcp's", "err", err)
		return
	}
	s.mu.Lock()
	h := s.handlers
	switch ev.Op {
	case "set":
		if ev.State != nil {
			s.states[ev.Key] = *ev.State
		}
	case "clear":
		delete(s.states, ev.Key)
	case "level":
		if ev.Level != nil {
			s.levels[ev.Key] = *ev.Level
		}
	case "unlevel":
		delete(s.levels, ev.Key)
	case "version":
		if ev.Level != nil {
			s.versions[ev.Key] = *ev.Level
		}
	case "unversion":
		delete(s.versions, ev.Key)
	case "sub":
		if ev.Sub != nil && len(ev.URIs) == 1 {
			if s.subs[ev.Key] == nil {
				s.subs[ev.Key] = map[string]subEntry{}
			}
			s.subs[ev.Key][ev.URIs[0]] = *ev.Sub
		}
	case "unsub":
		for _, u := range ev.URIs {
			delete(s.subs[ev.Key], u)
		}
		if len(s.subs[ev.Key]) == 0 {
			delete(s.subs, ev.Key)
		}
	case "revoke":
		s.revoked[ev.Key] = time.UnixMilli(ev.Expires)
	}
	s.mu.Unlock()
	switch {
	case ev.Op == "revoke" && ev.From != s.instance && h.ended != nil:
		h.ended(ev.Key)
	case ev.Op == "refresh" && ev.From != s.instance && h.refresh != nil:
		h.refresh()
	}
}

// resync makes the mirror the store's content. When the store's epoch is
// not the mirror's, the store lost its data (or is another store): the
// mirror's live entries are written back first, so that no revocation or
// active skill is forgotten, and the epoch is adopted after.
func (s *Store) resync(ctx context.Context) error {
	if err := s.rdb.SetNX(ctx, s.epochKey, randomID(), 0).Err(); err != nil {
		return err
	}
	epoch, err := s.rdb.Get(ctx, s.epochKey).Result()
	if err != nil {
		return err
	}
	now := s.now()
	s.mu.Lock()
	known := s.epoch
	var refill, refillLevels, refillVersions, refillSubs, refillRevoked []any
	if known != "" && known != epoch {
		for k, e := range s.states {
			if e.live(now) {
				b, _ := json.Marshal(e)
				refill = append(refill, k, string(b))
			}
		}
		refillLevels = liveValues(s.levels, now)
		refillVersions = liveValues(s.versions, now)
		for k, byURI := range s.subs {
			for u, e := range byURI {
				if live(e.Expires, now) {
					b, _ := json.Marshal(e)
					refillSubs = append(refillSubs, subField(k, u), string(b))
				}
			}
		}
		for k, exp := range s.revoked {
			if now.Before(exp) {
				refillRevoked = append(refillRevoked, k, strconv.FormatInt(exp.UnixMilli(), 10))
			}
		}
	}
	s.mu.Unlock()
	if known != "" && known != epoch {
		s.log.Warn("fleet: the shared store lost its data (its epoch changed); writing this instance's mirror back", "states", len(refill)/2, "revocations", len(refillRevoked)/2)
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i := 0; i < len(refill); i += 2 {
				p.HSetNX(ctx, s.statesKey, refill[i].(string), refill[i+1])
			}
			for i := 0; i < len(refillLevels); i += 2 {
				p.HSetNX(ctx, s.levelsKey, refillLevels[i].(string), refillLevels[i+1])
			}
			for i := 0; i < len(refillVersions); i += 2 {
				p.HSetNX(ctx, s.versionsKey, refillVersions[i].(string), refillVersions[i+1])
			}
			for i := 0; i < len(refillSubs); i += 2 {
				p.HSetNX(ctx, s.subsKey, refillSubs[i].(string), refillSubs[i+1])
			}
			for i := 0; i < len(refillRevoked); i += 2 {
				p.HSetNX(ctx, s.revokedKey, refillRevoked[i].(string), refillRevoked[i+1])
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	rawStates, err := s.rdb.HGetAll(ctx, s.statesKey).Result()
	if err != nil {
		return err
	}
	rawLevels, err := s.rdb.HGetAll(ctx, s.levelsKey).Result()
	if err != nil {
		return err
	}
	rawVersions, err := s.rdb.HGetAll(ctx, s.versionsKey).Result()
	if err != nil {
		return err
	}
	rawSubs, err := s.rdb.HGetAll(ctx, s.subsKey).Result()
	if err != nil {
		return err
	}
	rawRevoked, err := s.rdb.HGetAll(ctx, s.revokedKey).Result()
	if err != nil {
		return err
	}
	states := make(map[string]stateEntry, len(rawStates))
	revoked := make(map[string]time.Time, len(rawRevoked))
	levels, expiredLevels := loadValues(rawLevels, now)
	versions, expiredVersions := loadValues(rawVersions, now)
	subs := map[string]map[string]subEntry{}
	var expiredStates, expiredSubs, expiredRevoked []string
	for k, v := range rawStates {
		var e stateEntry
		if json.Unmarshal([]byte(v), &e) != nil || !e.live(now) {
			expiredStates = append(expiredStates, k)
			continue
		}
		states[k] = e
	}
	for f, v := range rawSubs {
		var e subEntry
		k, u, ok := strings.Cut(f, "\x00")
		if !ok || json.Unmarshal([]byte(v), &e) != nil || !live(e.Expires, now) {
			expiredSubs = append(expiredSubs, f)
			continue
		}
		if subs[k] == nil {
			subs[k] = map[string]subEntry{}
		}
		subs[k][u] = e
	}
	for k, v := range rawRevoked {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || now.UnixMilli() >= ms {
			expiredRevoked = append(expiredRevoked, k)
			continue
		}
		revoked[k] = time.UnixMilli(ms)
	}
	if len(expiredStates) > 0 {
		_ = s.rdb.HDel(ctx, s.statesKey, expiredStates...).Err()
	}
	if len(expiredLevels) > 0 {
		_ = s.rdb.HDel(ctx, s.levelsKey, expiredLevels...).Err()
	}
	if len(expiredVersions) > 0 {
		_ = s.rdb.HDel(ctx, s.versionsKey, expiredVersions...).Err()
	}
	if len(expiredSubs) > 0 {
		_ = s.rdb.HDel(ctx, s.subsKey, expiredSubs...).Err()
	}
	if len(expiredRevoked) > 0 {
		_ = s.rdb.HDel(ctx, s.revokedKey, expiredRevoked...).Err()
	}
	s.mu.Lock()
	s.states, s.levels, s.versions, s.subs, s.revoked, s.epoch, s.lastContact = states, levels, versions, subs, revoked, epoch, s.now()
	s.mu.Unlock()
	return nil
}

// liveValues are the live entries of a mirror of values, as the field and
// value pairs of HSETNX.
func liveValues(m map[string]valueEntry, now time.Time) []any {
	var out []any
	for k, e := range m {
		if live(e.Expires, now) {
			b, _ := json.Marshal(e)
			out = append(out, k, string(b))
		}
	}
	return out
}

// loadValues reads a hash of values into a mirror, with the fields that
// expired (or do not decode) to delete.
func loadValues(raw map[string]string, now time.Time) (map[string]valueEntry, []string) {
	m := make(map[string]valueEntry, len(raw))
	var expired []string
	for k, v := range raw {
		var e valueEntry
		if json.Unmarshal([]byte(v), &e) != nil || !live(e.Expires, now) {
			expired = append(expired, k)
			continue
		}
		m[k] = e
	}
	return m, expired
}

// unreachable is the error of an operation the store could not answer.
func unreachable(err error) error {
	return fmt.Errorf("the shared session store cannot be reached (%v)", err)
}

// readField reads a field of a hash under the known epoch.
func (s *Store) readField(ctx context.Context, hash, field string) (string, bool, error) {
	s.mu.Lock()
	epoch := s.epoch
	s.mu.Unlock()
	v, err := readScript.Run(ctx, s.rdb, []string{s.epochKey, hash}, epoch, field).Text()
	switch {
	case errors.Is(err, redis.Nil):
		s.touch()
		return "", false, nil
	case err != nil:
		s.failed(err)
		return "", false, err
	}
	s.touch()
	return v, true, nil
}

// failed notes an error of the store: an epoch that changed asks for a
// reload of the mirror.
func (s *Store) failed(err error) {
	if isEpoch(err) {
		select {
		case s.resyncNow <- struct{}{}:
		default:
		}
	}
}

// isEpoch reports the scripts' errEpoch (Redis answers it as "ERR
// VOXEPOCH").
func isEpoch(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasSuffix(re.Error(), errEpoch)
}

// mirror returns the mirror for an answer the store could not give, or
// false when it is too old to answer for the store (never synced, or the
// store last answered more than the grace ago).
func (s *Store) mirror() (states map[string]stateEntry, revoked map[string]time.Time, ok bool) {
	if s.epoch == "" || s.now().Sub(s.lastContact) > s.grace {
		return nil, nil, false
	}
	return s.states, s.revoked, true
}

// write runs writeScript and records the change in the mirror.
func (s *Store) write(ctx context.Context, hash, op, key, value string, max int, ev event, moreFields ...string) error {
	ev.From = s.instance
	msg, _ := json.Marshal(ev)
	s.mu.Lock()
	epoch := s.epoch
	s.mu.Unlock()
	args := []any{epoch, op, key, value, string(msg), s.channel, max}
	for _, f := range moreFields {
		args = append(args, f)
	}
	res, err := writeScript.Run(ctx, s.rdb, []string{s.epochKey, hash}, args...).Text()
	if err != nil {
		s.failed(err)
		if isEpoch(err) {
			return unreachable(errors.New("the store lost its data and is being filled again from the instances' mirrors"))
		}
		return unreachable(err)
	}
	s.touch()
	if res == "full" {
		return fmt.Errorf("the shared store holds its maximum of %d entries in %s: %w", max, hash, session.ErrFull)
	}
	s.apply(string(msg))
	return nil
}

// ActiveSkill implements session.Store. When the store cannot answer, a
// session the mirror knows to have an active skill gets an error (its
// calls are refused), and one it knows to have none has none.
func (s *Store) ActiveSkill(ctx context.Context, key string) (session.ActiveSkill, bool, error) {
	v, ok, err := s.readField(ctx, s.statesKey, key)
	if err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, _, usable := s.mirror(); !usable {
			return session.ActiveSkill{}, false, unreachable(err)
		}
		return session.ActiveSkill{}, false, s.mirrorSkillError(key, err)
	}
	if !ok {
		return session.ActiveSkill{}, false, nil
	}
	return s.decodeState(v)
}

// mirrorSkillError is the answer of the mirror for the active skill of
// key when the store failed with err: an error when the session has one
// (fail closed), none when it has none. s.mu is held and the mirror is
// usable.
func (s *Store) mirrorSkillError(key string, err error) error {
	if e, has := s.states[key]; has && e.live(s.now()) {
		return fmt.Errorf("%w, and this session has an active skill whose allowlist must keep applying", unreachable(err))
	}
	return nil
}

// decodeState reads a state field of the store.
func (s *Store) decodeState(v string) (session.ActiveSkill, bool, error) {
	var e stateEntry
	if err := json.Unmarshal([]byte(v), &e); err != nil {
		return session.ActiveSkill{}, false, fmt.Errorf("the shared session store holds a state vox-mcp cannot read for this session (%v)", err)
	}
	if !e.live(s.now()) {
		return session.ActiveSkill{}, false, nil
	}
	return e.Skill, true, nil
}

// View implements session.Viewer: the revocation and the active skill of
// key in one script, so that a call costs one round trip to the store.
// When the store cannot answer, the mirror answers both as Revoked and
// ActiveSkill do: a revoked session stays refused, a session with an
// active skill gets SkillErr (its calls are refused), and past the grace
// the view is an error (the request gets 503).
func (s *Store) View(ctx context.Context, key string) (session.View, error) {
	s.mu.Lock()
	epoch := s.epoch
	s.mu.Unlock()
	res, err := viewScript.Run(ctx, s.rdb, []string{s.epochKey, s.revokedKey, s.statesKey}, epoch, key).Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("the view of a session has %d fields, want 2", len(res))
	}
	if err != nil {
		s.failed(err)
		s.mu.Lock()
		defer s.mu.Unlock()
		_, revoked, usable := s.mirror()
		if !usable {
			return session.View{}, unreachable(err)
		}
		exp, has := revoked[key]
		return session.View{Revoked: has && s.now().Before(exp), SkillErr: s.mirrorSkillError(key, err)}, nil
	}
	s.touch()
	var v session.View
	if r, ok := res[0].(string); ok {
		v.Revoked = s.revokedUntil(r)
	}
	if st, ok := res[1].(string); ok {
		v.Skill, v.HasSkill, v.SkillErr = s.decodeState(st)
	}
	return v, nil
}

// revokedUntil reads a field of the revoked set: revoked until its
// expiry, and for good when it does not read as one.
func (s *Store) revokedUntil(v string) bool {
	ms, err := strconv.ParseInt(v, 10, 64)
	return err != nil || s.now().UnixMilli() < ms
}

// SetActiveSkill implements session.Store.
func (s *Store) SetActiveSkill(ctx context.Context, key string, expires time.Time, skill session.ActiveSkill) error {
	e := stateEntry{Skill: skill}
	if !expires.IsZero() {
		e.Expires = expires.UnixMilli()
	}
	b, _ := json.Marshal(e)
	return s.write(ctx, s.statesKey, "set", key, string(b), s.maxState, event{Op: "set", Key: key, State: &e})
}

// ClearActiveSkill implements session.Store.
func (s *Store) ClearActiveSkill(ctx context.Context, key string) error {
	return s.write(ctx, s.statesKey, "del", key, "", s.maxState, event{Op: "clear", Key: key})
}

// LogLevel implements session.Store. When the store cannot answer, the
// mirror's level serves (a log level widens nothing a session may do).
func (s *Store) LogLevel(ctx context.Context, key string) (string, bool, error) {
	return s.readValue(ctx, s.levelsKey, func() map[string]valueEntry { return s.levels }, key)
}

// SetLogLevel implements session.Store.
func (s *Store) SetLogLevel(ctx context.Context, key string, expires time.Time, level string) error {
	return s.setValue(ctx, s.levelsKey, "level", key, expires, level)
}

// ProtocolVersion implements session.Store. When the store cannot answer,
// the mirror's version serves (it decides only whether a stream starts
// with a priming event).
func (s *Store) ProtocolVersion(ctx context.Context, key string) (string, bool, error) {
	return s.readValue(ctx, s.versionsKey, func() map[string]valueEntry { return s.versions }, key)
}

// SetProtocolVersion implements session.Store; a full store refuses it
// (session.ErrFull) like any other state, and the server goes without.
func (s *Store) SetProtocolVersion(ctx context.Context, key string, expires time.Time, version string) error {
	return s.setValue(ctx, s.versionsKey, "version", key, expires, version)
}

// readValue reads a session's value of a hash of values; the mirror
// (mirrored, called under mu) answers for a store that cannot.
func (s *Store) readValue(ctx context.Context, hash string, mirrored func() map[string]valueEntry, key string) (string, bool, error) {
	v, ok, err := s.readField(ctx, hash, key)
	if err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, _, usable := s.mirror(); !usable {
			return "", false, unreachable(err)
		}
		e, has := mirrored()[key]
		if !has || !live(e.Expires, s.now()) {
			return "", false, nil
		}
		return e.Value, true, nil
	}
	var e valueEntry
	if !ok || json.Unmarshal([]byte(v), &e) != nil || !live(e.Expires, s.now()) {
		return "", false, nil
	}
	return e.Value, true, nil
}

// setValue sets a session's value in a hash of values, announced as op.
func (s *Store) setValue(ctx context.Context, hash, op, key string, expires time.Time, value string) error {
	e := valueEntry{Value: value}
	if !expires.IsZero() {
		e.Expires = expires.UnixMilli()
	}
	b, _ := json.Marshal(e)
	return s.write(ctx, hash, "set", key, string(b), s.maxState, event{Op: op, Key: key, Level: &e})
}

// Subscribe implements session.Store. A URI over session.MaxURIBytes
// never reaches the store. The bounds of session.MaxSubscriptions and
// session.MaxSubscriptionBytes per session are checked against the
// mirror, so that concurrent subscriptions of one session through several
// instances may pass them by the few the channel has not delivered yet
// (each of at most MaxURIBytes).
func (s *Store) Subscribe(ctx context.Context, key string, expires time.Time, address, uri string) error {
	if err := session.CheckSubscribedURI(uri); err != nil {
		return err
	}
	if err := session.CheckSubscription(s.mirroredSubscriptions(key, uri)); err != nil {
		return err
	}
	e := subEntry{Address: address}
	if !expires.IsZero() {
		e.Expires = expires.UnixMilli()
	}
	b, _ := json.Marshal(e)
	return s.write(ctx, s.subsKey, "set", subField(key, uri), string(b), s.maxSubs, event{Op: "sub", Key: key, URIs: []string{uri}, Sub: &e})
}

// Unsubscribe implements session.Store.
func (s *Store) Unsubscribe(ctx context.Context, key, uri string) error {
	return s.write(ctx, s.subsKey, "del", subField(key, uri), "", s.maxSubs, event{Op: "unsub", Key: key, URIs: []string{uri}})
}

// Subscribers implements session.Store from the mirror, which the
// channel keeps current: a notification is best effort (a session not
// listening misses it), and reading every subscription of the fleet from
// the store for each would cost a scan of it.
func (s *Store) Subscribers(_ context.Context, uri string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, usable := s.mirror(); !usable {
		return nil, unreachable(errors.New("no answer within the grace period"))
	}
	now := s.now()
	var out []string
	for _, byURI := range s.subs {
		if e, ok := byURI[uri]; ok && live(e.Expires, now) {
			out = append(out, e.Address)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Drop implements session.Store: the session's active skill, log level,
// protocol version and subscriptions go.
func (s *Store) Drop(ctx context.Context, key string) error {
	if err := s.ClearActiveSkill(ctx, key); err != nil {
		return err
	}
	if err := s.write(ctx, s.levelsKey, "del", key, "", s.maxState, event{Op: "unlevel", Key: key}); err != nil {
		return err
	}
	if err := s.write(ctx, s.versionsKey, "del", key, "", s.maxState, event{Op: "unversion", Key: key}); err != nil {
		return err
	}
	s.mu.Lock()
	var uris, fields []string
	for u := range s.subs[key] {
		uris = append(uris, u)
		fields = append(fields, subField(key, u))
	}
	s.mu.Unlock()
	if len(fields) == 0 {
		return nil
	}
	return s.write(ctx, s.subsKey, "del", fields[0], "", s.maxSubs, event{Op: "unsub", Key: key, URIs: uris}, fields[1:]...)
}

// Revoke implements session.Revocations; every instance ends the
// session's open requests.
func (s *Store) Revoke(ctx context.Context, key string, expires time.Time) error {
	if !s.now().Before(expires) {
		return nil // expired already: Verify refuses it without the set
	}
	ms := expires.UnixMilli()
	err := s.write(ctx, s.revokedKey, "set", key, strconv.FormatInt(ms, 10), s.maxRevok, event{Op: "revoke", Key: key, Expires: ms})
	if errors.Is(err, session.ErrFull) {
		return &session.FullError{Max: s.maxRevok, RetryAfter: resyncEvery}
	}
	return err
}

// Revoked implements session.Revocations; the mirror answers for a store
// that cannot.
func (s *Store) Revoked(ctx context.Context, key string) (bool, error) {
	v, ok, err := s.readField(ctx, s.revokedKey, key)
	if err != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, revoked, usable := s.mirror()
		if !usable {
			return false, unreachable(err)
		}
		exp, has := revoked[key]
		return has && s.now().Before(exp), nil
	}
	if !ok {
		return false, nil
	}
	return s.revokedUntil(v), nil
}

// AnnounceRefresh asks every other instance to rescan.
func (s *Store) AnnounceRefresh(ctx context.Context) error {
	msg, _ := json.Marshal(event{Op: "refresh", From: s.instance})
	if err := s.rdb.Publish(ctx, s.channel, msg).Err(); err != nil {
		return unreachable(err)
	}
	return nil
}

var (
	_ session.Store       = (*Store)(nil)
	_ session.Revocations = (*Store)(nil)
	_ session.Viewer      = (*Store)(nil)
)
