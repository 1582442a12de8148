package server

import (
	"net/http"
	"sync"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// deliveryWriter reports to a session's toolcall.Delivery the call
// notifications (progress, log messages) that reach its connection: they
// count once flushed, so that the next notification of a call leaves only
// after this one is on its way (docs/federation.md §9).
type deliveryWriter struct {
	http.ResponseWriter
	d       *toolcall.Delivery
	mu      sync.Mutex
	pending int
}

func newDeliveryWriter(w http.ResponseWriter, d *toolcall.Delivery) http.ResponseWriter {
	if d == nil {
		return w
	}
	return &deliveryWriter{ResponseWriter: w, d: d}
}

func (w *deliveryWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if err == nil {
		if c := toolcall.Count(b); c > 0 {
			w.mu.Lock()
			w.pending += c
			w.mu.Unlock()
		}
	}
	return n, err
}

func (w *deliveryWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	w.mu.Lock()
	n := w.pending
	w.pending = 0
	w.mu.Unlock()
	w.d.Wrote(n)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *deliveryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
