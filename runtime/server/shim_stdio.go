package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// listenStdio serves stdio through the shim (shim.go): every line of in
// is read here first; the shim answers the methods it serves and the
// batches, and passes every other line — rewritten where needed — to
// mcp-go through a pipe. Both write whole lines to out under one lock.
func (s *Server) listenStdio(ctx context.Context, st *mcpserver.StdioServer, in io.Reader, out io.Writer) error {
	lw := &lineWriter{w: out}
	pr, pw := io.Pipe()
	// mcp-go builds the context of its stdio session (the process
	// session) when it starts listening; the shim serves in it too.
	sessionCtx := make(chan context.Context, 1)
	st.SetContextFunc(func(ctx context.Context) context.Context {
		sessionCtx <- ctx
		return ctx
	})
	sh := &stdioShim{s: s, out: lw, sessionCtx: sessionCtx}
	go sh.read(ctx, in, pw)
	err := st.Listen(ctx, pr, lw)
	pr.Close() // a line still being passed on is dropped: mcp-go stopped
	return err
}

// lineWriter serialises whole writes to w: mcp-go writes each message with
// one Write, and so does the shim.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stdioShim is the shim of the stdio transport.
type stdioShim struct {
	s          *Server
	out        io.Writer
	sessionCtx chan context.Context
	ctx        context.Context // the session's, once known
	// version is the protocol version negotiated by the initialize the
	// shim passed on ("" before it): only 2025-03-26 has batches.
	version string
}

// read passes the lines of in to mcp-go (through pw) until in ends.
func (sh *stdioShim) read(ctx context.Context, in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if werr := sh.line(ctx, line, pw); werr != nil {
				pw.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
			return
		}
	}
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

func (sh *stdioShim) line(ctx context.Context, line []byte, pw io.Writer) error {
	if isBatch(line) {
		sctx, ok := sh.session(ctx)
		if !ok {
			return ctx.Err()
		}
		sh.reply(sh.batch(sctx, line))
		return nil
	}
	var head rpcMessage
	_ = json.Unmarshal(line, &head) // a line that does not decode is mcp-go's to refuse
	pass := line
	switch _, shimmed := shimMethods[head.Method]; {
	case shimmed:
		sctx, ok := sh.session(ctx)
		if !ok {
			return ctx.Err()
		}
		if _, reply, answered := sh.s.preDispatch(sctx, line, false); answered {
			sh.reply(reply)
			return nil
		}
	case head.Method == string(mcp.MethodInitialize):
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(head.Params, &p)
		// mcp-go answers with this version (its initialize negotiates so).
		sh.version = mcp.NegotiateLegacyVersion(p.ProtocolVersion)
	case head.Method == string(mcp.MethodToolsCall):
		pass = nullArgumentsAsEmpty(line, head.Params)
	case head.Method == string(mcp.MethodResourcesRead) && len(head.ID) > 0:
		sctx, ok := sh.session(ctx)
		if !ok {
			return ctx.Err()
		}
		// An unknown URI is answered here, naming it (resources.go).
		if _, reply, answered := sh.s.preDispatch(sctx, line, false); answered {
			sh.reply(reply)
			return nil
		}
	}
	if !bytes.HasSuffix(pass, []byte("\n")) {
		pass = append(pass, '\n')
	}
	_, err := pw.Write(pass)
	return err
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
		return batchRefusal(version)
	}
	return serveBatch(line, func(msg []byte) []byte {
		pass, reply, answered := sh.s.preDispatch(sctx, msg, false)
		if answered {
			return reply
		}
		resp := sh.s.mcp.HandleMessage(sctx, pass)
		if resp == nil {
			return nil
		}
		b, err := json.Marshal(resp)
		if err != nil {
			var m rpcMessage
			_ = json.Unmarshal(msg, &m)
			return errorReply(m.ID, mcp.INTERNAL_ERROR, "encoding the answer: "+err.Error())
		}
		return b
	})
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
