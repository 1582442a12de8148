package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// A call's own notifications — progress, and the log messages it sends
// while it runs — travel on the stream that answers its request, in the
// order it sends them, before its response (docs/federation.md §9).
// mcp-go v1.2.1 cannot do that for a session: every stream of the session
// reads the session's one notification channel — the GET stream's pump
// and the forwarder of every POST in flight — so a notification leaves on
// whichever read it first, and a client could see progress 100 before 50
// on another connection. The server therefore writes them itself
// (toolcall.Stream): over HTTP to the POST's response (PostStream), over
// stdio as a line of the output (transport.LineStream). What is not a call's own —
// list changes, resource updates, sampling, elicitation and roots
// requests — still goes mcp-go's way.

// PostStream is the response to one POST of a session, written by mcp-go
// (its events and the answer) and by the server (the call's
// notifications, Notify). It serialises the two by whole SSE events —
// mcp-go writes an event's id line and its data with two writes, and a
// notification must not land between them — and records the server's
// events in the event store on the same stream as mcp-go's, so that a
// client resuming the stream (Last-Event-ID) is replayed both.
type PostStream struct {
	// conn is the request's context: done once the client is gone, when
	// mcp-go stops writing to the response too.
	conn context.Context
	// record stores a notification as the next event of stream and
	// returns its id ("" when it could not be stored: it is sent live
	// without one, as mcp-go does); nil under protocol 2026-07-28, which
	// has no resumability.
	record Recorder
	// aliases is the event store's map from the stream the events are
	// recorded under, when the server named it, to this PostStream
	// (recordedStream).
	aliases *sync.Map

	// mcpHeader is the header map mcp-go sets: it sets it without any
	// lock of ours, so Notify, which may start the response at the same
	// time, never touches it; it is copied to the response when mcp-go
	// starts it.
	mcpHeader http.Header

	mu      sync.Mutex
	w       http.ResponseWriter // nil once the request is answered or the stream closed
	partial []byte              // what mcp-go wrote of an event not complete yet
	started bool                // the status line is written
	// closed: the call closed the stream (closeStream); what mcp-go
	// writes after is recorded for the client's resume and dropped here.
	closed bool

	idMu    sync.Mutex
	stream  string // the stream the POST's events are recorded under
	aliased bool   // stream was named here and noted in aliases
	// mcpStream is mcp-go's stream of the POST once mcp-go made it, when
	// it is not stream; known is closed when it is set or the POST ends.
	mcpStream string
	known     chan struct{}
	ended     bool // the POST ended: known is closed, mcpStream stays
}

// Recorder stores a notification as the next event of stream and
// returns its id.
type Recorder interface {
	RecordEvent(ctx context.Context, stream string, data []byte) (string, error)
}

// NewPostStream is the stream of a POST answered on w; record is nil
// where nothing is recorded (protocol 2026-07-28).
func NewPostStream(conn context.Context, w http.ResponseWriter, record Recorder, aliases *sync.Map) *PostStream {
	p := &PostStream{}
	p.init(conn, w, record, aliases)
	return p
}

func (p *PostStream) init(conn context.Context, w http.ResponseWriter, record Recorder, aliases *sync.Map) {
	p.conn, p.w, p.record, p.aliases, p.mcpHeader = conn, w, record, aliases, http.Header{}
}

type postStreamKey struct{}

// WithPostStream returns ctx carrying p, for the request's notifications
// (toolcall.Stream) and for the event store (recordedStream).
func WithPostStream(ctx context.Context, p *PostStream) context.Context {
	return toolcall.WithStream(context.WithValue(ctx, postStreamKey{}, p), p)
}

func postStreamFrom(ctx context.Context) *PostStream {
	p, _ := ctx.Value(postStreamKey{}).(*PostStream)
	return p
}

// recordedStream is the stream the POST's events are recorded under: the
// first one named — mcp-go's stream of the POST (given), or one minted
// here when the call's own notification comes first (given ""). A minted
// stream is noted in aliases for the POST's life: mcp-go makes its stream
// when it first writes to the POST, and a resume from one of the POST's
// event ids must reach that live stream (EventStore.ReplayEventsAfter,
// liveStream).
func (p *PostStream) recordedStream(given string) string {
	p.idMu.Lock()
	defer p.idMu.Unlock()
	switch {
	case p.stream == "" && given == "":
		b := make([]byte, 16)
		_, _ = rand.Read(b) // never fails (crypto/rand)
		p.stream = "vox-" + hex.EncodeToString(b)
		if p.aliases != nil {
			p.aliased, p.known = true, make(chan struct{})
			p.aliases.Store(p.stream, p)
		}
	case p.stream == "":
		p.stream = given
	case given != "" && given != p.stream && p.aliased && p.mcpStream == "" && !p.ended:
		p.mcpStream = given
		close(p.known)
	}
	return p.stream
}

// liveStream is the stream a resume from one of the POST's events
// attaches to: mcp-go's stream of the POST. Until mcp-go made it — the
// call sent only its own notifications so far, and closed its stream
// (closeStream) or lost its connection — the resume waits for it (or for
// the POST to end: mcp-go then has nothing live, and the recorded events
// are replayed), so that the client, resuming early, is not answered with
// what was recorded so far and an end, missing the call's result. ctx is
// the resume's: a client that goes away stops the wait.
func (p *PostStream) liveStream(ctx context.Context) string {
	select {
	case <-p.known:
	case <-ctx.Done():
	}
	p.idMu.Lock()
	defer p.idMu.Unlock()
	if p.mcpStream != "" {
		return p.mcpStream
	}
	return p.stream
}

// Notify implements toolcall.Stream: n is recorded and written as the
// next event of the response, turning it into an event stream if it is
// not one yet.
func (p *PostStream) Notify(ctx context.Context, n mcp.JSONRPCNotification) (bool, error) {
	data, err := json.Marshal(n)
	if err != nil {
		return true, fmt.Errorf("encoding %s: %w", n.Method, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || p.conn.Err() != nil {
		return false, nil
	}
	if hs, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithStreamableHTTPConfig); ok {
		// mcp-go answers a POST as an event stream once its session was
		// sent a notification: as it is what mcp-go's own sending does.
		hs.UpgradeToSSEWhenReceiveNotification()
	}
	var id string
	if p.record != nil {
		if id, err = p.record.RecordEvent(ctx, p.recordedStream(""), data); err != nil {
			id = ""
		}
	}
	if !p.started {
		h := p.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		p.w.WriteHeader(http.StatusOK)
		p.started = true
	}
	var ev []byte
	if id != "" {
		ev = fmt.Appendf(ev, "id: %s\n", id)
	}
	ev = fmt.Appendf(ev, "event: message\ndata: %s\n\n", data)
	if _, err := p.w.Write(ev); err != nil {
		return true, err
	}
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
	return true, nil
}

// Header is mcp-go's header map (mcpHeader).
func (p *PostStream) Header() http.Header { return p.mcpHeader }

// start copies mcp-go's header to the response the first time mcp-go
// writes; false once the request is answered. p.mu is held.
func (p *PostStream) start(status int) bool {
	if p.w == nil {
		return false
	}
	if !p.started {
		maps.Copy(p.w.Header(), p.mcpHeader)
		p.w.WriteHeader(status)
		p.started = true
	}
	return true
}

// WriteHeader starts the response, unless a notification did already:
// mcp-go then writes its answer as an event of the stream, and its status
// (200) is the one sent.
func (p *PostStream) WriteHeader(status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start(status)
}

// Write writes mcp-go's bytes: a JSON answer as it comes, the events of
// an event stream whole.
func (p *PostStream) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return len(b), nil
	}
	if !p.start(http.StatusOK) {
		return 0, errResponseFinished
	}
	if p.w.Header().Get("Content-Type") != "text/event-stream" {
		return p.w.Write(b)
	}
	p.partial = append(p.partial, b...)
	if !bytes.HasSuffix(p.partial, []byte("\n\n")) {
		return len(b), nil
	}
	_, err := p.w.Write(p.partial)
	p.partial = p.partial[:0]
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

func (p *PostStream) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection while the
// request is served; nil afterwards.
func (p *PostStream) Unwrap() http.ResponseWriter {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w
}

// End is called once the request is answered: the stream carries nothing
// more (a notification sent later goes the session's way), drops its
// reference to the connection's writer (mcp-go keeps the POST's writer
// for the session's life: FinishedWriter), and the alias goes — mcp-go's
// stream is complete, and a resume from it replays what was recorded.
func (p *PostStream) End() {
	p.mu.Lock()
	p.w, p.partial = nil, nil
	p.mu.Unlock()
	p.idMu.Lock()
	defer p.idMu.Unlock()
	if p.aliased {
		p.aliases.Delete(p.stream)
		if p.mcpStream == "" && !p.ended {
			close(p.known)
		}
		p.ended = true
	}
}

// CloseStream ends the POST's event stream while its call goes on (SSE
// polling, SEP-1699; toolcall.CloseStream): the client resumes it with
// Last-Event-ID on a GET and receives the rest there, as every event of
// the stream is recorded (the call's result too: its response is a
// stream). Only a stream whose priming event pr the client has — it holds
// an event id and a retry delay — is closed, and only on HTTP/1.1
// (chunked: the last chunk ends the response; an HTTP/2 stream cannot be
// taken over, and its call keeps it). The connection is taken over
// (hijacked) rather than the handler returning, because mcp-go answers
// the call from the handler's goroutine and the call's context ends with
// it. Held under mu, so no event is cut in two, and what was written is
// flushed first. The call's notifications after it go the session's way
// (Notify reports the stream gone), which a resumed stream receives.
func (p *PostStream) CloseStream(pr *Primer, chunked bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || !p.started || pr == nil || !pr.sent() || !chunked || len(p.partial) > 0 {
		return false
	}
	rc := http.NewResponseController(p.w)
	if rc.Flush() != nil {
		return false
	}
	conn, buf, err := rc.Hijack()
	if err != nil {
		return false
	}
	_, _ = buf.WriteString("0\r\n\r\n")
	_ = buf.Flush()
	_ = conn.Close()
	p.w, p.closed = nil, true
	return true
}
