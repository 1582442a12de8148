package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// SSE resumability (docs/federation.md §8, "Resumability"): mcp-go records
// every message of a session's SSE streams in an event store, gives it an
// id, and replays a broken stream to a GET with Last-Event-ID. The store
// is session.EventStore (bounded in memory by default; fleet mode plugs in
// a shared one); EventStore adapts it to mcp-go and adds the priming event.

// sseRetry is the reconnection delay a priming event announces (the SSE
// retry field, in milliseconds).
const sseRetry = 1000

// PrimingSince is the first protocol version whose clients expect a
// priming event (an id with empty data); older clients may try to parse
// the empty data as a message, so they get none.
const PrimingSince = "2025-11-25"

// EventStore adapts a session.EventStore to mcp-go: errors of unknown ids
// become mcp-go's (so that a resume from one gets 400, not 500), an event
// the store refuses is sent live without an id, and the first event of a
// POST's stream is preceded by a priming event when the request asked for
// one (Primer). The events of a POST are recorded on one stream, its
// call's own notifications (stream.go) and mcp-go's alike.
type EventStore struct {
	store session.EventStore
	// aliases maps a stream the events of a POST in flight are recorded
	// under, when the server named it, to that POST's *PostStream, which
	// knows mcp-go's stream of the POST once mcp-go made it
	// (PostStream.recordedStream, liveStream).
	aliases *sync.Map
}

// NewEventStore adapts store to mcp-go.
func NewEventStore(store session.EventStore) EventStore {
	return EventStore{store: store, aliases: &sync.Map{}}
}

// Aliases is the map of the streams a POST in flight records its events
// under to that POST's PostStream, for NewPostStream.
func (e EventStore) Aliases() *sync.Map { return e.aliases }

func (e EventStore) StoreEvent(ctx context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	if ps := postStreamFrom(ctx); ps != nil {
		streamID = ps.recordedStream(streamID)
	}
	if p := PrimerFrom(ctx); p != nil {
		p.prime(func() (string, error) { return e.store.StoreEvent(ctx, sessionID, streamID, nil) })
	}
	return e.store.StoreEvent(ctx, sessionID, streamID, message)
}

func (e EventStore) ReplayEventsAfter(ctx context.Context, sessionID, lastEventID string, send func(string, json.RawMessage) error) (string, error) {
	stream, err := e.store.ReplayEventsAfter(ctx, sessionID, lastEventID, send)
	if errors.Is(err, session.ErrUnknownEvent) {
		return "", fmt.Errorf("%w: %w", mcpserver.ErrUnknownEventID, err)
	}
	if live, ok := e.aliases.Load(stream); ok {
		stream = live.(*PostStream).liveStream(ctx)
	}
	return stream, err
}

func (e EventStore) PurgeSession(ctx context.Context, sessionID string) error {
	return e.store.PurgeSession(ctx, sessionID)
}

// Primer is the priming event of one POST: the id the store gave it,
// written before the first event of the response once the response is a
// stream. wanted decides, once the first event comes, whether the POST
// gets one (wantsPriming): a POST answered with plain JSON pays nothing.
type Primer struct {
	wanted PrimingWanter

	mu      sync.Mutex
	id      string
	tried   bool
	written bool
}

type primerKey struct{}

// PrimingWanter decides, once a POST's response becomes a stream,
// whether it gets a priming event.
type PrimingWanter interface{ WantsPriming() bool }

func PrimerFrom(ctx context.Context) *Primer {
	p, _ := ctx.Value(primerKey{}).(*Primer)
	return p
}

// prime records the priming event once, before the stream's first event.
func (p *Primer) prime(store func() (string, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tried {
		return
	}
	p.tried = true
	if !p.wanted.WantsPriming() {
		return
	}
	if id, err := store(); err == nil {
		p.id = id
	}
}

// sent reports whether the priming event was written to the response.
func (p *Primer) sent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written
}

// take returns the priming event's bytes the first time it is called
// after the event was recorded, and nil otherwise.
func (p *Primer) take() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written || p.id == "" {
		return nil
	}
	p.written = true
	return fmt.Appendf(nil, "id: %s\nretry: %d\ndata: \n\n", p.id, sseRetry)
}

// primingWriter writes the priming event of p before the first bytes of
// an event-stream response.
type primingWriter struct {
	http.ResponseWriter
	p *Primer
}

func (w *primingWriter) Write(b []byte) (int, error) {
	if w.Header().Get("Content-Type") == "text/event-stream" {
		if ev := w.p.take(); ev != nil {
			if _, err := w.ResponseWriter.Write(ev); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *primingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *primingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errResponseFinished is what a write to a POST's response gets once the
// request has been answered.
var errResponseFinished = errors.New("the response is finished")

// FinishedWriter is the response writer mcp-go gets for a POST of a
// session. mcp-go v1.2.1 keeps every POST stream that carried an SSE event,
// with the response writer it was given, until the session ends, so that
// the stream can be resumed: holding net/http's response, its buffers and
// the request — about 11 KB a stream — made a long session's memory grow
// with every call that got a notification (TestSoakHTTP: 42 → 86 MB over
// 9,000 calls). Once the handler has returned, finish drops the reference:
// mcp-go keeps only this struct, and a late write fails like a gone
// connection (the event stays recorded for a resume).
type FinishedWriter struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	header http.Header
}

// NewFinishedWriter is a FinishedWriter on w.
func NewFinishedWriter(w http.ResponseWriter) *FinishedWriter { return &FinishedWriter{w: w} }

func (f *FinishedWriter) Header() http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		if f.header == nil {
			f.header = http.Header{}
		}
		return f.header
	}
	return f.w.Header()
}

func (f *FinishedWriter) WriteHeader(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w != nil {
		f.w.WriteHeader(status)
	}
}

func (f *FinishedWriter) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		return 0, errResponseFinished
	}
	return f.w.Write(b)
}

func (f *FinishedWriter) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write
// deadlines) while the request is served; nil afterwards.
func (f *FinishedWriter) Unwrap() http.ResponseWriter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w
}

// Finish drops the response writer: the request has been answered.
func (f *FinishedWriter) Finish() {
	f.mu.Lock()
	f.w = nil
	f.mu.Unlock()
}
