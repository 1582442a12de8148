package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

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

// mirror returns the mirror for an answer the store could not give, or
// false when it is too old to answer for the store (never synced, or the
// store last answered more than the grace ago).
func (s *Store) mirror() (states map[string]stateEntry, revoked map[string]time.Time, ok bool) {
	if s.epoch == "" || s.now().Sub(s.lastContact) > s.grace {
		return nil, nil, false
	}
	return s.states, s.revoked, true
}
