package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// DefaultClientLogLevel is the level a session receives log messages from
// before it sends logging/setLevel (docs/federation.md §9): what a Vox
// tool prints is info, so it reaches the client that made the call.
const DefaultClientLogLevel = mcp.LoggingLevelInfo

// recordLogLevel serves recordSessionState: a valid
// logging/setLevel is kept in the session's state (session.Store), where
// every later call of the session reads it; mcp-go answers the request.
// An invalid level is left to mcp-go, which answers -32602. A session
// whose state cannot be stored gets the error.
func (s *Server) recordLogLevel(ctx context.Context, req sessionRequest) error {
	var params struct {
		Level mcp.LoggingLevel `json:"level"`
	}
	if !req.params(&params) || !validLogLevel(params.Level) {
		return nil
	}
	ref, ok := sessionOf(ctx)
	if !ok {
		return nil // protocol 2026-07-28: no setLevel, mcp-go refuses it
	}
	if err := s.sessions.state.SetLogLevel(ctx, ref.key, ref.expires, string(params.Level)); err != nil {
		return fmt.Errorf("the log level could not be kept: %w", err)
	}
	return nil
}

// recordSessionState is the OnRequestInitialization hook of the requests
// that change a session's state: logging/setLevel (recordLogLevel) and
// resources/unsubscribe (recordUnsubscribe). resources/subscribe is
// recorded by the shim, which can answer a subscription over a bound with
// -32602 (kept_state.go); a request that reaches mcp-go without the shim
// (a program embedding the server and calling MCP().HandleMessage) is
// recorded here, within the same bounds (mcp-go answers an error of a hook
// -32600), and recording one the shim recorded already changes nothing.
// It decodes a
// request's method once, and the params only of those, with
// encoding/json as mcp-go decodes the same bytes; a request that does not
// decode is mcp-go's to refuse.
func (s *Server) recordSessionState(ctx context.Context, _ any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok || !mayRecordSessionState(raw) {
		return nil
	}
	if _, ok := checkedMessage(ctx, raw); ok {
		return nil // a tools/call the shim decoded: it records nothing
	}
	var req sessionRequest
	if unmarshal(raw, &req) != nil {
		return nil
	}
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodSetLogLevel:
		return s.recordLogLevel(ctx, req)
	case mcp.MethodResourcesUnsubscribe:
		return s.recordUnsubscribe(ctx, req)
	case mcp.MethodResourcesSubscribe:
		return s.recordSubscription(ctx, raw, req.Params)
	}
	return nil
}

// mayRecordSessionState reports whether raw may be a request whose method
// recordSessionState records, without decoding it: such a method's name,
// as JSON text, holds "setLevel" or "subscribe" (of unsubscribe) unless it is written with
// an escape, and any escape is decoded. Every other request — every
// tools/call without those words or a backslash — skips the decode of the
// whole message (2% of the CPU at 32 calls in flight, docs/benchmarks.md).
func mayRecordSessionState(raw []byte) bool {
	return bytes.Contains(raw, []byte("setLevel")) || bytes.Contains(raw, []byte("subscribe")) || bytes.IndexByte(raw, '\\') >= 0
}

// sessionRequest is a request as recordSessionState decodes it.
type sessionRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// params decodes the request's params into v (a missing params member
// decodes as none); false when they do not decode.
func (r sessionRequest) params(v any) bool {
	if len(r.Params) == 0 {
		return true
	}
	return unmarshal(r.Params, v) == nil
}

func validLogLevel(l mcp.LoggingLevel) bool {
	switch l {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
		return true
	}
	return false
}

// clientOf is what the request behind ctx asked of the server while it
// runs: its session's log level (the request's own under protocol
// 2026-07-28, which has no setLevel and sends nothing unless asked) and
// its progress token.
func (s *Server) clientOf(ctx context.Context, meta *mcp.Meta) toolcall.Client {
	var c toolcall.Client
	if meta != nil {
		c.ProgressToken = meta.ProgressToken
	}
	if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		c.LogLevel = info.LogLevel
		return c
	}
	c.LogLevel = DefaultClientLogLevel
	ref, ok := sessionOf(ctx)
	if !ok {
		return c
	}
	return c.WithSessionLevel(func() mcp.LoggingLevel {
		level, set, err := s.sessions.state.LogLevel(ctx, ref.key)
		switch {
		case err != nil:
			s.log.Warn("the session's log level cannot be read; using the default", "err", err)
		case set:
			return mcp.LoggingLevel(level)
		}
		return DefaultClientLogLevel
	})
}
