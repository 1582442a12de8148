package server

import (
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

// recordLogLevel is an OnRequestInitialization hook: a valid
// logging/setLevel is kept in the session's state (session.Store), where
// every later call of the session reads it; mcp-go answers the request.
// An invalid level is left to mcp-go, which answers -32602. A session
// whose state cannot be stored gets the error.
func (s *Server) recordLogLevel(ctx context.Context, _ any, message any) error {
	var params struct {
		Level mcp.LoggingLevel `json:"level"`
	}
	if method, ok := hookRequest(message, &params); !ok || method != mcp.MethodSetLogLevel || !validLogLevel(params.Level) {
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

// hookRequest decodes the method of the raw JSON-RPC request an
// OnRequestInitialization hook receives, and its params into params (with
// encoding/json, as mcp-go decodes the same bytes); ok is false when the
// message is no raw JSON or does not decode.
func hookRequest(message any, params any) (method mcp.MCPMethod, ok bool) {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return "", false
	}
	req := struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{Params: params}
	if json.Unmarshal(raw, &req) != nil {
		return "", false
	}
	return mcp.MCPMethod(req.Method), true
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
	if ref, ok := sessionOf(ctx); ok {
		level, set, err := s.sessions.state.LogLevel(ctx, ref.key)
		switch {
		case err != nil:
			s.log.Warn("the session's log level cannot be read; using the default", "err", err)
		case set:
			c.LogLevel = mcp.LoggingLevel(level)
		}
	}
	return c
}
