package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/session"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/internal/telemetry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// Services is everything of the server a catalog tool's handler may use
// (docs/architecture.md §4): the workspace, the merged tool set's search,
// the skills registry, the active skill of the calling session and the
// sandbox. Handlers live outside the runtime (cmd/vox-mcp/handlers) and
// reach the server only through it.
type Services struct{ s *Server }

// ErrNoSkills is the error of a skill service on a server that serves no
// skills (the app binaries of "vox gen app").
var ErrNoSkills = errors.New("this server serves no skills")

// Root is the absolute workspace root.
func (v *Services) Root() string { return v.s.root }

// Logger is the server's logger.
func (v *Services) Logger() *slog.Logger { return v.s.log }

// NetworkAllowed reports whether the server may reach the network
// (VOX_MCP_ALLOW_NETWORK=1).
func (v *Services) NetworkAllowed() bool { return v.s.opts.AllowNetwork }

// ToolHit is one result of SearchTools.
type ToolHit struct {
	Name, Description string
	InputSchema       []byte // never empty
	Source            string // registry.SourceCatalog, SourceWorkspace or SourceSkill
	Score             float64
}

// SearchTools ranks every tool the server knows — catalog, workspace
// (advertised or not) and skill macro tools — with BM25 (docs/skills.md
// §3): the best limit hits, from source only when it is not "".
func (v *Services) SearchTools(query, source string, limit int) []ToolHit {
	set := v.s.currentTools()
	out := []ToolHit{}
	for _, hit := range set.searchIndex().Search(query, 0) {
		e := set.sorted()[hit.Doc]
		if source != "" && e.source != source {
			continue
		}
		schema := []byte(e.tool.RawInputSchema)
		if len(schema) == 0 {
			schema = []byte(`{"type":"object"}`)
		}
		out = append(out, ToolHit{Name: e.tool.Name, Description: e.tool.Description, InputSchema: schema, Source: e.source, Score: hit.Score})
		if len(out) == limit {
			break
		}
	}
	return out
}

// RefreshWorkspace rescans the workspace with the scan config as it is on
// disk now and swaps the surface in whole (docs/federation.md §4); on a
// fatal error the previous surface stays in service. In fleet mode every
// other instance is asked to rescan too.
func (v *Services) RefreshWorkspace() (workspace.Result, error) {
	res, err := v.s.workspace.refresh()
	if err == nil {
		v.s.sessions.announceRefresh()
	}
	return res, err
}

// RefreshWorkspaceReporting is RefreshWorkspace telling progress how many
// of the scanned files are compiled so far (see
// workspace.Loader.LoadReporting).
func (v *Services) RefreshWorkspaceReporting(progress func(done, total int)) (workspace.Result, error) {
	res, err := v.s.workspace.refreshWith(0, progress)
	if err == nil {
		v.s.sessions.announceRefresh()
	}
	return res, err
}

// AnnounceSkillsChanged tells the other instances of a fleet that the
// skill folders changed (an install, add or remove), so that they read
// them again; outside fleet mode it does nothing.
func (v *Services) AnnounceSkillsChanged() { v.s.sessions.announceRefresh() }

// Skills is the skills registry.
func (v *Services) Skills() (*skills.Registry, error) {
	if v.s.skills == nil {
		return nil, ErrNoSkills
	}
	return v.s.skills.reg, nil
}

// ActivateSkill makes in the active skill of the session behind ctx
// (docs/skills.md §6) until the session ends or expires; nil clears it.
// Without a session (an HTTP request of protocol 2026-07-28) it fails, and
// so it does when the session state store is full and no session can be
// ended to make room.
func (v *Services) ActivateSkill(ctx context.Context, in *skills.Installed) error {
	if v.s.skills == nil {
		return ErrNoSkills
	}
	var err error
	start := time.Now()
	if in == nil {
		err = v.s.sessions.setActiveSkill(ctx, nil)
	} else {
		err = v.s.sessions.setActiveSkill(ctx, &session.ActiveSkill{ID: in.ID, Name: in.Name, Tools: in.Tools})
	}
	if v.s.audit.on() {
		what := "" // the active skill cleared
		if in != nil {
			what = in.ID
		}
		outcome, reason := handlerOutcome(err, nil)
		v.s.audit.write(ctx, start, audit.ActionSkillActivate, what, nil, outcome, reason)
	}
	return err
}

// RunSkillCommand runs a skill's command in the sandbox with the server's
// sandbox configuration (Options.SkillSandbox; docs/sandbox.md), or
// unisolated with a warning when the server was started with
// VOX_SKILL_SANDBOX=off. The protections the host could not give are
// logged as warnings.
func (v *Services) RunSkillCommand(ctx context.Context, spec sandbox.Spec) (sandbox.Result, error) {
	if v.s.skills == nil {
		return sandbox.Result{}, ErrNoSkills
	}
	cfg := v.s.opts.SkillSandbox
	var res sandbox.Result
	var err error
	if v.s.audit.on() {
		defer v.s.audit.skillRun(ctx, time.Now(), spec, &res, &err)
	}
	start := time.Now()
	isolation := "isolated"
	if v.s.skills.sandboxOff {
		isolation = "off"
	}
	// The run is a span under the request's when traces are on
	// (tracing.go).
	sctx, span := childSpan(ctx, "vox.skill.run", trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("vox.skill.id", spec.SkillID), attribute.String("vox.skill.sandbox", isolation)}
	})
	if v.s.skills.sandboxOff {
		v.s.log.Warn("VOX_SKILL_SANDBOX=off: running a skill command without isolation", "skill", spec.SkillID)
		res, err = cfg.RunUnisolated(sctx, spec)
	} else {
		res, err = cfg.Run(sctx, spec)
	}
	outcome := runOutcome(res, err)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("vox.skill.run.outcome", outcome))
		if err == nil && outcome != telemetry.RunOK {
			span.SetStatus(codes.Error, outcome)
		}
	}
	endSpan(span, err)
	v.s.opts.Metrics.SkillRun(outcome, !v.s.skills.sandboxOff, time.Since(start)) // metrics.go
	for _, w := range res.Warnings {
		v.s.log.Warn("vox_skill_run: "+w, "skill", spec.SkillID)
	}
	return res, err
}
