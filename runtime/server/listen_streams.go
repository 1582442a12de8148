package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A session of a protocol before 2026-07-28 gets the server's
// sampling/createMessage and roots/list requests on its GET event stream
// only (toolcall.WithRequestRoute): mcp-go queues them for the session's
// listening stream, whose pump starts with the session's first GET on
// this instance and then records what it is given, for the client's next
// GET to receive. A call asking a client that never opened its GET stream
// here fails at once, saying so, instead of waiting out wait_ms
// (docs/federation.md §9).

// listenGrace is how long such a call waits for the GET stream to open: a
// client opens it right after initialize, in the background, and may call
// a tool before it is up.
const listenGrace = 2 * time.Second

// listenStreams records, per session key, whether the session opened its
// GET stream on this instance. An entry lasts until the session ends or
// its id expires (dropped at most a minute after).
type listenStreams struct {
	mu        sync.Mutex
	by        map[string]*listenState
	nextPurge time.Time
}

type listenState struct {
	opened  chan struct{} // closed by the session's first GET stream here
	isOpen  bool
	expires time.Time
}

// state returns the entry of key, made when there is none. l.mu is held.
func (l *listenStreams) state(key string, expires time.Time) *listenState {
	now := time.Now()
	if l.by == nil {
		l.by = map[string]*listenState{}
	}
	if !now.Before(l.nextPurge) {
		l.nextPurge = now.Add(time.Minute)
		for k, st := range l.by {
			if !st.expires.IsZero() && !now.Before(st.expires) {
				delete(l.by, k)
			}
		}
	}
	st := l.by[key]
	if st == nil {
		st = &listenState{opened: make(chan struct{}), expires: expires}
		l.by[key] = st
	}
	return st
}

// opened records that the session key opened its GET stream here.
func (l *listenStreams) opened(key string, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.state(key, expires); !st.isOpen {
		st.isOpen = true
		close(st.opened)
	}
}

// await reports whether the session key has opened its GET stream here,
// waiting up to grace for it (or until ctx ends).
func (l *listenStreams) await(ctx context.Context, key string, expires time.Time, grace time.Duration) bool {
	l.mu.Lock()
	st := l.state(key, expires)
	l.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-st.opened:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// forget drops what is known of the session key: it ended.
func (l *listenStreams) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by, key)
}

// requestRoute is the toolcall.WithRequestRoute check of a call of the
// HTTP session hs.
func (p *sessionPlane) requestRoute(hs *httpSession) func(context.Context, string) error {
	return func(ctx context.Context, method string) error {
		if method == string(mcp.MethodElicitationCreate) {
			return nil // it travels on the call's own stream
		}
		if p.listening.await(ctx, hs.id.Key, hs.id.Expires, listenGrace) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%s cannot reach the client: its session has no GET event stream open on this server, where the server sends a session's %s requests (protocols before 2026-07-28; elicitation travels on the call's own stream); the client must open it (GET with its %s) before calling a tool that asks for this",
			method, method, mcpserver.HeaderKeySessionID)
	}
}

// listenWriter tells opened when mcp-go accepts a GET as the session's
// listening stream: it answers 200 once the stream's pump runs.
type listenWriter struct {
	http.ResponseWriter
	opened func()
}

func (w *listenWriter) WriteHeader(status int) {
	if status == http.StatusOK && w.opened != nil {
		w.opened()
		w.opened = nil
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *listenWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *listenWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
