package lsp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// The base protocol frames each JSON-RPC message with headers, as HTTP
// does: "Content-Length: N\r\n", optionally "Content-Type: ...\r\n", a
// blank line, then N bytes of JSON. Everything a peer sends is bounded
// before it is allocated (docs/security.md, the LSP case): a header line,
// the number of header lines and the body length have limits, and the body
// buffer is made only once its length is known to be within them.
const (
	// MaxMessageSize is the largest body accepted: far below what could
	// exhaust memory, and above the largest document (MaxDocumentBytes,
	// limits.go) even with every character escaped in JSON, so that a
	// document over its limit arrives and is refused by name rather than
	// ending the session.
	MaxMessageSize = 16 << 20
	maxHeaderLine  = 1024
	maxHeaderLines = 16
)

// FrameError is a framing problem: the stream cannot be read further,
// since where the next message starts is unknown.
type FrameError struct {
	Message int // the 1-based number of the message being read
	Reason  string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("message %d: %s", e.Message, e.Reason)
}

// reader reads framed messages.
type reader struct {
	r *bufio.Reader
	n int // messages read so far
}

func newReader(r io.Reader) *reader { return &reader{r: bufio.NewReaderSize(r, 4096)} }

// read returns the next message's body; io.EOF at a clean end of the
// stream (before any header of a message).
func (m *reader) read() ([]byte, error) {
	m.n++
	length := -1
	for lines := 0; ; lines++ {
		line, err := m.line()
		if err == io.EOF && lines == 0 && len(line) == 0 {
			return nil, io.EOF
		}
		if err != nil {
			if err == io.EOF {
				err = m.fail("the stream ended inside the headers")
			}
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		if lines == maxHeaderLines {
			return nil, m.fail(fmt.Sprintf("more than %d header lines: a message has Content-Length and at most Content-Type", maxHeaderLines))
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, m.fail(fmt.Sprintf("header line %q has no colon: want Name: value", truncate(line)))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type, or a header of a later protocol
		}
		v := string(bytes.TrimSpace(value))
		n, err := strconv.ParseUint(v, 10, 63)
		if err != nil {
			return nil, m.fail(fmt.Sprintf("Content-Length %q is not a number of bytes", truncate([]byte(v))))
		}
		if n > MaxMessageSize {
			return nil, m.fail(fmt.Sprintf("Content-Length %d is over the limit of %d bytes (16 MiB): split the document or check the client", n, MaxMessageSize))
		}
		length = int(n)
	}
	if length < 0 {
		return nil, m.fail("no Content-Length header: every message needs one")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(m.r, body); err != nil {
		return nil, m.fail(fmt.Sprintf("the stream ended after part of a %d-byte body", length))
	}
	return body, nil
}

// line reads one header line without its line ending (CRLF, or a bare LF
// as lenient peers send), at most maxHeaderLine bytes.
func (m *reader) line() ([]byte, error) {
	var out []byte
	for {
		chunk, err := m.r.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxHeaderLine {
			return nil, m.fail(fmt.Sprintf("a header line is longer than %d bytes", maxHeaderLine))
		}
		switch err {
		case nil:
			out = bytes.TrimSuffix(out[:len(out)-1], []byte("\r"))
			return out, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return out, err
		}
	}
}

func (m *reader) fail(reason string) error { return &FrameError{Message: m.n, Reason: reason} }

// truncate shortens what a hostile peer sent before it is quoted in an
// error.
func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// writeMessage frames body onto w.
func writeMessage(w *bufio.Writer, body []byte) error {
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Flush()
}
