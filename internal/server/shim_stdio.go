package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// listenStdio serves stdio through the shim (shim.go): mcp-go reads its
// lines through a transport.LineFilter, which hands each line to the
// shim first; the shim answers the methods it serves and the batches
// itself and passes every other line — rewritten where needed — on to
// mcp-go. Both write whole lines to out under one lock.
func (s *Server) listenStdio(ctx context.Context, st *mcpserver.StdioServer, in io.Reader, out io.Writer) error {
	lw := transport.NewLineWriter(out)
	// mcp-go builds the context of its stdio session (the process
	// session) when it starts listening, before its first read; the shim
	// serves in it too.
	sessionCtx := make(chan context.Context, 1)
	st.SetContextFunc(func(ctx context.Context) context.Context {
		// A call's own notifications are written here, before its
		// response (transport/stream.go).
		ctx = toolcall.WithStream(ctx, transport.LineStream{Out: lw})
		sessionCtx <- ctx
		return ctx
	})
	sh := &stdioShim{s: s, out: lw, sessionCtx: sessionCtx}
	filter := &transport.LineFilter{In: bufio.NewReader(in), Line: func(line []byte) ([]byte, error) { return sh.line(ctx, line) }}
	return st.Listen(ctx, filter, lw)
}

// stdioShim is the shim of the stdio transport.
type stdioShim struct {
	s          *Server
	out        *transport.LineWriter
	sessionCtx chan context.Context
	ctx        context.Context // the session's, once known
	// version is the protocol version negotiated by the initialize the
	// shim passed on ("" before it): only 2025-03-26 has batches.
	version string
}

// session waits for the context of mcp-go's stdio session.
func (sh *stdioShim) session(ctx context.Context) (context.Context, bool) {
	if sh.ctx != nil {
		return sh.ctx, true
	}
	select {
	case sh.ctx = <-sh.sessionCtx:
		return sh.ctx, true
	case <-ctx.Done():
		return nil, false
	}
}

// line runs one line through the shim: it answers the line itself (pass
// is nil) or returns what mcp-go is to read instead, ending in a newline.
func (sh *stdioShim) line(ctx context.Context, line []byte) (pass []byte, err error) {
	if transport.IsBatch(line) {
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		sh.reply(sh.batch(sctx, line))
		return nil, nil
	}
	head, ok := decodeHead(line)
	if !ok {
		return transport.WithNewline(line), nil // a line that does not decode is mcp-go's to refuse
	}
	if handled, err := sh.modernTask(ctx, line, &head); handled || err != nil {
		return nil, err // 2026-07-28's tasks (tasks_stdio.go)
	}
	pass = line
	switch _, shimmed := shimMethods[head.Method]; {
	case shimmed:
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		if _, _, reply, answered := sh.s.preDispatchHead(sctx, line, &head, false); answered {
			sh.reply(reply)
			return nil, nil
		}
	case keptStateMethods[head.Method]:
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		// A value over its bound is refused here, a subscription recorded
		// (kept_state.go).
		if _, _, reply, answered := sh.s.preDispatchHead(sctx, line, &head, false); answered {
			sh.reply(reply)
			return nil, nil
		}
		if head.Method != string(mcp.MethodInitialize) {
			break
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = unmarshal(head.Params, &p)
		// mcp-go answers with this version (its initialize negotiates so).
		sh.version = mcp.NegotiateLegacyVersion(p.ProtocolVersion)
	case taskMethods[head.Method] != nil:
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		if head.Method == string(mcp.MethodTasksResult) {
			// tasks/result waits for the task's end: not in the reading
			// goroutine, whose next lines may be what ends it.
			go func() {
				_, _, reply, _ := sh.s.preDispatchHead(sctx, line, &head, false)
				sh.reply(reply)
			}()
			return nil, nil
		}
		_, _, reply, _ := sh.s.preDispatchHead(sctx, line, &head, false)
		sh.reply(reply)
		return nil, nil
	case head.Method == string(mcp.MethodToolsCall) && bytes.Contains(head.Params, []byte(`"task"`)):
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		// A call as a task is answered here with the task (tasks.go),
		// whose call starts once the answer is written.
		p, answered := sh.answerFirst(sctx, line, &head, false)
		if answered {
			return nil, nil
		}
		pass = p
	case head.Method == string(mcp.MethodToolsCall):
		pass = nullArgumentsAsEmpty(line, head.Params)
	case head.Method == string(mcp.MethodToolsList):
		// A plain list is the prepared bytes behind the id (tools_list.go).
		var start time.Time
		if sh.s.opts.Metrics != nil || sh.s.opts.Tracing != nil {
			start = time.Now()
		}
		if reply, ok := sh.s.preparedToolsList(line, &head); ok {
			if err := sh.out.WriteParts(reply.head, reply.result, []byte("}\n")); err != nil {
				sh.s.log.Error("stdio: writing an answer of the shim", "err", err)
			}
			sh.s.opts.Metrics.Operation(head.Method, "", time.Since(start), false, 0) // metrics.go
			sh.s.shimSpan(ctx, &head, nil, start, nil)                                // tracing.go
			return nil, nil
		}
	case head.Method == string(mcp.MethodResourcesRead) && len(head.ID) > 0:
		sctx, ok := sh.session(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		// An unknown URI is answered here, naming it (resources.go).
		if _, _, reply, answered := sh.s.preDispatchHead(sctx, line, &head, false); answered {
			sh.reply(reply)
			return nil, nil
		}
	}
	return transport.WithNewline(pass), nil
}

// batch answers a batch: refused before a 2025-03-26 session is
// initialized, otherwise each message is dispatched by the shim or
// mcp-go in the session's context.
func (sh *stdioShim) batch(sctx context.Context, line []byte) []byte {
	if sh.version != batchVersion {
		version := sh.version
		if version == "" {
			version = "(none: send initialize first)"
		}
		return transport.BatchRefusal(version)
	}
	return transport.ServeBatch(line, func(msg []byte) []byte {
		mctx, pass, reply, answered := sh.s.preDispatchCtx(sctx, msg, false)
		if answered {
			return reply
		}
		resp := sh.s.mcp.HandleMessage(mctx, pass)
		if resp == nil {
			return nil
		}
		b, err := json.Marshal(resp)
		if err != nil {
			var m rpcMessage
			_ = unmarshal(msg, &m)
			return errorReply(m.ID, mcp.INTERNAL_ERROR, "encoding the answer: "+err.Error())
		}
		return b
	})
}

// answerFirst dispatches a request that may make a task (a call as a
// task, tasks/update), writing its answer before the task's call starts
// (withAnswerGate); pass is what mcp-go is to read when the shim did not
// answer.
func (sh *stdioShim) answerFirst(sctx context.Context, line []byte, head *rpcMessage, modern bool) (pass []byte, answered bool) {
	gate := make(chan struct{})
	defer close(gate)
	_, pass, reply, answered := sh.s.preDispatchHead(withAnswerGate(sctx, gate), line, head, modern)
	if answered {
		sh.reply(reply)
	}
	return pass, answered
}

// reply writes one message (nil writes nothing) as a line.
func (sh *stdioShim) reply(msg []byte) {
	if msg == nil {
		return
	}
	if _, err := sh.out.Write(append(msg, '\n')); err != nil {
		sh.s.log.Error("stdio: writing an answer of the shim", "err", err)
	}
}
