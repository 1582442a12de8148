package server

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/telemetry"
)

// The metrics hooks (docs/metrics.md §2). Off (Options.Metrics
// nil), none of this is registered and each other hook in this package
// (the shim's answers, sessions, the refresh, the skill runner) is one
// nil check in internal/telemetry.

// operationTimer times the requests mcp-go serves: its BeforeAny hook
// and its OnSuccess or OnError hook receive the same request context,
// which mcp-go makes for each message (a pointer, so a map key), and
// that is the one value the three share.
type operationTimer struct {
	metrics *telemetry.Metrics
	started sync.Map // context.Context -> time.Time
}

// addMetricsHooks adds the hooks that time every request mcp-go serves,
// when metrics are on.
func addMetricsHooks(hooks *mcpserver.Hooks, m *telemetry.Metrics) {
	if m == nil {
		return
	}
	t := &operationTimer{metrics: m}
	hooks.AddBeforeAny(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any) {
		t.started.Store(ctx, time.Now())
	})
	hooks.AddOnSuccess(func(ctx context.Context, _ any, method mcp.MCPMethod, message, result any) {
		r, _ := result.(*mcp.CallToolResult)
		t.done(ctx, method, message, r != nil && r.IsError, 0)
	})
	hooks.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, message any, err error) {
		code := mcp.INTERNAL_ERROR
		if e, ok := err.(interface{ ToJSONRPCError() mcp.JSONRPCError }); ok {
			code = e.ToJSONRPCError().Error.Code
		}
		t.done(ctx, method, message, false, code)
	})
}

// done records the request behind ctx. A request refused before
// BeforeAny (one whose params do not decode) is recorded with no
// duration.
func (t *operationTimer) done(ctx context.Context, method mcp.MCPMethod, message any, toolError bool, code int) {
	var d time.Duration
	if start, ok := t.started.LoadAndDelete(ctx); ok {
		d = time.Since(start.(time.Time))
	}
	name := ""
	switch m := message.(type) {
	case *mcp.CallToolRequest:
		name = m.Params.Name
	case *mcp.GetPromptRequest:
		name = m.Params.Name
	}
	t.metrics.Operation(string(method), name, d, toolError, code)
}

// shimAnswered records a request the shim answered itself (shim.go):
// mcp-go's hooks never see it. reply is the answer, whose JSON-RPC error
// code (if any) is recorded; the shim's answers are small (the prepared
// tools/list, which is not, is recorded by shim_stdio.go with no error).
func (s *Server) shimAnswered(method string, start time.Time, reply []byte) {
	if s.opts.Metrics == nil || reply == nil {
		return
	}
	var answer struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	code := 0
	if json.Unmarshal(reply, &answer) == nil && answer.Error != nil {
		code = answer.Error.Code
	}
	s.opts.Metrics.Operation(method, "", time.Since(start), false, code)
}

// openSessions counts the sessions with a request open on this instance
// for vox.mcp.sessions.open: the HTTP sessions with one (sessions.go) and
// the stdio session while it is served.
func (s *Server) openSessions() int {
	return s.sessions.open.sessions() + int(s.stdioServed.Load())
}

// runOutcome is the vox.skill.run.outcome of a skill command's run.
func runOutcome(res sandbox.Result, err error) string {
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &setup):
		return telemetry.RunSetupError
	case err != nil:
		return telemetry.RunError
	case res.TimedOut:
		return telemetry.RunTimeout
	case res.ExitCode != 0:
		return telemetry.RunExitStatus
	}
	return telemetry.RunOK
}
