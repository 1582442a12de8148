package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// workspaceSource is the workspace part of the MCP plane (
// docs/federation.md): the tools and resources of the repository's .vox files.
// It holds the current surface behind an atomic pointer; a refresh builds
// a new surface and swaps it in whole, so a call sees one surface from
// start to end and keeps the module it started with.
type workspaceSource struct {
	s         *Server
	loader    *workspace.Loader
	advertise bool
	surface   atomic.Pointer[workspace.Surface]
	reads     *resourceReads // the files each resource read (--watch tells their changes)

	// refreshMu serialises installs (the first scan, refreshes, the
	// watcher) so that a later refresh is never overwritten by an earlier
	// one finishing late.
	refreshMu sync.Mutex
	// scanned is set (under refreshMu) once a scan of the workspace was
	// installed: the first scan then has nothing left to do (firstScan).
	scanned bool
	// ready is closed when the first scan of the workspace was installed
	// (or failed).
	ready     chan struct{}
	readyOnce sync.Once
	// check is closed when the scan that checks a served record may start
	// (checkNow); checkOnce guards it.
	check     chan struct{}
	checkOnce sync.Once
	// snapshot is the generated snapshot the server started from, nil
	// when it started empty; the first scan is compared with it.
	snapshot *workspace.Snapshot
	// cold is set (before anything is served) when neither the snapshot
	// nor the surface cache could answer: tools/list then waits for the
	// first scan (waitFirstList).
	cold bool
	// cache records the surface of the first scan for the next start,
	// which serves it until its own first scan ends (workspace_cache.go);
	// nil records nothing.
	cache *surfaceCache
	// inputKey signs the request state of calls that ask their client
	// under protocol 2026-07-28 (workspace_call.go).
	inputKey func() []byte

	// entries are the tool entries of entrySurface by name, made with
	// entryWrites (entriesMu guards them; toolChanges).
	entriesMu    sync.Mutex
	entries      *btree.BTreeG[namedEntry]
	entrySurface *workspace.Surface
	entryWrites  bool
	// recorded are the tools' JSON in the surface cache's record by name,
	// given to the entries made for recordSurface, the record's surface
	// (installCached), until the first scan is installed.
	recorded      map[string]recordedEntry
	recordSurface *workspace.Surface

	// consent decides the powers of each surface installed (grant);
	// powers are the last ones granted, powersMu guards them.
	consent  *workspace.Consent
	powersMu sync.Mutex
	powers   *capability.Powers
}

func newWorkspaceSource(s *Server, advertise bool) *workspaceSource {
	w := &workspaceSource{s: s, advertise: advertise, reads: newResourceReads(), ready: make(chan struct{}), check: make(chan struct{})}
	w.inputKey = sync.OnceValue(func() []byte { return inputStateKey(s.opts.SessionKeys) })
	catalogNames := map[string]bool{}
	for _, e := range s.catalog {
		catalogNames[e.tool.Name] = true
	}
	w.loader = &workspace.Loader{Root: s.root, Log: s.log, Shadows: func(n string) bool { return catalogNames[n] }}
	w.surface.Store(workspace.Empty())
	w.cache = newSurfaceCache(s.opts.SurfaceCacheDir, s.root)
	if s.opts.Consent != nil {
		// The skill roots of VOX_SKILL_ROOTS inside the workspace are
		// protected like the standard ones (internal/protect).
		c := *s.opts.Consent
		c.ProtectDirs = append(slices.Clone(c.ProtectDirs), skills.ConfigFromEnv(s.root).Roots...)
		w.consent = &c
	}
	return w
}

// grant gives a surface about to be installed its powers
// (docs/security.md, "Consent: a repository grants itself nothing"):
// what its scan config asks for once vox trust recorded it, and the
// operator's; the trust records are read again at every install, so that
// vox trust takes effect at the next refresh. The powers of the last
// surface are kept when nothing changed; a change is logged, once.
func (w *workspaceSource) grant(s *workspace.Surface) *workspace.Surface {
	if s.Config == nil {
		return s
	}
	p, g := w.consent.Powers(w.s.root, s.Config)
	w.powersMu.Lock()
	defer w.powersMu.Unlock()
	if w.powers != nil && w.powers.Key == p.Key {
		s.Powers = w.powers
		return s
	}
	s.Powers, w.powers = p, p
	workspace.LogWithheld(w.s.log, g)
	return s
}

// start installs the snapshot when it describes the root (
// docs/federation.md §6), else the surface cache's record when it still
// describes the workspace, and scans the workspace in the background;
// otherwise the workspace surface stays empty until that first scan.
func (w *workspaceSource) start(snap *workspace.Snapshot) {
	fromSnapshot := false
	if snap != nil && snap.Describes(w.s.root) {
		cfg, err := workspace.LoadConfig(w.s.root)
		if err == nil {
			w.snapshot = snap
			w.surface.Store(w.grant(snap.Surface(w.s.root, cfg)))
			fromSnapshot = true
			w.s.log.Debug("serving the generated workspace snapshot until the first scan completes", "tools", len(snap.Tools))
		}
	}
	// Without a snapshot of the root, the record of the last start's
	// first scan serves meanwhile when it still describes the workspace.
	cached := !fromSnapshot && w.installCached()
	w.cold = !fromSnapshot && !cached
	gate := firstScanGate
	go func() {
		// Deferred first, so it runs last: after the record is saved and
		// the calls waiting for the first scan were let go.
		defer w.s.returnStartupMemory()
		defer w.readyOnce.Do(func() { close(w.ready) })
		if cached {
			// The record's files are those it was made from: what the
			// scan can still find is a file added since. It waits for the
			// client's first tools/list (or a request that needs it, or
			// recordCheckDelay), so that on a busy machine it does not
			// take the core the handshake and that list need.
			select {
			case <-w.check:
			case <-time.After(recordCheckDelay):
			}
		}
		if gate != nil {
			<-gate
		}
		workers := 0
		if fromSnapshot || cached {
			// The snapshot serves meanwhile: the rescan only checks it,
			// on one core, leaving the others to the first requests.
			workers = 1
		}
		if err := w.firstScan(workers); err != nil {
			w.s.log.Error("workspace scan failed; the workspace surface stays as it was", "err", err)
			return
		}
		w.entriesMu.Lock()
		w.recorded, w.recordSurface = nil, nil
		w.entriesMu.Unlock()
		if w.cache != nil {
			surface := w.surface.Load()
			if err := w.cache.save(surface, w.recordEntries(surface)); err != nil {
				w.s.log.Debug("cannot record the workspace surface for the next start", "err", err)
			}
		}
	}()
}

// recordCheckDelay is how long the scan that checks a served record waits
// at most for the client's first tools/list.
const recordCheckDelay = 100 * time.Millisecond

// checkNow lets the scan that checks a served record start: the client
// listed the tools, or a request waits for the first scan.
func (w *workspaceSource) checkNow() {
	w.checkOnce.Do(func() { close(w.check) })
}

// toolsListed is an AfterListTools hook: see checkRecord.
func (s *Server) toolsListed(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
	s.checkRecord()
}

// checkRecord is called when the client listed the tools (mcp-go's list
// or the prepared one, tools_list.go): the scan that checks a served
// record may start.
func (s *Server) checkRecord() {
	if s.workspace != nil {
		s.workspace.checkNow()
	}
}

// installCached installs the surface recorded by the last start
// (workspace_cache.go) when it still describes the workspace. It runs
// before the first registration, as the snapshot is installed: the first
// tools/list already lists the recorded tools.
func (w *workspaceSource) installCached() bool {
	if w.cache == nil {
		return false
	}
	cfg, err := workspace.LoadConfig(w.s.root)
	if err != nil {
		return false
	}
	snap, entries, why := w.cache.load(cfg)
	if why != nil {
		if !errors.Is(why, fs.ErrNotExist) {
			w.s.log.Debug("not serving the recorded workspace surface", "why", why)
		}
		return false
	}
	surface := w.grant(snap.Surface(w.s.root, cfg))
	w.entriesMu.Lock()
	w.recorded, w.recordSurface = entries, surface
	w.entriesMu.Unlock()
	w.surface.Store(surface)
	w.s.log.Debug("serving the recorded workspace surface until the first scan completes", "tools", len(snap.Tools), "entries", len(entries))
	return true
}

// fix serves a fixed surface: nothing is scanned and refreshes fail.
func (w *workspaceSource) fix(surface *workspace.Surface) {
	w.loader = nil
	w.surface.Store(surface)
	w.readyOnce.Do(func() { close(w.ready) })
}

// firstScanGate, when set by a test, holds the first scan back until it
// is closed, so the test can observe the start-up surface.
var firstScanGate chan struct{}

// refresh rescans the workspace and installs the new surface; on a fatal
// error the previous surface stays in service.
func (w *workspaceSource) refresh() (workspace.Result, error) { return w.refreshWith(0, nil) }

// firstScan replaces the surface the server started with (empty, the
// snapshot or the cache's record) by a scan of the workspace, unless a
// scan was installed already: a refresh (vox_workspace_mcp_refresh, the
// watcher, the fleet) that ran while the first scan waited for its turn
// started after the server did, so it read the files the first scan
// would read. Scanning them again would cost a whole scan on a machine
// busy enough to delay the first one, and tell every subscriber of a
// workspace resource of an update a second time (refreshWith) for one
// refresh they asked for.
func (w *workspaceSource) firstScan(workers int) error {
	w.refreshMu.Lock()
	defer w.refreshMu.Unlock()
	if w.scanned {
		return nil
	}
	_, err := w.refreshLocked(workers, nil)
	return err
}

// refreshWith is refresh compiling with at most workers files at once (0:
// GOMAXPROCS), telling progress how many files are done (nil: nobody).
func (w *workspaceSource) refreshWith(workers int, progress func(done, total int)) (workspace.Result, error) {
	w.refreshMu.Lock()
	defer w.refreshMu.Unlock()
	return w.refreshLocked(workers, progress)
}

// refreshLocked is refreshWith with refreshMu held.
func (w *workspaceSource) refreshLocked(workers int, progress func(done, total int)) (workspace.Result, error) {
	if w.loader == nil {
		return workspace.Result{}, errors.New("this server serves a fixed set of workspace tools and cannot refresh them")
	}
	w.loader.Workers = workers
	start := time.Now()
	fresh, err := w.loader.LoadReporting(progress)
	if err != nil {
		w.s.opts.Metrics.Refresh(time.Since(start), true) // metrics.go
		return workspace.Result{}, err
	}
	defer func() { w.s.opts.Metrics.Refresh(time.Since(start), false) }() // metrics.go: the surface installed
	if snap := w.snapshot; snap != nil {
		w.snapshot = nil
		if !reflect.DeepEqual(fresh.Snapshot(snap.Module), snap) {
			w.s.log.Info("the generated workspace snapshot differs from the workspace (it is stale); serving the fresh scan; run go generate ./... to update it")
		}
	}
	w.surface.Store(w.grant(fresh))
	w.scanned = true
	err = w.s.syncTools()
	w.s.syncResources()
	w.s.syncPrompts()
	// A resource function may read any file, so every refresh tells the
	// subscribers of every workspace resource, and of every subscribed URI
	// a template expands (docs/federation.md §11).
	uris := make([]string, 0, len(fresh.Resources))
	for _, r := range fresh.Resources {
		if !r.IsTemplate() {
			uris = append(uris, r.URI)
		}
	}
	expanded := w.s.expanded.expandedBy(fresh)
	w.s.notifyUpdated(uris...)
	w.s.expanded.forget(w.s.notifyUpdated(expanded...))
	// The previous surface is unreachable now (calls still running keep
	// their modules): return its memory after a large load.
	workspace.ReturnMemory(fresh)
	return fresh.Result, err
}

// wait blocks until the first scan was installed or ctx is done.
func (w *workspaceSource) wait(ctx context.Context) error {
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// toolEntries projects the surface's tools (docs/federation.md §2):
// _meta names the source file and line; annotations say closed-world
// (workspace code cannot reach the network) and read-only unless the tool
// can reach fs.write (found statically: workspace.Tool.Mutates) and
// writes are granted (docs/security.md, readOnlyHint). Without
// the opt-in they are hidden: registered and callable, not advertised.
func (w *workspaceSource) toolEntries() []toolEntry {
	w.toolChanges()
	var out []toolEntry
	w.eachToolEntry(func(e *toolEntry) { out = append(out, *e) })
	return out
}

// toolChanges brings the entries up to date with the current surface and
// returns the names whose entry changed (changingToolSource). A surface
// that a refresh made from the last one by merging a few files names
// the tools it changed (workspace.Surface.ToolChanges), and only those
// are projected again; otherwise every tool is. The entry of a tool
// whose definition did not change stays the same pointer (the handler
// dispatches by name, so it serves the new tool): syncTools then knows
// without comparing anything that there is nothing to register, and a
// refresh where one file's bodies changed registers nothing.
func (w *workspaceSource) toolChanges() []string {
	surface := w.surface.Load()
	// A tool that can reach fs.write may change files once writes are
	// granted; every other tool is read-only, and all are while no write
	// is granted (docs/security.md, readOnlyHint).
	writes := surface.Powers.CanWrite()
	w.entriesMu.Lock()
	defer w.entriesMu.Unlock()
	if w.entries == nil {
		w.entries = newEntryTree()
	}
	if surface == w.entrySurface && writes == w.entryWrites {
		return nil
	}
	var changed []string
	update := func(t *workspace.Tool) {
		if prev, ok := w.entries.Get(namedEntry{name: t.Name}); ok && sameWorkspaceDefinition(prev.entry, t, writes && t.Mutates) {
			return
		}
		e := &toolEntry{
			tool:    workspaceTool(t, writes && t.Mutates),
			source:  registry.SourceWorkspace,
			handler: w.toolHandler(t.Name),
			hidden:  !w.advertise,
			wsPath:  t.Path,
			wsLine:  t.Line,
		}
		// The record's JSON of this very tool: the record's surface, its
		// name, its read-only hint (workspace_cache.go).
		if rec, ok := w.recorded[t.Name]; ok && surface == w.recordSurface && rec.Name == t.Name && rec.ReadOnly == !(writes && t.Mutates) {
			e.recorded = rec.JSON
		}
		w.entries.ReplaceOrInsert(namedEntry{name: t.Name, entry: e})
		changed = append(changed, t.Name)
	}
	if names, ok := surface.ToolChanges(w.entrySurface); ok && writes == w.entryWrites {
		for _, name := range names {
			if t, ok := surface.Tool(name); ok {
				update(t)
			} else if _, had := w.entries.Delete(namedEntry{name: name}); had {
				changed = append(changed, name)
			}
		}
	} else {
		var gone []string
		w.entries.Ascend(func(it namedEntry) bool {
			if _, ok := surface.Tool(it.name); !ok {
				gone = append(gone, it.name)
			}
			return true
		})
		for _, name := range gone {
			w.entries.Delete(namedEntry{name: name})
		}
		changed = append(changed, gone...)
		for _, t := range surface.Tools() {
			update(t)
		}
	}
	w.entrySurface, w.entryWrites = surface, writes
	return changed
}

// recordEntries is the JSON of the listed workspace tools of surface
// for its record (workspace_cache.go): what the server encoded for
// tools/list — taken from the listed set when it holds the entry, else
// encoded here, as the list encodes it — for each current entry that is
// the definition of the surface's tool.
func (w *workspaceSource) recordEntries(surface *workspace.Surface) []recordedEntry {
	if !w.advertise {
		return nil
	}
	var set *toolSet
	if l := w.s.listed.Load(); l != nil && l.built.Load() {
		set = l
	}
	writes := surface.Powers.CanWrite()
	var out []recordedEntry
	w.eachToolEntry(func(e *toolEntry) {
		t, ok := surface.Tool(e.tool.Name)
		if !ok || e.hidden || !sameWorkspaceDefinition(e, t, writes && t.Mutates) {
			return
		}
		var b []byte
		if set != nil {
			if at, ok := set.encodedAt[e]; ok {
				b = set.list[at[0]:at[1]]
			}
		}
		if b == nil {
			var err error
			if b, err = json.Marshal(e.tool); err != nil {
				return
			}
		}
		out = append(out, recordedEntry{Name: e.tool.Name, ReadOnly: *e.tool.Annotations.ReadOnlyHint, JSON: b})
	})
	return out
}

// toolEntry is the current entry of a workspace tool (changingToolSource;
// after toolChanges).
func (w *workspaceSource) toolEntry(name string) *toolEntry {
	w.entriesMu.Lock()
	defer w.entriesMu.Unlock()
	if w.entries == nil {
		return nil
	}
	it, _ := w.entries.Get(namedEntry{name: name})
	return it.entry
}

// eachToolEntry calls fn with every current entry, by name.
func (w *workspaceSource) eachToolEntry(fn func(*toolEntry)) {
	w.entriesMu.Lock()
	defer w.entriesMu.Unlock()
	if w.entries == nil {
		return
	}
	w.entries.Ascend(func(it namedEntry) bool {
		fn(it.entry)
		return true
	})
}

// sameWorkspaceDefinition reports whether the entry of a workspace tool
// is the definition of t (workspaceTool).
func sameWorkspaceDefinition(e *toolEntry, t *workspace.Tool, writes bool) bool {
	return e.tool.Name == t.Name && e.tool.Description == t.Description && bytes.Equal(e.tool.RawInputSchema, t.InputSchema) &&
		bytes.Equal(e.tool.RawOutputSchema, t.OutputSchema) && e.wsPath == t.Path && e.wsLine == t.Line &&
		*e.tool.Annotations.ReadOnlyHint == !writes && (e.tool.Execution != nil) == t.LongRunning
}

func workspaceTool(t *workspace.Tool, writes bool) mcp.Tool {
	return mcp.Tool{
		Name:           t.Name,
		Description:    t.Description,
		RawInputSchema: t.InputSchema,
		// Set for object-shaped results only: a client then requires
		// structuredContent to match it (docs/tool-results.md §2).
		RawOutputSchema: t.OutputSchema,
		Meta: &mcp.Meta{AdditionalFields: map[string]any{
			"vox_source":      registry.SourceWorkspace,
			"vox_source_path": t.Path,
			"vox_source_line": t.Line,
		}},
		Annotations: mcp.ToolAnnotation{ReadOnlyHint: ptr(!writes), OpenWorldHint: ptr(false)},
		Execution:   workspaceExecution(t),
	}
}

// workspaceExecution is a workspace tool's execution member: task support
// optional when it is declared @long_running (docs/tasks.md §3).
func workspaceExecution(t *workspace.Tool) *mcp.ToolExecution {
	if !t.LongRunning {
		return nil
	}
	return &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
}

// toolHandler dispatches a call of the named workspace tool to the
// surface current when the call starts.
func (w *workspaceSource) toolHandler(name string) mcpserver.ToolHandlerFunc {
	// The tool's logger (print() writes there) is made on the first call
	// and kept: deriving it costs more than a small tool's whole run, and
	// most registered tools are never called.
	var log atomic.Pointer[slog.Logger]
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		surface := w.surface.Load()
		t, ok := surface.Tool(name)
		if !ok {
			return errorResult(fmt.Sprintf("workspace tool %s is gone since the last refresh; call vox_tool_search to find the current tools", name)), nil
		}
		l := log.Load()
		if l == nil {
			l = w.s.log.With("tool", name)
			log.Store(l)
		}
		return w.callTool(ctx, surface, t, req, l)
	}
}

// resourceEntries projects the surface's resources (docs/federation.md §5).
func (w *workspaceSource) resourceEntries() []resourceEntry {
	surface := w.surface.Load()
	out := make([]resourceEntry, 0, len(surface.Resources))
	for _, r := range surface.Resources {
		if r.IsTemplate() {
			continue // a template (resource_templates.go)
		}
		out = append(out, resourceEntry{
			resource: mcp.Resource{
				URI:         r.URI,
				Name:        r.Func,
				Description: r.Description,
				MIMEType:    r.MIMEType,
				Meta: &mcp.Meta{AdditionalFields: map[string]any{
					"vox_source":      registry.SourceWorkspace,
					"vox_source_path": r.Path,
					"vox_source_line": r.Line,
				}},
			},
			handler: w.resourceHandler(r.URI),
		})
	}
	return out
}

func (w *workspaceSource) resourceHandler(uri string) mcpserver.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		surface := w.surface.Load()
		r, ok := surface.Resource(uri)
		if !ok {
			return nil, fmt.Errorf("workspace resource %s is gone since the last refresh", uri)
		}
		ctx = toolcall.WithClient(ctx, w.s.clientOf(ctx, req.Params.Meta))
		return w.readResource(ctx, surface, r, uri, nil)
	}
}

// RefreshWorkspace rescans the workspace like vox_workspace_mcp_refresh.
func (s *Server) RefreshWorkspace() (workspace.Result, error) { return s.workspace.refresh() }

// WaitWorkspace blocks until the first workspace scan was installed.
func (s *Server) WaitWorkspace(ctx context.Context) error { return s.workspace.wait(ctx) }

// WatchSkills reloads the skills when their folders change until ctx is
// done (vox-mcp --watch; docs/skills.md §5): a changed skill is announced
// like an installed one — its prompt, resources and macro tools are
// registered again, list_changed is sent, and the sessions subscribed to
// its skill:// files get notifications/resources/updated.
func (s *Server) WatchSkills(ctx context.Context) error {
	if s.skills == nil {
		return nil
	}
	return s.skills.reg.Watch(ctx, skills.WatchOptions{
		Log: s.log,
		Reloaded: func(warnings []string) {
			for _, w := range warnings {
				s.log.Warn("skill discovery: " + w)
			}
			s.log.Info("skills reloaded after a change of their folders", "skills", s.skills.reg.Snapshot().Len())
		},
	})
}

// WatchWorkspace refreshes the workspace on file changes until ctx is done
// (vox-mcp --watch).
func (s *Server) WatchWorkspace(ctx context.Context) error {
	return workspace.Watch(ctx, workspace.WatchOptions{
		Root: s.root,
		Log:  s.log,
		Config: func() *workspace.Config {
			if cfg, err := workspace.LoadConfig(s.root); err == nil {
				return cfg
			}
			return s.workspace.surface.Load().Config
		},
		OnChange: func() {
			res, err := s.workspace.refresh()
			if err != nil {
				s.log.Error("workspace refresh after a file change failed; keeping the previous surface", "err", err)
				return
			}
			s.log.Info("workspace refreshed after a file change", "tools", res.ToolCount, "resources", res.ResourceCount, "errors", len(res.Errors))
		},
		// The files resources read: a change tells the subscribers of the
		// resources that read them (docs/federation.md §11).
		Data:   s.workspace.reads.files,
		Resync: s.workspace.reads.resync,
		OnData: func(files []string) {
			if uris := s.workspace.reads.readers(files); len(uris) > 0 {
				s.log.Info("files read by resources changed", "files", files, "resources", uris)
				s.notifyUpdated(uris...)
			}
		},
	})
}

// firstScanWait bounds how long a request waits for the first scan.
const firstScanWait = 60 * time.Second

// waitFirstScan is an OnRequestInitialization hook: while the first
// workspace scan is running (a root without a usable snapshot starts with
// an empty workspace surface), a tools/call of a tool that is not
// registered yet, or a resources/read of an unknown URI, waits for that
// scan instead of failing as unknown — a client that connects and calls a
// workspace tool at once gets its answer. Other requests, and every request
// once the first scan is installed, pass straight through.
func (s *Server) waitFirstScan(ctx context.Context, _ any, message any) error {
	w := s.workspace
	if w == nil {
		return nil
	}
	select {
	case <-w.ready:
		return nil
	default:
	}
	raw, ok := message.(json.RawMessage)
	if !ok {
		return nil
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if unmarshal(raw, &req) != nil {
		return nil
	}
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodToolsCall:
		// Known means registered with mcp-go, which dispatches the call
		// next: syncTools publishes its tool set before SetTools, so a
		// name in the published set may not be dispatchable yet, and a
		// call let through then would answer "tool not found".
		if s.mcp.GetTool(req.Params.Name) != nil {
			return nil
		}
	case mcp.MethodResourcesRead:
		if _, known := s.mcp.ListResources()[req.Params.URI]; known {
			return nil
		}
	case mcp.MethodToolsList:
		// mcp-go's list (HTTP, or a list the prepared one does not answer).
		s.waitFirstList(ctx)
		return nil
	default:
		return nil
	}
	w.checkNow()
	ctx, cancel := context.WithTimeout(ctx, firstScanWait)
	defer cancel()
	_ = w.wait(ctx) // on timeout mcp-go answers as for any unknown name
	return nil
}
