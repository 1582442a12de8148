package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// skillPlane is the skills system inside the server (docs/skills.md): the
// registry, hydrated before New returns so that the first request already
// sees every skill; its skill:// resources registered as static resources;
// its macro tools, merged after catalog and workspace tools; and the
// allowlist check of each session's active skill, which the session plane
// keeps (sessions.go).
type skillPlane struct {
	s   *Server
	reg *skills.Registry

	// sandboxOff is VOX_SKILL_SANDBOX=off: vox_skill_run runs unisolated.
	sandboxOff bool
	// runSelfTest runs the sandbox self-test (the package's runSelfTest).
	runSelfTest func(sandbox.Config) sandbox.Report
	// withdrawOnce stops listing the tools that require the sandbox at
	// most once (withdrawSandboxTools).
	withdrawOnce sync.Once

	// resMu guards resources, the skill resources last registered with
	// mcp-go, so that a change re-registers only what differs.
	resMu     sync.Mutex
	resources map[string]mcp.Resource

	// rootsPresent tells whether a skill root exists, for the skills
	// requirement.
	rootsPresent *workspace.PathPresence

	// skillManifests are the entries skills/list and skills/get answer
	// with (shim_skills.go).
	skillManifests skillManifests

	// last is the snapshot changed saw last, to tell subscribers which
	// files changed; lastMu guards it.
	lastMu sync.Mutex
	last   *skills.Snapshot
}

// initSkills hydrates the registry, registers the skill resources and
// adds the skills and sandbox requirements.
func (s *Server) initSkills() {
	cfg := skills.ConfigFromEnv(s.root)
	if s.opts.Skills != nil {
		cfg = *s.opts.Skills
	}
	p := &skillPlane{s: s, reg: skills.New(cfg), sandboxOff: s.opts.SkillSandboxOff,
		resources: map[string]mcp.Resource{}, runSelfTest: runSelfTest,
		rootsPresent: workspace.NewPathPresence(cfg.SearchRoots())}
	s.skills = p
	for _, w := range p.reg.Hydrate() {
		s.log.Warn("skill discovery: " + w)
	}
	snap := p.reg.Snapshot()
	s.log.Info("skills hydrated", "skills", snap.Len(), "roots", strings.Join(cfg.SearchRoots(), string(os.PathListSeparator)))
	p.logMacroWarnings(snap)
	p.syncResources(snap)
	p.last = snap
	p.reg.OnChange(p.changed)

	s.requirements[registry.RequireSkills] = p.skillsRequirement
	s.requirements[registry.RequireSandbox] = p.sandboxRequirement
	if p.sandboxOff {
		s.log.Warn("VOX_SKILL_SANDBOX=off: vox_skill_run runs commands without isolation")
	}
	if why := p.staticallyUnavailable(); why != "" {
		// Before the first registration: the tools are never listed.
		p.withdrawOnce.Do(func() {
			for i := range s.catalog {
				if requiresSandbox(&s.catalog[i]) {
					s.catalog[i].hidden = true
				}
			}
			s.log.Warn("vox_skill_run is not listed: " + why)
		})
	}
}

// A client never sees a tool that cannot run here (docs/sandbox.md,
// "Where skill commands run"): the catalog tools that require the
// sandbox are registered (a call by name answers why it cannot run) but
// not listed when this system has no sandbox and VOX_SKILL_SANDBOX is not
// off, when it is off but this system cannot run commands unisolated
// either, or once the self-test failed. Until the self-test has run they
// are listed: it runs off the start-up path, and when it fails the list
// changes (tools/list_changed).

// Tests replace these (before New) to play another system.
var (
	sandboxSupported    = sandbox.Supported
	unisolatedSupported = sandbox.UnisolatedSupported
)

// staticallyUnavailable says why skill commands cannot run on this
// system whatever the host, "" when the self-test (or the opt-out)
// decides.
func (p *skillPlane) staticallyUnavailable() string {
	if p.sandboxOff {
		if !unisolatedSupported() {
			return "VOX_SKILL_SANDBOX=off, but this system cannot run skill commands without isolation either"
		}
		return ""
	}
	if err := sandboxSupported(); err != nil {
		return err.Error()
	}
	return ""
}

func requiresSandbox(e *toolEntry) bool {
	return e.op != nil && e.op.MCP != nil && slices.Contains(e.op.MCP.Requires, registry.RequireSandbox)
}

// withdrawSandboxTools stops listing the catalog tools that require the
// sandbox, once: their entries are replaced by hidden copies (published
// sets keep theirs, unchanged), and the whole set is registered again,
// which tells clients the list changed.
func (p *skillPlane) withdrawSandboxTools(why string) {
	p.withdrawOnce.Do(func() {
		s := p.s
		s.syncMu.Lock()
		for name, e := range s.catalogByName {
			if requiresSandbox(e) && !e.hidden {
				c := *e
				c.hidden = true
				s.catalogByName[name] = &c
			}
		}
		s.registered = nil // the next sync registers everything
		s.syncMu.Unlock()
		if err := s.syncTools(); err != nil {
			s.log.Error("re-registering tools without the sandbox tools", "err", err)
		}
		s.log.Warn("vox_skill_run is no longer listed: " + why)
	})
}

// scheduleSelfTest starts the sandbox self-test in the background, off
// the start-up path: it forks and re-executes the binary, and run at
// start-up it delayed initialize and the first scan on a small machine.
// It starts sandboxSelfTestDelay after the first workspace scan was
// installed, or earlier when a call needs the sandbox requirement, which
// waits for its end (docs/contracts.md §1).
func (p *skillPlane) scheduleSelfTest() {
	if p.sandboxOff {
		return
	}
	logger, cfg, ready, delay := p.s.log, p.s.opts.SkillSandbox, p.s.workspace.ready, sandboxSelfTestDelay
	go func() {
		<-ready
		time.Sleep(delay)
		rep, first := p.selfTest(cfg)
		p.s.returnStartupMemory()
		if first {
			logSelfTest(logger, rep) // else a call started it, and logged it
		}
		if ok, why := p.sandboxVerdict(rep); !ok {
			p.withdrawSandboxTools(why)
		}
	}()
}

// sandboxSelfTestDelay is how long after the first workspace scan the
// self-test starts in the background; tests lengthen it to start it by a
// call only.
var sandboxSelfTestDelay = time.Second

// logSelfTest logs the outcome of the sandbox self-test once.
func logSelfTest(logger *slog.Logger, rep sandbox.Report) {
	if err := rep.Problem(); err != nil {
		logger.Warn("sandbox self-test failed: vox_skill_run fails closed", "err", err)
		return
	}
	logger.Info("sandbox self-test passed", "host", rep.String())
	for _, w := range rep.Warnings {
		logger.Warn("sandbox: " + w)
	}
}

// sandboxSelfTests memoizes the self-test by sandbox.Config: what the host
// gives is a property of the host, and every server of the process shares
// it.
var sandboxSelfTests sync.Map // sandbox.Config -> *selfTestRun

// runSelfTest runs the self-test; tests replace it (before New, which
// copies it) to decide its outcome and when it ends.
var runSelfTest = func(cfg sandbox.Config) sandbox.Report { return cfg.SelfTest(context.Background()) }

// selfTest is sandboxSelfTest with the run function of this server.
func (p *skillPlane) selfTest(cfg sandbox.Config) (sandbox.Report, bool) {
	return sandboxSelfTest(cfg, p.runSelfTest)
}

type selfTestRun struct {
	once    sync.Once
	started atomic.Bool
	rep     sandbox.Report
}

// sandboxSelfTest runs the sandbox self-test once per process and
// configuration, or waits for the run in progress, and returns its
// report; first is true for the one caller that ran it.
func sandboxSelfTest(cfg sandbox.Config, runSelfTest func(sandbox.Config) sandbox.Report) (rep sandbox.Report, first bool) {
	v, _ := sandboxSelfTests.LoadOrStore(cfg, &selfTestRun{})
	run := v.(*selfTestRun)
	run.once.Do(func() {
		first = true
		run.started.Store(true)
		run.rep = runSelfTest(cfg)
	})
	return run.rep, first
}

// sandboxSelfTestStarted reports whether the self-test of cfg has started
// in this process.
func sandboxSelfTestStarted(cfg sandbox.Config) bool {
	v, ok := sandboxSelfTests.Load(cfg)
	return ok && v.(*selfTestRun).started.Load()
}

// changed follows every registry change: it re-registers the resources,
// the prompts (every skill is one) and the tools (macro tools come and go
// with skills).
func (p *skillPlane) changed(snap *skills.Snapshot) {
	p.logMacroWarnings(snap)
	p.syncResources(snap)
	p.s.syncPrompts()
	p.lastMu.Lock()
	old := p.last
	p.last = snap
	p.lastMu.Unlock()
	p.s.notifyUpdated(changedSkillURIs(old, snap)...)
	if err := p.s.syncTools(); err != nil {
		p.s.log.Error("re-registering tools after a skills change", "err", err)
	}
}

func (p *skillPlane) logMacroWarnings(snap *skills.Snapshot) {
	_, warnings := snap.MacroTools(p.catalogTool)
	for _, w := range warnings {
		p.s.log.Warn("skill macro tools: " + w)
	}
}

// catalogTool reports whether name is a catalog tool. Workspace tools need
// no test here: syncTools merges skills last, so they win anyway.
func (p *skillPlane) catalogTool(name string) bool {
	for _, e := range p.s.catalog {
		if e.tool.Name == name {
			return true
		}
	}
	return false
}

// toolEntries are the macro tools of the installed skills.
func (p *skillPlane) toolEntries() []toolEntry {
	macros, _ := p.reg.Snapshot().MacroTools(p.catalogTool)
	out := make([]toolEntry, len(macros))
	for i, m := range macros {
		out[i] = toolEntry{
			tool: mcp.Tool{
				Name:           m.Name,
				Description:    m.Description,
				RawInputSchema: json.RawMessage(skills.MacroToolInputSchema),
				Meta: &mcp.Meta{AdditionalFields: map[string]any{
					"vox_source":   registry.SourceSkill,
					"vox_skill_id": m.SkillID,
				}},
				Annotations: mcp.ToolAnnotation{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
			},
			source:  registry.SourceSkill,
			handler: p.macroHandler(m.SkillID),
		}
	}
	return out
}

// macroHandler returns the current instructions of the skill: mcp-go keeps
// a handler until the tool's definition changes, and an edited body does
// not change the definition.
func (p *skillPlane) macroHandler(skillID string) mcpserver.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, ok := p.reg.Snapshot().Get(skillID)
		if !ok || in.ID != skillID {
			return errorResult(fmt.Sprintf("skill %s, which provided %s, is no longer installed: vox_skill_list shows the installed skills", skillID, req.Params.Name)), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(skills.MacroText(in.Skill))}}, nil
	}
}

// syncResources registers the snapshot's resources with mcp-go: removed
// ones are deleted and new or changed ones added, so a change that leaves
// them as they were notifies nobody, and resources of other origins
// (workspace resources) are left alone. The index's definition never
// changes: its text is made from the current snapshot when it is read.
func (p *skillPlane) syncResources(snap *skills.Snapshot) {
	p.resMu.Lock()
	defer p.resMu.Unlock()
	next := map[string]mcp.Resource{}
	var added []mcpserver.ServerResource
	for _, r := range snap.Resources() {
		res := mcp.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType}
		if r.SkillID != "" {
			res.Size = ptr(r.Size)
		}
		next[r.URI] = res
		if prev, ok := p.resources[r.URI]; !ok || !sameResource(prev, res) {
			added = append(added, mcpserver.ServerResource{Resource: res, Handler: p.readResource})
		}
	}
	var removed []string
	for uri := range p.resources {
		if _, ok := next[uri]; !ok {
			removed = append(removed, uri)
		}
	}
	sort.Strings(removed)
	p.resources = next
	if len(removed) > 0 {
		p.s.mcp.DeleteResources(removed...)
	}
	if len(added) > 0 {
		p.s.mcp.AddResources(added...)
	}
}

func sameResource(a, b mcp.Resource) bool {
	return a.URI == b.URI && a.Name == b.Name && a.Description == b.Description && a.MIMEType == b.MIMEType &&
		(a.Size == nil) == (b.Size == nil) && (a.Size == nil || *a.Size == *b.Size)
}

// readResource serves a skill resource from the current snapshot. Only
// registered URIs reach it, and the snapshot serves only the files it
// listed, so traversal never touches the file system.
func (p *skillPlane) readResource(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	c, err := p.reg.Snapshot().ReadResource(req.Params.URI)
	switch {
	case errors.Is(err, skills.ErrUnknownResource):
		return nil, fmt.Errorf("resource %s is no longer served (its skill changed): resources/list shows the current ones: %w", req.Params.URI, mcpserver.ErrResourceNotFound)
	case err != nil:
		return nil, err
	case c.IsBlob:
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: c.URI, MIMEType: c.MIMEType, Blob: base64.StdEncoding.EncodeToString(c.Blob)}}, nil
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}}, nil
}

// checkSkillAllowlist is the allowlist step (call_checks.go): while the session's active skill
// lists tools, every other tool — catalog, workspace or macro — is
// refused with the exact text of docs/skills.md §6, except the catalog
// tools whose row sets mcp.allowlist_exempt. The exemption is read from
// the row, never inferred from a name: a workspace or macro tool has no
// row and is never exempt, whatever it is called.
func (s *Server) checkSkillAllowlist(ctx context.Context, c toolCall) *refusal {
	if s.skills == nil {
		return nil
	}
	if e := c.entry; e != nil && e.op != nil && e.op.MCP != nil && e.op.MCP.AllowlistExempt {
		return nil
	}
	a, ok, err := s.sessions.activeSkill(ctx)
	if err != nil {
		// Fail closed: an allowlist that cannot be read must not stop
		// applying.
		s.log.Error("the session's active skill cannot be read; refusing the call", "tool", c.name, "err", err)
		return &refusal{text: fmt.Sprintf("the session's active skill cannot be read (%v), so %s is refused to keep its allowlist applying; try again", err, c.name)}
	}
	if !ok {
		return nil
	}
	if _, denial := skills.Allow(a.ID, a.Tools, c.name); denial != "" {
		return &refusal{text: denial}
	}
	return nil
}

// skillsRequirement is met when at least one skill root exists. The roots
// are stated again only when a folder above one changed (rootsPresent):
// a call after a root was created or removed sees it, as before.
func (p *skillPlane) skillsRequirement() (bool, string) {
	if _, ok := p.rootsPresent.First(); ok {
		return true, ""
	}
	// The reference's skill files live outside the roots (docs/skills.md
	// §2): a workspace serving one has skills without any root.
	if p.reg.Snapshot().Len() > 0 {
		return true, ""
	}
	return false, fmt.Sprintf("no skill folder exists (%s); install a skill with vox_skill_install or vox_skill_add, or create one of those folders",
		strings.Join(p.reg.Config().SearchRoots(), ", "))
}

// sandboxRequirement is met when the sandbox self-test passed, or when
// the sandbox is explicitly off. The first call that needs it starts the
// self-test unless it ran already, and every call waits for its end.
func (p *skillPlane) sandboxRequirement() (bool, string) {
	if why := p.staticallyUnavailable(); why != "" {
		return false, why
	}
	if p.sandboxOff {
		return true, ""
	}
	rep, first := p.selfTest(p.s.opts.SkillSandbox)
	if first {
		logSelfTest(p.s.log, rep)
	}
	ok, why := p.sandboxVerdict(rep)
	if !ok {
		p.withdrawSandboxTools(why)
	}
	return ok, why
}

// sandboxVerdict is whether commands may run after the self-test rep,
// and why not. The opt-out is advised only where it works.
func (p *skillPlane) sandboxVerdict(rep sandbox.Report) (bool, string) {
	if rep.Err != nil {
		fix := "let the server create user namespaces"
		if runtime.GOOS != "linux" {
			fix = "see docs/sandbox.md, \"Where skill commands run\""
		}
		if unisolatedSupported() {
			fix += ", or start vox-mcp with VOX_SKILL_SANDBOX=off to run commands without isolation"
		}
		return false, fmt.Sprintf("the sandbox self-test failed on this host (%v), so vox_skill_run fails closed; %s", rep.Err, fix)
	}
	if err := rep.Problem(); err != nil {
		return false, fmt.Sprintf("vox_skill_run fails closed: %v", err)
	}
	return true, ""
}

// SkillRunUnavailable says why vox_skill_run cannot run commands here
// (and is not listed), "" when it can; it waits for the sandbox
// self-test, starting it if needed (vox_skill_discover reports it).
func (v *Services) SkillRunUnavailable() string {
	if v.s.skills == nil {
		return ""
	}
	if ok, why := v.s.skills.sandboxRequirement(); !ok {
		return why
	}
	return ""
}

// SkillRunAdvice is what an error of vox_skill_run that the host's
// sandbox caused may advise: the opt-out only where it works and is not
// already chosen.
func (v *Services) SkillRunAdvice() string {
	if v.s.skills != nil && !v.s.skills.sandboxOff && unisolatedSupported() {
		return "fix the host's sandbox support, or start vox-mcp with VOX_SKILL_SANDBOX=off to run without isolation"
	}
	return "fix the host's sandbox support (docs/sandbox.md, \"Where skill commands run\")"
}
