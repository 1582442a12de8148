package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// Events is the session.EventStore of fleet mode: the SSE events of every
// session in the shared store, so that a client may resume a broken
// stream (Last-Event-ID) on any instance (docs/federation.md §8,
// "Resumability"). A session's events are a Redis stream
// (`vox-mcp:events:<session id>`, each entry its SSE stream's id and the
// message; the entry id is the event id), bounded like the in-memory
// store's per session — at most session.DefaultEventsPerSession events
// and session.DefaultEventBytesPerSession bytes, the oldest going first —
// and expiring a session lifetime after its last event.
type Events struct {
	s   *Store
	ttl time.Duration
}

// Events returns the store's event store; events of a session expire ttl
// after its last one (the session lifetime).
func (s *Store) Events(ttl time.Duration) *Events { return &Events{s: s, ttl: ttl} }

// eventOverhead is what an event counts besides its message and stream id,
// as in the in-memory store.
const eventOverhead = 64

// storeEventScript appends an event (stream ARGV[1], message ARGV[2]) to
// the stream KEYS[1], then drops the oldest events while the stream holds
// more than ARGV[3] events or KEYS[2] (its byte count) exceeds ARGV[4],
// and makes both expire in ARGV[5] ms.
var storeEventScript = redis.NewScript(`
local id = redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'm', ARGV[2])
local total = redis.call('INCRBY', KEYS[2], string.len(ARGV[1]) + string.len(ARGV[2]) + ` + fmt.Sprint(eventOverhead) + `)
while redis.call('XLEN', KEYS[1]) > tonumber(ARGV[3]) or total > tonumber(ARGV[4]) do
  local old = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if #old == 0 then break end
  local f = old[1][2]
  redis.call('XDEL', KEYS[1], old[1][1])
  total = redis.call('DECRBY', KEYS[2], string.len(f[2]) + string.len(f[4]) + ` + fmt.Sprint(eventOverhead) + `)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return id
`)

func (e *Events) keys(sessionID string) []string {
	base := e.s.channel + ":" + sessionID
	return []string{base, base + ":bytes"}
}

// StoreEvent implements session.EventStore.
func (e *Events) StoreEvent(ctx context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	if size := len(message) + len(streamID) + eventOverhead; size > session.DefaultEventBytesPerSession {
		return "", fmt.Errorf("%w (%d bytes, at most %d)", session.ErrEventTooLarge, len(message), session.DefaultEventBytesPerSession)
	}
	id, err := storeEventScript.Run(ctx, e.s.rdb, e.keys(sessionID), streamID, string(message),
		session.DefaultEventsPerSession, session.DefaultEventBytesPerSession, e.ttl.Milliseconds()).Text()
	if err != nil {
		return "", unreachable(err)
	}
	return id, nil
}

// ReplayEventsAfter implements session.EventStore.
func (e *Events) ReplayEventsAfter(ctx context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error) {
	key := e.keys(sessionID)[0]
	first, err := e.s.rdb.XRangeN(ctx, key, lastEventID, lastEventID, 1).Result()
	var re redis.Error
	switch {
	case errors.As(err, &re):
		// Not a stream entry id: never issued by this store.
		return "", fmt.Errorf("%w: %s", session.ErrUnknownEvent, lastEventID)
	case err != nil:
		return "", unreachable(err)
	case len(first) == 0:
		return "", fmt.Errorf("%w: %s (never issued to this session, or no longer kept)", session.ErrUnknownEvent, lastEventID)
	}
	stream, _ := first[0].Values["s"].(string)
	after, err := e.s.rdb.XRange(ctx, key, "("+lastEventID, "+").Result()
	if err != nil {
		return "", unreachable(err)
	}
	for _, m := range after {
		s, _ := m.Values["s"].(string)
		msg, _ := m.Values["m"].(string)
		if s != stream || msg == "" {
			continue
		}
		if err := send(m.ID, json.RawMessage(msg)); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

// PurgeSession implements session.EventStore.
func (e *Events) PurgeSession(ctx context.Context, sessionID string) error {
	if err := e.s.rdb.Del(ctx, e.keys(sessionID)...).Err(); err != nil {
		return unreachable(err)
	}
	return nil
}

var _ session.EventStore = (*Events)(nil)
