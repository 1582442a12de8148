package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// HTTP framing: the bound on a body and its read, the DNS-rebinding
// check, JSON-RPC answers as HTTP responses, and the recorder of one
// message's answer in a batch.

// MaxRequestBody bounds one POST body: far above any real call (a 10 MB
// argument still reaches the tool, which answers with an error result),
// low enough that one request cannot exhaust memory.
const MaxRequestBody = 64 << 20

// IsLoopback reports whether a listen host is loopback: "localhost", an
// address in 127.0.0.0/8, or ::1 (IPv4-mapped forms included).
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// ReadAllSized is io.ReadAll for a body whose Content-Length is size (-1
// when unknown): a body of known size is read into a buffer of exactly
// that size — io.ReadAll starts at 512 bytes and grows, which for the
// typical 100-byte call allocated five times what it kept, on every
// call. A body that is shorter or longer than it said is read on as
// io.ReadAll would, so the outcome is the same.
func ReadAllSized(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 || size > MaxRequestBody {
		return io.ReadAll(r)
	}
	// One byte of room beyond size, to see the end without another
	// buffer.
	buf := make([]byte, size, size+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return buf[:n], nil // shorter than announced: what came, as io.ReadAll
	case err != nil:
		return buf[:n], err
	}
	// Read on to the end, as io.ReadAll does: net/http notices a client
	// that goes away only once the body is read to its end.
	for {
		m, err := r.Read(buf[size : size+1])
		switch {
		case m > 0:
			rest, err := io.ReadAll(r)
			return append(buf[:size+1], rest...), err
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// RejectRebinding answers 403 to a request that reached a loopback
// listener with a Host that is not loopback: the DNS-rebinding check
// mcp-go makes too, made here first so that such a request changes no
// session (a DELETE would otherwise revoke before mcp-go refused it).
func RejectRebinding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if isLoopbackListener(local) && !isLoopbackAddr(r.Host) {
				http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackListener reports whether the address a request reached is
// loopback. A TCP address is read as it is: formatting it to text for
// isLoopbackAddr cost an allocation and a parse on every request.
func isLoopbackListener(local net.Addr) bool {
	if tcp, ok := local.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	return isLoopbackAddr(local.String())
}

// isLoopbackAddr reports whether HOST[:PORT] names a loopback host.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	return IsLoopback(host)
}

// WriteJSONReply answers with one JSON-RPC message, or 202 when there is
// none (a notification).
func WriteJSONReply(w http.ResponseWriter, reply []byte) {
	if reply == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(reply)
}

// BufferedReply records mcp-go's answer to one message of a batch. It is
// no http.Flusher, so mcp-go answers with JSON, never a stream.
type BufferedReply struct {
	header http.Header // nil until Header is first called
	status int
	body   bytes.Buffer
}

func (b *BufferedReply) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *BufferedReply) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *BufferedReply) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// Message is the JSON-RPC answer to msg: mcp-go's, nil for a notification
// (202), or an error carrying msg's id when mcp-go answered with a
// non-JSON HTTP error.
func (b *BufferedReply) Message(msg []byte) []byte {
	out := bytes.TrimSpace(b.body.Bytes())
	switch {
	case b.status == http.StatusAccepted || (len(out) == 0 && b.status < 300):
		return nil
	case json.Valid(out) && bytes.HasPrefix(out, []byte("{")):
		return out
	}
	var m Head
	_ = json.Unmarshal(msg, &m)
	return ErrorReply(m.ID, mcp.INVALID_REQUEST, string(out))
}

// ReadBody reads r's body, at most MaxRequestBody bytes. On failure it
// answers the request — 413 over the bound, 408 when the read deadline
// passed (naming timeout and the setting that sets it), 400 otherwise —
// and closes the connection, which holds the rest of the body; it
// returns what was read and the error.
func ReadBody(w http.ResponseWriter, r *http.Request, timeout time.Duration, setting string) ([]byte, error) {
	body, err := ReadAllSized(http.MaxBytesReader(w, r.Body, MaxRequestBody), r.ContentLength)
	if err == nil {
		return body, nil
	}
	w.Header().Set("Connection", "close")
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("request body over %d MiB", MaxRequestBody>>20), http.StatusRequestEntityTooLarge)
	case IsTimeout(err):
		http.Error(w, fmt.Sprintf("request body not received within %v (%s)", timeout, setting), http.StatusRequestTimeout)
	default:
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
	}
	return body, err
}

// IsTimeout reports whether err is a read deadline passing.
func IsTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
