package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/session"
)

// SSE resumability (docs/federation.md §8, "Resumability"): mcp-go records
// every message of a session's SSE streams in an event store, gives it an
// id, and replays a broken stream to a GET with Last-Event-ID. The store
// is session.EventStore (bounded in memory by default; fleet mode plugs in
// a shared one); eventStore adapts it to mcp-go and adds the priming event.

// sseRetry is the reconnection delay a priming event announces (the SSE
// retry field, in milliseconds).
const sseRetry = 1000

// primingSince is the first protocol version whose clients expect a
// priming event (an id with empty data); older clients may try to parse
// the empty data as a message, so they get none.
const primingSince = "2025-11-25"

// eventStore adapts a session.EventStore to mcp-go: errors of unknown ids
// become mcp-go's (so that a resume from one gets 400, not 500), an event
// the store refuses is sent live without an id, and the first event of a
// POST's stream is preceded by a priming event when the request asked for
// one (primer). The events of a POST are recorded on one stream, its
// call's own notifications (call_stream.go) and mcp-go's alike.
type eventStore struct {
	store session.EventStore
	// aliases maps a stream the events of a POST in flight are recorded
	// under, when the server named it, to that POST's *postStream, which
	// knows mcp-go's stream of the POST once mcp-go made it
	// (postStream.recordedStream, liveStream).
	aliases *sync.Map
}

func (e eventStore) StoreEvent(ctx context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	if ps := postStreamFrom(ctx); ps != nil {
		streamID = ps.recordedStream(streamID)
	}
	if p := primerFrom(ctx); p != nil {
		p.prime(func() (string, error) { return e.store.StoreEvent(ctx, sessionID, streamID, nil) })
	}
	return e.store.StoreEvent(ctx, sessionID, streamID, message)
}

func (e eventStore) ReplayEventsAfter(ctx context.Context, sessionID, lastEventID string, send func(string, json.RawMessage) error) (string, error) {
	stream, err := e.store.ReplayEventsAfter(ctx, sessionID, lastEventID, send)
	if errors.Is(err, session.ErrUnknownEvent) {
		return "", fmt.Errorf("%w: %w", mcpserver.ErrUnknownEventID, err)
	}
	if live, ok := e.aliases.Load(stream); ok {
		stream = live.(*postStream).liveStream(ctx)
	}
	return stream, err
}

func (e eventStore) PurgeSession(ctx context.Context, sessionID string) error {
	return e.store.PurgeSession(ctx, sessionID)
}

// primer is the priming event of one POST: the id the store gave it,
// written before the first event of the response once the response is a
// stream. wanted decides, once the first event comes, whether the POST
// gets one (wantsPriming): a POST answered with plain JSON pays nothing.
type primer struct {
	wanted func() bool

	mu      sync.Mutex
	id      string
	tried   bool
	written bool
}

type primerKey struct{}

func primerFrom(ctx context.Context) *primer {
	p, _ := ctx.Value(primerKey{}).(*primer)
	return p
}

// prime records the priming event once, before the stream's first event.
func (p *primer) prime(store func() (string, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tried {
		return
	}
	p.tried = true
	if !p.wanted() {
		return
	}
	if id, err := store(); err == nil {
		p.id = id
	}
}

// sent reports whether the priming event was written to the response.
func (p *primer) sent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written
}

// take returns the priming event's bytes the first time it is called
// after the event was recorded, and nil otherwise.
func (p *primer) take() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written || p.id == "" {
		return nil
	}
	p.written = true
	return fmt.Appendf(nil, "id: %s\nretry: %d\ndata: \n\n", p.id, sseRetry)
}

// wantsPriming reports whether a POST of the session key should start
// its stream with a priming event: the protocol version the session's
// initialize negotiated (recordProtocolVersion) is 2025-11-25 or later
// (and not of the sessionless era, which has no resumability). A session
// whose version is not kept (the store made room, or could not answer)
// is judged by the version the request names, as before sessions kept it.
// The session's version decides because a client may name an older one
// on a request than it negotiated (the conformance suite's SSE polling
// scenario does), and a client that negotiated an older version may not
// understand an event with empty data.
func (s *Server) wantsPriming(ctx context.Context, key string, h http.Header) bool {
	v, ok, err := s.sessions.state.ProtocolVersion(ctx, key)
	if err != nil {
		s.log.Debug("the session's protocol version cannot be read; the request's decides on priming", "err", err)
	}
	if !ok {
		v = h.Get(mcp.HeaderProtocolVersion)
	}
	return v >= primingSince && !mcp.IsModernProtocol(v)
}

// recordProtocolVersion is the AfterInitialize hook: the version an HTTP
// session's initialize negotiated is kept in its state (session.Store),
// where wantsPriming reads it. It is soft state: when it cannot be kept
// the session goes on, judged by each request's version.
func (s *Server) recordProtocolVersion(ctx context.Context, _ any, _ *mcp.InitializeRequest, result *mcp.InitializeResult) {
	if ctx.Value(httpSessionKey{}) == nil {
		return // stdio, or in-process: no SSE streams to prime
	}
	cs := mcpserver.ClientSessionFromContext(ctx)
	if cs == nil || result == nil || mcp.IsModernProtocol(result.ProtocolVersion) {
		return
	}
	id, err := s.sessions.ids.Verify(cs.SessionID())
	if err != nil {
		return // not a session this server minted: nothing to keep
	}
	if err := s.sessions.state.SetProtocolVersion(ctx, id.Key, id.Expires, result.ProtocolVersion); err != nil {
		s.log.Debug("the session's protocol version could not be kept; its requests' versions decide on priming", "err", err)
	}
}

// primingWriter writes the priming event of p before the first bytes of
// an event-stream response.
type primingWriter struct {
	http.ResponseWriter
	p *primer
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

// withPriming arranges the priming event for a POST of a session, sent
// when wanted says so once the response becomes a stream.
func withPriming(ctx context.Context, w http.ResponseWriter, wanted func() bool) (context.Context, http.ResponseWriter) {
	p := &primer{wanted: wanted}
	return context.WithValue(ctx, primerKey{}, p), &primingWriter{ResponseWriter: w, p: p}
}

// errResponseFinished is what a write to a POST's response gets once the
// request has been answered.
var errResponseFinished = errors.New("the response is finished")

// finishedWriter is the response writer mcp-go gets for a POST of a
// session. mcp-go v1.2.1 keeps every POST stream that carried an SSE event,
// with the response writer it was given, until the session ends, so that
// the stream can be resumed: holding net/http's response, its buffers and
// the request — about 11 KB a stream — made a long session's memory grow
// with every call that got a notification (TestSoakHTTP: 42 → 86 MB over
// 9,000 calls). Once the handler has returned, finish drops the reference:
// mcp-go keeps only this struct, and a late write fails like a gone
// connection (the event stays recorded for a resume).
type finishedWriter struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	header http.Header
}

func (f *finishedWriter) Header() http.Header {
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

func (f *finishedWriter) WriteHeader(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w != nil {
		f.w.WriteHeader(status)
	}
}

func (f *finishedWriter) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		return 0, errResponseFinished
	}
	return f.w.Write(b)
}

func (f *finishedWriter) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write
// deadlines) while the request is served; nil afterwards.
func (f *finishedWriter) Unwrap() http.ResponseWriter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w
}

// finish drops the response writer: the request has been answered.
func (f *finishedWriter) finish() {
	f.mu.Lock()
	f.w = nil
	f.mu.Unlock()
}
