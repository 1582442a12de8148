package server

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// The shim on the streamable HTTP transport (shim.go): the endpoint has
// read the body and verified the session (or found the request
// sessionless: initialize, or protocol 2026-07-28) before either runs.

// dispatch serves one message: the shim answers it, or mcp-go serves it
// as the shim passes it on.
func (e *endpoint) dispatch(w http.ResponseWriter, r *http.Request, body []byte, head *rpcMessage, modern bool) {
	ctx := r.Context()
	if e.s.opts.Tracing != nil {
		// An answer of the shim is traced under the traceparent header
		// (tracing.go).
		ctx = context.WithValue(ctx, traceHeaderKey{}, r.Header)
	}
	ctx, pass, reply, answered := e.s.preDispatchHead(ctx, body, head, modern)
	if answered {
		if modern && isMissingCapability(reply) {
			// 2026-07-28 answers this error with 400 (client_capabilities.go).
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(reply)
			return
		}
		transport.WriteJSONReply(w, reply)
		return
	}
	if _, checked := checkedCallFrom(ctx); modern && !checked {
		// A checked call's active skill was read with its params.
		ctx = e.s.withRequestSkill(ctx, pass)
	}
	if ctx != r.Context() {
		r = r.WithContext(ctx) // a copy of the request: only when it changed
	}
	r.Body = io.NopCloser(bytes.NewReader(pass))
	r.ContentLength = int64(len(pass))
	e.next.ServeHTTP(w, r)
}

// serveBatch answers a POST whose body is a JSON-RPC batch. Batches exist
// only in protocol 2025-03-26, whose clients send no
// Mcp-Protocol-Version (the header came with 2025-06-18, which requires
// it on every request, and a request without it is taken as 2025-03-26):
// a batch with another version, or of the sessionless 2026-07-28, is
// refused with 400 and -32600; one of a 2025-03-26 session is split, each
// message served in the session (by the shim or mcp-go, as a request of
// its own), and answered as an array. Notifications a batched call sends
// are not delivered: the answer is application/json.
func (e *endpoint) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	version := r.Header.Get(mcp.HeaderProtocolVersion)
	if version == "" && isModern(r.Header, body) {
		version = mcp.ProtocolVersion20260728
	}
	if version != "" && version != batchVersion {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(transport.BatchRefusal(version))
		return
	}
	hs, ok := e.session(w, r, nil)
	if !ok {
		return
	}
	ctx, open := e.p.track(withHTTPSession(r.Context(), hs), hs.id.Key)
	defer open.done()
	reply := transport.ServeBatch(body, func(msg []byte) []byte {
		mctx, pass, reply, answered := e.s.preDispatchCtx(ctx, msg, false)
		if answered {
			return reply
		}
		sub := r.Clone(mctx)
		sub.Body = io.NopCloser(bytes.NewReader(pass))
		sub.ContentLength = int64(len(pass))
		rec := &transport.BufferedReply{}
		e.next.ServeHTTP(rec, sub)
		return rec.Message(msg)
	})
	transport.WriteJSONReply(w, reply)
}
