package transport

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// ListenStreams records, per session key, whether the session opened its
// GET stream on this instance. An entry lasts until the session ends or
// its id expires (dropped at most a minute after).
type ListenStreams struct {
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
func (l *ListenStreams) state(key string, expires time.Time) *listenState {
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
func (l *ListenStreams) Opened(key string, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.state(key, expires); !st.isOpen {
		st.isOpen = true
		close(st.opened)
	}
}

// await reports whether the session key has opened its GET stream here,
// waiting up to grace for it (or until ctx ends).
func (l *ListenStreams) Await(ctx context.Context, key string, expires time.Time, grace time.Duration) bool {
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
func (l *ListenStreams) Forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by, key)
}

// ListenWriter tells opened when mcp-go accepts a GET as the session's
// listening stream: it answers 200 once the stream's pump runs.
type ListenWriter struct {
	http.ResponseWriter
	Opened func() // called once mcp-go accepts the stream
}

func (w *ListenWriter) WriteHeader(status int) {
	if status == http.StatusOK && w.Opened != nil {
		w.Opened()
		w.Opened = nil
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *ListenWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *ListenWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
