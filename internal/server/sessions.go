package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
	"github.com/vox-lang/vox-mcp/internal/session"
)

// Environment variables of the HTTP sessions (docs/federation.md §8).
const (
	// EnvSessionKey holds the key that signs session ids: one key of at
	// least 32 bytes, or several separated by commas (the first signs,
	// all verify). Instances sharing it accept each other's ids; without
	// it a key is generated at start-up, so ids survive neither a restart
	// nor a change of instance.
	EnvSessionKey = "VOX_MCP_SESSION_KEY"
	// EnvSessionLifetime is how long a session id is valid (a Go
	// duration, at least 1s; default 24h).
	EnvSessionLifetime = "VOX_MCP_SESSION_LIFETIME"
)

// Bounds of the session machinery of one instance.
const (
	// maxSessionStates is how many sessions' state (the active skill) an
	// instance keeps; beyond it the least recently used session is ended.
	maxSessionStates = 10000
	// maxRevocations is how many live revocations (sessions ended before
	// their ids expire) an instance remembers; beyond it DELETE answers
	// 503 until the earliest expires.
	maxRevocations = 100000
)

// SessionConfigFromEnv reads VOX_MCP_SESSION_KEY and
// VOX_MCP_SESSION_LIFETIME into Options.SessionKeys and
// Options.SessionLifetime (nil and 0 when unset).
func SessionConfigFromEnv(getenv func(string) string) (keys [][]byte, lifetime time.Duration, err error) {
	if v := getenv(EnvSessionKey); v != "" {
		if keys, err = session.ParseKeys(v); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", EnvSessionKey, err)
		}
	}
	if v := strings.TrimSpace(getenv(EnvSessionLifetime)); v != "" {
		lifetime, err = time.ParseDuration(v)
		if err != nil || lifetime < time.Second {
			return nil, 0, fmt.Errorf("%s=%q: want a duration of at least 1s, such as 24h or 30m", EnvSessionLifetime, v)
		}
	}
	return keys, lifetime, nil
}

// sessionPlane is the server's side of sessions (docs/federation.md §8):
// the signer of HTTP session ids, the revoked set, the per-session state
// (shared with stdio, whose process is one session) and the HTTP requests
// open in each session, which end when the session does.
type sessionPlane struct {
	s            *Server
	ids          *session.Signer
	keyGenerated bool
	announce     sync.Once

	revoked session.Revocations
	state   session.Store
	// events are the SSE events of the sessions' streams, for resumption
	// (transport/events.go).
	events session.EventStore
	// shared is the fleet's store, nil outside fleet mode.
	shared SharedStore

	open openRequests
	// listening knows which sessions opened their GET stream here
	// (transport/listen.go).
	listening transport.ListenStreams
}

// openRequest is an HTTP request open in a session. A session's
// requests are a slice rather than a set: a session has few open at once
// (a GET stream and its calls in flight), and the slice costs a request
// one allocation less.
type openRequest struct {
	cancel context.CancelFunc
	shard  *openShard
	key    string
}

// openShardCount spreads the open requests over this many locks by
// session key: every request of a session registers itself and
// unregisters when it ends, and behind one lock 32 calls in flight on two
// cores spent most of their lock waits there (the mutex profile in
// docs/benchmarks.md, "The HTTP rows under load").
const openShardCount = 64

// openRequests are the HTTP requests open in each session, by session key.
type openRequests struct {
	seed   maphash.Seed
	shards [openShardCount]openShard
}

type openShard struct {
	mu sync.Mutex
	by map[string][]*openRequest
	_  [48]byte // a shard per cache line: neighbours' locks do not share one
}

func (o *openRequests) shard(key string) *openShard {
	return &o.shards[maphash.String(o.seed, key)%openShardCount]
}

// sessions is the number of sessions with open requests.
func (o *openRequests) sessions() int {
	n := 0
	for i := range o.shards {
		sh := &o.shards[i]
		sh.mu.Lock()
		n += len(sh.by)
		sh.mu.Unlock()
	}
	return n
}

// SharedStore is the store of fleet mode (internal/fleet.Store;
// docs/federation.md §8, "Fleet mode"): the per-session state and the
// revoked set of every instance, and the channel that fans out refreshes
// and ended sessions.
type SharedStore interface {
	session.Store
	session.Revocations
	// AnnounceRefresh asks every other instance to rescan.
	AnnounceRefresh(ctx context.Context) error
	// Listen sets what this instance does when another announces a
	// refresh (or the store is back after an outage), and when another
	// ends a session.
	Listen(refresh func(), ended func(key string))
}

// ErrStoreNeedsKey refuses fleet mode with session ids signed by a key of
// this process only: other instances would refuse them.
var ErrStoreNeedsKey = errors.New("--store needs " + EnvSessionKey + ": instances sharing a store must accept each other's session ids, so set the same key (32 bytes or more, openssl rand -base64 32 makes one) on every instance")

func newSessionPlane(s *Server, opts Options) (*sessionPlane, error) {
	p := &sessionPlane{s: s, keyGenerated: len(opts.SessionKeys) == 0}
	p.open.seed = maphash.MakeSeed()
	keys := opts.SessionKeys
	if p.keyGenerated {
		if opts.SharedStore != nil {
			return nil, ErrStoreNeedsKey
		}
		keys = [][]byte{session.GenerateKey()}
	}
	var err error
	if p.ids, err = session.NewSigner(keys, opts.SessionLifetime); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSessionKey, err)
	}
	p.events = opts.EventStore
	if p.events == nil {
		p.events = session.NewMemoryEventStore(0, 0, 0)
	}
	if opts.SharedStore != nil {
		p.revoked, p.state, p.shared = opts.SharedStore, opts.SharedStore, opts.SharedStore
		return p, nil
	}
	p.revoked = session.NewMemoryRevocations(maxRevocations)
	p.state = session.NewMemoryStore(maxSessionStates, p.endToMakeRoom)
	return p, nil
}

// joinFleet subscribes to what the other instances of the fleet fan out:
// a refresh (of the workspace, or of the skill folders by an install or
// remove) reads the skill folders and rescans the workspace here too (in the background, one at a time: the
// store's messages wait for nobody), and a session ended elsewhere ends
// its open requests here.
func (p *sessionPlane) joinFleet() {
	if p.shared == nil {
		return
	}
	var pending atomic.Bool
	p.shared.Listen(func() {
		if !pending.CompareAndSwap(false, true) {
			return // a rescan is queued: it will see this change too
		}
		go func() {
			p.s.workspace.refreshMu.Lock() // wait for a running rescan, so that the queued one starts after it
			pending.Store(false)
			p.s.workspace.refreshMu.Unlock()
			if p.s.skills != nil {
				for _, w := range p.s.skills.reg.Hydrate() {
					p.s.log.Warn("fleet: reading the skill folders again: " + w)
				}
			}
			res, err := p.s.workspace.refresh()
			if err != nil {
				p.s.log.Warn("fleet: rescanning after another instance's refresh failed; keeping the previous surface", "err", err)
				return
			}
			p.s.log.Info("fleet: skills and workspace rescanned after another instance's refresh", "tools", res.ToolCount, "resources", res.ResourceCount, "errors", len(res.Errors))
		}()
	}, p.closeOpen)
}

// announceRefresh tells the other instances of the fleet that this one
// refreshed (the workspace, or the skill folders), so that they rescan
// too.
func (p *sessionPlane) announceRefresh() {
	if p.shared == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.shared.AnnounceRefresh(ctx); err != nil {
		p.s.log.Warn("fleet: the other instances could not be told of this refresh; they rescan when the store answers again", "err", err)
	}
}

// announceKey says once, when HTTP serving starts, that the ids depend on
// a generated key.
func (p *sessionPlane) announceKey() {
	p.announce.Do(func() {
		if p.keyGenerated {
			p.s.log.Info("no "+EnvSessionKey+": session ids are signed with a key generated at start-up, so they do not survive a restart and other instances do not accept them; set it (32 bytes or more, the same on every instance) to share sessions",
				"lifetime", p.ids.Lifetime())
		}
	})
}

// endToMakeRoom ends a session so that the state store can keep another's:
// its id is revoked, so its client gets 404 and starts a new session
// instead of silently losing its active skill.
func (p *sessionPlane) endToMakeRoom(key string, expires time.Time) error {
	if err := p.revoked.Revoke(context.Background(), key, expires); err != nil {
		return err
	}
	p.closeOpen(key)
	p.s.log.Warn("ended the least recently used session to keep another's state", "session", key, "sessions", maxSessionStates)
	return nil
}

// sessionRef names the session of a request: its key in the store and the
// expiry of its id (zero for the stdio process, which never expires).
type sessionRef struct {
	key     string
	expires time.Time
}

// processSession is the key of the one session of stdio, and of calls
// without a transport session (in-process dispatch).
const processSession = "stdio"

// errNoSession is the answer of vox_skill_use without a session.
var errNoSession = errors.New(`activating a skill needs a session: use stdio, or HTTP with Mcp-Session-Id; a request of protocol 2026-07-28 names its active skill in _meta["` + MetaActiveSkill + `"]`)

// sessionOf is the session behind ctx: the verified HTTP session, the
// stdio process, or another transport's session. An HTTP request without
// a verified session (protocol 2026-07-28) has none, whatever mcp-go's
// session says.
func sessionOf(ctx context.Context) (sessionRef, bool) {
	switch v := ctx.Value(httpSessionKey{}).(type) {
	case *httpSession:
		return sessionRef{key: v.id.Key, expires: v.id.Expires}, true
	case viaHTTP:
		return sessionRef{}, false
	}
	cs := mcpserver.ClientSessionFromContext(ctx)
	if cs == nil {
		return sessionRef{key: processSession}, true
	}
	id := cs.SessionID()
	return sessionRef{key: id}, id != ""
}

// activeSkill is the active skill of the session behind ctx.
func (p *sessionPlane) activeSkill(ctx context.Context) (session.ActiveSkill, bool, error) {
	if rs, ok := requestSkillFrom(ctx); ok {
		return rs.skill, rs.named, rs.err // named by a request without a session (shim_skill_meta.go)
	}
	ref, ok := sessionOf(ctx)
	if !ok {
		return session.ActiveSkill{}, false, nil
	}
	if hs := httpSessionFrom(ctx); hs != nil && hs.id.Key == ref.key {
		if r := hs.skill.Swap(nil); r != nil {
			return r.skill, r.ok, r.err
		}
	}
	return p.state.ActiveSkill(ctx, ref.key)
}

// setActiveSkill makes skill the active skill of the session behind ctx;
// nil clears it.
func (p *sessionPlane) setActiveSkill(ctx context.Context, skill *session.ActiveSkill) error {
	ref, ok := sessionOf(ctx)
	if !ok {
		return errNoSession
	}
	if hs := httpSessionFrom(ctx); hs != nil {
		hs.skill.Store(nil) // read the store again after the change
	}
	if skill == nil {
		return p.state.ClearActiveSkill(ctx, ref.key)
	}
	return p.state.SetActiveSkill(ctx, ref.key, ref.expires, *skill)
}

// httpSession is a session id the endpoint verified, in the context of the
// request that presented it.
type httpSession struct {
	raw string
	id  session.ID
	// skill is the session's active skill as the store's view read it
	// with the revocation (fleet mode: one round trip, session.Viewer),
	// for the request's allowlist check. It is taken once: a later read in
	// the same request (a batch's next call) asks the store, and a change
	// of the active skill in the request drops it.
	skill atomic.Pointer[skillRead]
}

// skillRead is an answer of session.Store.ActiveSkill.
type skillRead struct {
	skill session.ActiveSkill
	ok    bool
	err   error
}

// httpSessionKey holds a *httpSession, or viaHTTP for a request of the
// HTTP endpoint without one.
type httpSessionKey struct{}

type viaHTTP struct{}

func withHTTPSession(ctx context.Context, hs *httpSession) context.Context {
	return context.WithValue(ctx, httpSessionKey{}, hs)
}

// withHTTP marks a request of the HTTP endpoint that has no session.
func withHTTP(ctx context.Context) context.Context {
	return context.WithValue(ctx, httpSessionKey{}, viaHTTP{})
}

func httpSessionFrom(ctx context.Context) *httpSession {
	hs, _ := ctx.Value(httpSessionKey{}).(*httpSession)
	return hs
}

// sessionError is why a request's session id is refused, with the HTTP
// status that says it.
type sessionError struct {
	status int
	text   string
}

const restart = ": start a new session with initialize"

// verify checks the session id raw presented with the role rl by the
// principal owner: 400 when it is missing, 404 when it was not issued
// (forged, malformed, or signed with another key) or not for this
// principal, expired, belongs to another role or was revoked, and 503
// when the revoked set cannot answer. It holds no state for a refused
// id. A session is bound to the principal that initialized it: another
// principal's token, even of the same role, does not reach it, and the
// owner keeps it (404 as for a session this server does not know, the
// answer the MCP transport specification gives for an unknown session,
// which says nothing of whether it exists).
//
// into, when not nil, is where the session is written (a POST's is part of
// its sessionPost); nil allocates one.
func (p *sessionPlane) verify(ctx context.Context, raw string, rl role, owner string, into *httpSession) (*httpSession, *sessionError) {
	if raw == "" {
		return nil, &sessionError{http.StatusBadRequest, "missing " + mcpserver.HeaderKeySessionID + ": send initialize first, then the " +
			mcpserver.HeaderKeySessionID + " it answered with on every request of the session"}
	}
	id, err := p.ids.Verify(raw, owner)
	switch {
	case errors.Is(err, session.ErrExpired):
		return nil, &sessionError{http.StatusNotFound, fmt.Sprintf("%v (sessions last %v)%s", err, p.ids.Lifetime(), restart)}
	case errors.Is(err, session.ErrNotIssued):
		return nil, &sessionError{http.StatusNotFound, "session not found: the " + mcpserver.HeaderKeySessionID + " was not issued by this server or one sharing its " +
			EnvSessionKey + " (a server started without it forgets its sessions when it restarts), or not to this token's principal (a session belongs to the principal that initialized it)" + restart}
	case err != nil:
		return nil, &sessionError{http.StatusNotFound, "session not found: the " + mcpserver.HeaderKeySessionID + " is not a vox-mcp session id" + restart}
	}
	if id.Role != uint8(rl) {
		return nil, &sessionError{http.StatusNotFound, "session not found for this token: the session was started with another token's role" + restart}
	}
	hs := into
	if hs == nil {
		hs = &httpSession{}
	}
	hs.raw, hs.id = raw, id
	var revoked bool
	if v, ok := p.shared.(session.Viewer); ok { // fleet mode: the revoked set and the state are one store
		var view session.View
		if view, err = v.View(ctx, id.Key); err == nil {
			revoked = view.Revoked
			hs.skill.Store(&skillRead{skill: view.Skill, ok: view.HasSkill, err: view.SkillErr})
		}
	} else {
		revoked, err = p.revoked.Revoked(ctx, id.Key)
	}
	if err != nil {
		p.s.log.Error("http: the revoked set cannot be read; refusing the request", "err", err)
		return nil, &sessionError{http.StatusServiceUnavailable, "the session cannot be checked right now (" + err.Error() + "): try again"}
	}
	if revoked {
		return nil, &sessionError{http.StatusNotFound, "session ended (DELETE)" + restart}
	}
	return hs, nil
}

// end ends the session hs at its client's request (DELETE): it revokes the
// id, drops the session's state and ends its open requests here. A
// revocation that cannot be recorded leaves the session as it was and
// answers 503, with Retry-After when the revoked set is full.
func (p *sessionPlane) end(ctx context.Context, w http.ResponseWriter, hs *httpSession) bool {
	if err := p.revoked.Revoke(ctx, hs.id.Key, hs.id.Expires); err != nil {
		var full *session.FullError
		if errors.As(err, &full) {
			w.Header().Set("Retry-After", fmt.Sprint(int(full.RetryAfter.Seconds())))
		}
		p.s.log.Warn("http: cannot end a session; it stays valid until it expires", "session", hs.id.Key, "err", err)
		http.Error(w, "the session cannot be ended right now ("+err.Error()+"): it stays valid until "+hs.id.Expires.UTC().Format(time.RFC3339)+"; try again", http.StatusServiceUnavailable)
		return false
	}
	dropped := "none"
	if skill, ok, err := p.state.ActiveSkill(ctx, hs.id.Key); err == nil && ok {
		dropped = "active skill " + skill.ID + " dropped"
	}
	if err := p.state.Drop(ctx, hs.id.Key); err != nil {
		// The id is revoked, so nobody can reach the state any more; it
		// expires with the session.
		p.s.log.Warn("http: the ended session's state could not be dropped; it expires with the session", "session", hs.id.Key, "err", err)
	}
	p.closeOpen(hs.id.Key)
	p.s.opts.Metrics.SessionEnded(time.Since(hs.id.Issued)) // metrics.go
	p.s.log.Debug("http session ended", "session", hs.id.Key, "reason", "DELETE", "state", dropped)
	return true
}

// track registers a request of the session key, so that the session's end
// ends it too; done unregisters it.
func (p *sessionPlane) track(ctx context.Context, key string) (context.Context, *openRequest) {
	o := &openRequest{}
	return p.trackInto(ctx, key, o), o
}

// trackInto is track with the record o allocated by the caller (a POST's
// is part of its sessionPost).
func (p *sessionPlane) trackInto(ctx context.Context, key string, o *openRequest) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	*o = openRequest{cancel: cancel, shard: p.open.shard(key), key: key}
	sh := o.shard
	sh.mu.Lock()
	if sh.by == nil {
		sh.by = map[string][]*openRequest{}
	}
	sh.by[key] = append(sh.by[key], o)
	sh.mu.Unlock()
	return ctx
}

// done unregisters the request and ends its context.
func (o *openRequest) done() {
	sh := o.shard
	sh.mu.Lock()
	open := sh.by[o.key]
	if i := slices.Index(open, o); i >= 0 {
		last := len(open) - 1
		open[i], open[last] = open[last], nil
		open = open[:last]
	}
	if len(open) == 0 {
		delete(sh.by, o.key)
	} else {
		sh.by[o.key] = open
	}
	sh.mu.Unlock()
	o.cancel()
}

// closeOpen ends every open request of the session key on this instance
// (its GET event stream above all).
func (p *sessionPlane) closeOpen(key string) {
	p.listening.Forget(key)
	sh := p.open.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, o := range sh.by[key] {
		o.cancel()
	}
}

// ResolveSessionIdManager gives mcp-go the session ids of the request r
// (nil for mcp-go's idle sweeper and its shutdown).
func (p *sessionPlane) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	return requestSessionIDs{p: p, r: r}
}

// requestSessionIDs is mcp-go's SessionIdManager for one request. The
// endpoint verified the request's id before mcp-go sees it, and ended the
// session itself on DELETE, so that it could choose the HTTP status.
type requestSessionIDs struct {
	p *sessionPlane
	r *http.Request
}

func (m requestSessionIDs) role() role {
	if m.r == nil {
		return roleFull
	}
	return roleFrom(m.r.Context())
}

// Generate mints the id of a new session (initialize), bound to the role
// of the request's token and to its principal (docs/security.md, The
// HTTP plane).
func (m requestSessionIDs) Generate() string {
	owner := PrincipalStdio
	if m.r != nil {
		owner = PrincipalFrom(m.r.Context())
	}
	raw, id := m.p.ids.Mint(uint8(m.role()), owner)
	m.p.s.opts.Metrics.SessionStarted("tcp") // metrics.go
	m.p.s.log.Debug("http session started", "session", id.Key, "expires", id.Expires.Format(time.RFC3339))
	return raw
}

// Validate accepts only the id the endpoint verified for this request:
// mcp-go serving any other as a session would mean the two disagree on
// what needs a session, and the request is refused rather than served
// without the session's state.
func (m requestSessionIDs) Validate(raw string) (isTerminated bool, err error) {
	if m.r != nil {
		if hs := httpSessionFrom(m.r.Context()); hs != nil && hs.raw == raw {
			return false, nil
		}
	}
	return false, errors.New("session id not verified by the endpoint")
}

// Terminate does nothing: the endpoint revokes on DELETE before mcp-go
// sees it, and mcp-go's idle sweeper and shutdown must never revoke an
// id, which another instance sharing the key may still be serving.
func (requestSessionIDs) Terminate(string) (isNotAllowed bool, err error) { return false, nil }

// isModern reports whether a request is of protocol 2026-07-28 or later,
// which has no sessions: by its Mcp-Protocol-Version header or the
// protocol version in its body's params._meta, decoded exactly as mcp-go
// decodes it to decide the same (a _meta that does not decode counts as
// none).
func isModern(h http.Header, body []byte) bool {
	if mcp.IsModernProtocol(h.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	var wrapper struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	return body != nil && unmarshal(body, &wrapper) == nil && mcp.IsModernProtocol(wrapper.Params.Meta.ProtocolVersion())
}

// isModernMessage is isModern for a message whose head is decoded
// already, deciding the same without decoding the body again. Params that
// name no _meta are not decoded at all: the key can only be spelled
// without the literal "_meta" through an escape, and any escape decodes.
func isModernMessage(h http.Header, m *rpcMessage) bool {
	if mcp.IsModernProtocol(h.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	if !bytes.Contains(m.Params, []byte("_meta")) && !bytes.Contains(m.Params, []byte(`\`)) {
		return false
	}
	if m.Method == string(mcp.MethodToolsCall) && len(m.ID) > 0 {
		// The params of a call are decoded once, here, for the checks on
		// the call too (call_checks.go); a _meta that does not decode
		// counts as none, as below. Params that do not decode into a
		// call's fields (which mcp-go refuses) are read below for _meta
		// alone.
		if p, ok := decodeCallParams(m.Params); ok {
			m.call = p
			return mcp.IsModernProtocol(p.protocolVersion())
		}
	}
	var params struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	return unmarshal(m.Params, &params) == nil && mcp.IsModernProtocol(params.Meta.ProtocolVersion())
}
