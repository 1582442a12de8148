package transport

import (
	"bufio"
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

// LineFilter is the reader mcp-go's stdio server reads its lines from:
// each non-blank line of In goes through Line first, and only what Line
// returns is read — nil when Line answered the line itself, otherwise
// the line (or its rewrite) ending in a newline. Reading in mcp-go's own
// read goroutine, rather than through a pipe fed by another goroutine,
// keeps a call to one goroutine hand-off as in bare mcp-go
// (docs/benchmarks.md, "Stdio calls at the floor"). An error of Line
// ends the reading as the end of In does.
type LineFilter struct {
	In      *bufio.Reader
	Line    func(line []byte) (pass []byte, err error)
	pending []byte // what is left of the line being passed on
	err     error  // the end of In, or why Line stopped
}

func (r *LineFilter) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.In.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			pass, lerr := r.Line(line)
			if lerr != nil {
				err = lerr
			}
			r.pending = pass
		}
		if err != nil {
			r.err = err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}
