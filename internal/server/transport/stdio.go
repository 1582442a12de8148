package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Stdio framing: one JSON-RPC message per line, written whole.

// LineWriter serialises whole writes to w: mcp-go writes each message with
// one Write, and so does the shim.
type LineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLineWriter is a LineWriter on w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// WriteParts writes parts one after the other with no other write
// between them: one line written in pieces.
func (l *LineWriter) WriteParts(parts ...[]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range parts {
		if _, err := l.w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// WithNewline is line ending in exactly the newline mcp-go reads up to.
func WithNewline(line []byte) []byte {
	if !bytes.HasSuffix(line, []byte("\n")) {
		line = append(line, '\n')
	}
	return line
}

// LineStream is the toolcall.Stream of stdio: a call's notification is
// written as a line of the output before Notify returns, so that it
// precedes the call's response, which mcp-go writes once the handler has
// returned (mcp-go writes what is put on its channel from a goroutine of
// its own, which may come after).
type LineStream struct{ Out io.Writer }

func (l LineStream) Notify(_ context.Context, n mcp.JSONRPCNotification) (bool, error) {
	b, err := json.Marshal(n)
	if err != nil {
		return true, fmt.Errorf("encoding %s: %w", n.Method, err)
	}
	_, err = l.Out.Write(append(b, '\n'))
	return true, err
}
