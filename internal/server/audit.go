package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
)

// The audit trail (docs/security.md, "Audit trail") records every tool
// call, resource read, prompt get, skill activation and skill run where
// all of them pass: the tool middleware (middleware.go) and the shim's
// JSON-RPC refusals of a call (call_checks.go), the resource and prompt
// middlewares below, the read role's refusals (auth.go), the shim's
// answer to an unknown resource (resources.go), and Services'
// ActivateSkill and RunSkillCommand (services.go). With Options.Audit nil
// each of them costs one nil check.

// Reason codes of a line: a refusal's step (callSteps, spaces as
// underscores) or one of these; never the message text, which may echo
// an argument.
const (
	reasonRole      = "role"       // the read role may not (auth.go)
	reasonNotFound  = "not_found"  // no such resource or prompt
	reasonFailed    = "failed"     // the handler answered with an error
	reasonToolError = "tool_error" // the tool's result has isError
	reasonPanic     = "panic"      // the handler panicked (recovered)
)

// auditor writes the plane's lines of the trail; what a line names it
// asks the plane (resourceWhat, promptSourceOf).
type auditor struct {
	trail *audit.Log // Options.Audit; nil: no trail
	s     *Server
}

// on reports whether the audit trail is on.
func (a *auditor) on() bool { return a.trail != nil }

// write writes one line for the request behind ctx.
func (a *auditor) write(ctx context.Context, start time.Time, action, what string, args json.RawMessage, outcome, reason string) {
	a.trail.Write(audit.Record{
		Start:     start,
		Principal: PrincipalFrom(ctx),
		Session:   sessionIDOf(ctx),
		Action:    action,
		What:      what,
		Args:      args,
		Outcome:   outcome,
		Reason:    reason,
	})
}

// refusalReason is the reason code of a refusal: its step's name.
func refusalReason(r *refusal) string {
	return strings.ReplaceAll(r.step, " ", "_")
}

// toolArgs is the JSON of a call's arguments as mcp-go decoded them.
func toolArgs(req mcp.CallToolRequest) json.RawMessage {
	if raw, ok := req.Params.Arguments.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return b
}

// uriArgs are the "arguments" of a resource read: its URI, which may
// carry values (a template's variables, a query), so that only its digest
// is written.
func uriArgs(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return b
}

// resourceWhat names the resource a URI reads without the values it may
// carry: a static resource's URI (workspace or skill://, both defined by
// the server and listed by resources/list), a workspace template's URI
// template for a URI that expands one, and "" for any other URI, which is
// the client's text alone (its digest still identifies it).
func (s *Server) resourceWhat(uri string) string {
	s.resMu.Lock()
	_, static := s.registeredResources[uri]
	s.resMu.Unlock()
	if static {
		return uri
	}
	if r, _, ok := s.workspace.surface.Load().MatchResource(uri); ok {
		return r.URI
	}
	if s.skills != nil {
		p := s.skills
		p.resMu.Lock()
		_, static = p.resources[uri]
		p.resMu.Unlock()
		if static {
			return uri
		}
	}
	return ""
}

// resources is the resource middleware of mcp-go: it sees every
// read of a registered resource or a workspace template.
func (a *auditor) resources(next mcpserver.ResourceHandlerFunc) mcpserver.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) (res []mcp.ResourceContents, err error) {
		if !a.on() {
			return next(ctx, req)
		}
		start := time.Now()
		outcome, reason := audit.OutcomeError, reasonPanic
		defer func() {
			a.write(ctx, start, audit.ActionResourceRead, a.s.resourceWhat(req.Params.URI), uriArgs(req.Params.URI), outcome, reason)
		}()
		res, err = next(ctx, req)
		outcome, reason = handlerOutcome(err, mcpserver.ErrResourceNotFound)
		return res, err
	}
}

// prompts is the prompt middleware of mcp-go: it sees every get of
// a registered prompt (an unknown name is answered before it).
func (a *auditor) prompts(next mcpserver.PromptHandlerFunc) mcpserver.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		if !a.on() {
			return next(ctx, req)
		}
		start := time.Now()
		outcome, reason := audit.OutcomeError, reasonPanic
		defer func() {
			args, _ := json.Marshal(req.Params.Arguments)
			a.write(ctx, start, audit.ActionPromptGet, req.Params.Name, args, outcome, reason)
		}()
		res, err = next(ctx, req)
		outcome, reason = handlerOutcome(err, mcpserver.ErrPromptNotFound)
		return res, err
	}
}

// handlerOutcome is the outcome of a handler's error.
func handlerOutcome(err, notFound error) (outcome, reason string) {
	switch {
	case err == nil:
		return audit.OutcomeOK, ""
	case errors.Is(err, notFound):
		return audit.OutcomeError, reasonNotFound
	}
	return audit.OutcomeError, reasonFailed
}

// roleRefusal records a resources/read or prompts/get that the read
// role may not send (readRoleRequest); other methods are no action of
// the trail.
func (a *auditor) roleRefusal(ctx context.Context, method mcp.MCPMethod, uri, name string) {
	if !a.on() {
		return
	}
	switch method {
	case mcp.MethodResourcesRead:
		a.write(ctx, time.Now(), audit.ActionResourceRead, a.s.resourceWhat(uri), uriArgs(uri), audit.OutcomeRefused, reasonRole)
	case mcp.MethodPromptsGet:
		what := ""
		if a.s.promptSourceOf(name) != "" {
			what = name // a served prompt's name; any other is the client's text
		}
		a.write(ctx, time.Now(), audit.ActionPromptGet, what, nil, audit.OutcomeRefused, reasonRole)
	}
}

// toolCall records a call the middleware ran or refused.
func (a *auditor) toolCall(ctx context.Context, req mcp.CallToolRequest, start time.Time, res *mcp.CallToolResult, denied *refusal, panicked bool) {
	outcome, reason := audit.OutcomeOK, ""
	switch {
	case denied != nil:
		outcome, reason = audit.OutcomeRefused, refusalReason(denied)
	case panicked:
		outcome, reason = audit.OutcomeError, reasonPanic
	case res == nil || res.IsError:
		outcome, reason = audit.OutcomeError, reasonToolError
	}
	a.write(ctx, start, audit.ActionToolCall, req.Params.Name, toolArgs(req), outcome, reason)
}

// Reason codes of a skill run.
const (
	reasonSandboxSetup = "sandbox_setup" // the sandbox could not be set up: the command did not run
	reasonTimeout      = "timeout"       // the command ran past its timeout or was cancelled
	reasonExitStatus   = "exit_status"   // the command exited non-zero (exit_code says how)
)

// skillRun records a run of a skill's command (vox_skill_run, whose
// tools/call has its own line): the skill, a digest of the command and
// its timeout, and how the command ended.
func (a *auditor) skillRun(ctx context.Context, start time.Time, spec sandbox.Spec, res *sandbox.Result, err *error) {
	args, _ := json.Marshal(struct {
		Command   string `json:"command"`
		TimeoutMS int64  `json:"timeout_ms"`
	}{spec.Command, spec.Timeout.Milliseconds()})
	r := audit.Record{
		Start:     start,
		Principal: PrincipalFrom(ctx),
		Session:   sessionIDOf(ctx),
		Action:    audit.ActionSkillRun,
		What:      spec.SkillID,
		Args:      args,
		Outcome:   audit.OutcomeOK,
	}
	var setup *sandbox.SetupError
	switch {
	case errors.As(*err, &setup):
		r.Outcome, r.Reason = audit.OutcomeError, reasonSandboxSetup
	case *err != nil:
		r.Outcome, r.Reason = audit.OutcomeError, reasonFailed
	case res.TimedOut:
		r.Outcome, r.Reason = audit.OutcomeError, reasonTimeout
	case res.ExitCode != 0:
		code := res.ExitCode
		r.Outcome, r.Reason, r.ExitCode = audit.OutcomeError, reasonExitStatus, &code
	}
	a.trail.Write(r)
}

// unknownTool is an OnError hook of mcp-go: a tools/call of a name
// that no tool has is refused before the middleware, and gets its line
// here. The name is the client's text, so only the digest of the call's
// name and arguments is written.
func (a *auditor) unknownTool(ctx context.Context, _ any, method mcp.MCPMethod, message any, err error) {
	if !a.on() || method != mcp.MethodToolsCall || !errors.Is(err, mcpserver.ErrToolNotFound) {
		return
	}
	req, ok := message.(*mcp.CallToolRequest)
	if !ok {
		return
	}
	args, _ := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{req.Params.Name, toolArgs(*req)})
	a.write(ctx, time.Now(), audit.ActionToolCall, "", args, audit.OutcomeError, reasonNotFound)
}
