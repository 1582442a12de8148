package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// ErrUnknownEvent is returned by EventStore.ReplayEventsAfter for an event
// id the store does not hold for the session: never issued to it, issued
// to another session, or already evicted or purged.
var ErrUnknownEvent = errors.New("unknown event id")

// ErrEventTooLarge is returned by EventStore.StoreEvent for a message over
// the store's per-session byte bound: it is delivered live without an
// event id and cannot be resumed.
var ErrEventTooLarge = errors.New("event larger than the event store keeps for one session")

// EventStore records the messages sent on a session's SSE streams so that
// a client whose stream broke can resume it with Last-Event-ID
// (docs/federation.md §8, "Resumability"). Its methods are those of
// mcp-go's server.EventStore, so that a shared store (fleet mode) plugs in
// the same way as the bounded in-memory one; the server adapts the errors.
//
// Event ids are opaque, unique within a session across all its streams,
// and never contain a line break. A store must be bounded: a session that
// floods must not grow it without limit.
type EventStore interface {
	// StoreEvent records message as the next event of the stream and
	// returns its id. An empty message records a priming event: an id
	// the client may resume from, replayed as nothing.
	StoreEvent(ctx context.Context, sessionID, streamID string, message json.RawMessage) (string, error)
	// ReplayEventsAfter calls send, in order, for every non-empty event
	// recorded after lastEventID on the stream of lastEventID, and returns
	// that stream's id; an id the session does not hold is an error
	// wrapping ErrUnknownEvent.
	ReplayEventsAfter(ctx context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error)
	// PurgeSession forgets every event of the session (it ended).
	PurgeSession(ctx context.Context, sessionID string) error
}

// Bounds of the in-memory event store (docs/federation.md §8).
const (
	// DefaultEventsPerSession is how many events a session keeps.
	DefaultEventsPerSession = 1000
	// DefaultEventBytesPerSession is how many bytes of events a session
	// keeps.
	DefaultEventBytesPerSession = 4 << 20
	// DefaultEventBytesTotal is how many bytes of events an instance
	// keeps for all sessions together.
	DefaultEventBytesTotal = 64 << 20
	// eventOverhead is what an event costs besides its message and stream
	// id: the struct, the slice slot, the id.
	eventOverhead = 64
)

// MemoryEventStore is the bounded in-memory EventStore of one instance.
// Each session keeps at most its last perSession events and perSessionBytes
// bytes (the oldest go first); all sessions together keep at most
// totalBytes, and to stay under it the oldest events of the session
// holding the most bytes go first, so that a flooding session evicts its
// own events before anyone else's. A resume from an evicted event is
// refused (ErrUnknownEvent) rather than silently skipping what was lost.
type MemoryEventStore struct {
	mu                          sync.Mutex
	perSession, perSessionBytes int
	totalBytes, bytes           int
	sessions                    map[string]*eventLog
}

type eventLog struct {
	next   uint64 // the sequence number of the next event
	events []storedEvent
	bytes  int
}

type storedEvent struct {
	seq     uint64
	stream  string
	message json.RawMessage
}

func (e storedEvent) size() int { return len(e.message) + len(e.stream) + eventOverhead }

// NewMemoryEventStore returns an empty store with the given bounds; a
// bound of 0 or less takes its default.
func NewMemoryEventStore(perSession, perSessionBytes, totalBytes int) *MemoryEventStore {
	if perSession <= 0 {
		perSession = DefaultEventsPerSession
	}
	if perSessionBytes <= 0 {
		perSessionBytes = DefaultEventBytesPerSession
	}
	if totalBytes <= 0 {
		totalBytes = DefaultEventBytesTotal
	}
	return &MemoryEventStore{perSession: perSession, perSessionBytes: perSessionBytes, totalBytes: totalBytes, sessions: map[string]*eventLog{}}
}

// StoreEvent records message on the stream; see EventStore. A message
// that alone exceeds the per-session byte bound is refused with
// ErrEventTooLarge.
func (m *MemoryEventStore) StoreEvent(_ context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	ev := storedEvent{stream: streamID, message: slices.Clone(message)}
	if ev.size() > m.perSessionBytes {
		return "", fmt.Errorf("%w (%d bytes, at most %d)", ErrEventTooLarge, len(message), m.perSessionBytes)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.sessions[sessionID]
	if log == nil {
		log = &eventLog{next: 1}
		m.sessions[sessionID] = log
	}
	ev.seq = log.next
	log.next++
	log.events = append(log.events, ev)
	log.bytes += ev.size()
	m.bytes += ev.size()
	for len(log.events) > m.perSession || log.bytes > m.perSessionBytes {
		m.dropOldest(log)
	}
	for m.bytes > m.totalBytes {
		m.dropOldest(m.largest())
	}
	return strconv.FormatUint(ev.seq, 10), nil
}

// dropOldest evicts the oldest event of log.
func (m *MemoryEventStore) dropOldest(log *eventLog) {
	n := log.events[0].size()
	log.events[0] = storedEvent{}
	log.events = log.events[1:]
	log.bytes -= n
	m.bytes -= n
	if cap(log.events) > 2*m.perSession && len(log.events) < cap(log.events)/4 {
		log.events = slices.Clone(log.events) // let the evicted prefix go
	}
}

// largest is the session holding the most bytes (never empty while the
// store holds any).
func (m *MemoryEventStore) largest() *eventLog {
	var big *eventLog
	for _, log := range m.sessions {
		if big == nil || log.bytes > big.bytes {
			big = log
		}
	}
	return big
}

// ReplayEventsAfter replays the session's events after lastEventID on its
// stream; see EventStore. The events are copied under the lock and sent
// after it, so a slow client never blocks the store.
func (m *MemoryEventStore) ReplayEventsAfter(_ context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error) {
	unknown := fmt.Errorf("%w: %q is not an event of this session the server still holds", ErrUnknownEvent, lastEventID)
	seq, err := strconv.ParseUint(lastEventID, 10, 64)
	if err != nil {
		return "", unknown
	}
	m.mu.Lock()
	log := m.sessions[sessionID]
	if log == nil {
		m.mu.Unlock()
		return "", unknown
	}
	i := sort.Search(len(log.events), func(i int) bool { return log.events[i].seq >= seq })
	if i == len(log.events) || log.events[i].seq != seq {
		m.mu.Unlock()
		return "", unknown
	}
	stream := log.events[i].stream
	var tail []storedEvent
	for _, ev := range log.events[i+1:] {
		if ev.stream == stream && len(ev.message) > 0 {
			tail = append(tail, ev)
		}
	}
	m.mu.Unlock()
	for _, ev := range tail {
		if err := send(strconv.FormatUint(ev.seq, 10), ev.message); err != nil {
			return "", err
		}
	}
	return stream, nil
}

// PurgeSession forgets the session's events.
func (m *MemoryEventStore) PurgeSession(_ context.Context, sessionID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if log := m.sessions[sessionID]; log != nil {
		m.bytes -= log.bytes
		delete(m.sessions, sessionID)
	}
	return nil
}

// Bytes is how many bytes of events the store accounts for (for tests and
// the attack suite).
func (m *MemoryEventStore) Bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// Sessions is how many sessions have events.
func (m *MemoryEventStore) Sessions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
