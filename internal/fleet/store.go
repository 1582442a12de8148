package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/internal/session"
)

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
