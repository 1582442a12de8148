package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/search"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// toolEntry is one tool of the MCP plane: its wire definition, where it
// comes from and the handler mcp-go dispatches to.
type toolEntry struct {
	tool    mcp.Tool
	source  string // registry.SourceCatalog, SourceWorkspace or SourceSkill
	handler mcpserver.ToolHandlerFunc
	// hidden tools are registered (dispatchable by name) but removed from
	// tools/list: workspace tools without the opt-in.
	hidden bool
	// op is the catalog row of a catalog tool, nil otherwise.
	op *registry.Operation
	// wsPath and wsLine are the source of a workspace tool (also in its
	// _meta), kept to compare definitions without holding on to the tool,
	// whose module an edit replaces.
	wsPath string
	wsLine int
	// recorded is the JSON the surface cache's record holds for a
	// workspace tool of the record's surface, which tools/list joins
	// instead of encoding the tool (tools_list.go); nil otherwise.
	recorded []byte
}

// toolSource supplies the current tools of one origin besides the
// catalog. Implementations return a fresh slice on every call.
type toolSource interface {
	toolEntries() []toolEntry
}

// changingToolSource is a toolSource that tells which of its tools may
// have changed since it was last asked (the workspace): a refresh that
// changed a few files then costs those files' tools, not the whole set
// (docs/federation.md §4).
type changingToolSource interface {
	// toolChanges brings the source's entries up to date and returns the
	// names whose entry was added, replaced or removed since the last
	// call; an entry whose definition did not change keeps its identity.
	toolChanges() []string
	// toolEntry is the current entry of a name (nil: none).
	toolEntry(name string) *toolEntry
	// eachToolEntry calls fn with every current entry.
	eachToolEntry(fn func(*toolEntry))
}

// namedEntry is a tool entry in a tree by name.
type namedEntry struct {
	name  string
	entry *toolEntry
}

// toolTreeDegree: nodes of up to 63 entries (see workspace.Surface).
const toolTreeDegree = 32

func newEntryTree() *btree.BTreeG[namedEntry] {
	return btree.NewG(toolTreeDegree, func(a, b namedEntry) bool { return a.name < b.name })
}

// toolSet is the merged, published set of tools; it is immutable. Its
// tree shares its nodes with the sets before and after it: a sync that
// changed a few tools copies only the nodes on their paths.
type toolSet struct {
	byName *btree.BTreeG[namedEntry]
	hidden int // how many entries are hidden

	// The list by name and the search index are built on first use (a
	// search), not at every sync.
	sortedOnce sync.Once
	sortedList []*toolEntry
	indexOnce  sync.Once
	index      *search.Index // documents in sorted order

	// list is the encoded tools/list result, built on the first list
	// (tools_list.go); encodedAt is where each listed entry's tool lies in
	// it, for the next set to reuse, built tells that both are, and
	// encoded is how many tools the build encoded rather than reused.
	// prev is the latest set published before whose list was built (nil
	// once this one's build read it): a set never listed passes on its
	// own prev, so that unlisted sets do not hold a chain of their
	// predecessors.
	listOnce  sync.Once
	list      []byte
	encodedAt map[*toolEntry][2]int
	built     atomic.Bool
	encoded   int
	prev      atomic.Pointer[toolSet]
}

// builtBase is the set whose encodings a set published after ts may
// reuse: ts once its list is built, else what ts itself would reuse.
func (ts *toolSet) builtBase() *toolSet {
	if ts == nil || ts.built.Load() {
		return ts
	}
	return ts.prev.Load()
}

// sorted returns the set's entries by name.
func (ts *toolSet) sorted() []*toolEntry {
	ts.sortedOnce.Do(func() {
		ts.sortedList = make([]*toolEntry, 0, ts.byName.Len())
		ts.byName.Ascend(func(it namedEntry) bool {
			ts.sortedList = append(ts.sortedList, it.entry)
			return true
		})
	})
	return ts.sortedList
}

// searchIndex returns the set's BM25 index over every tool.
func (ts *toolSet) searchIndex() *search.Index {
	ts.indexOnce.Do(func() {
		sorted := ts.sorted()
		docs := make([]search.Doc, len(sorted))
		for i, e := range sorted {
			docs[i] = toolSearchDoc(&e.tool)
		}
		ts.index = search.Build(docs)
	})
	return ts.index
}

// lookup returns the entry of a registered tool.
func (ts *toolSet) lookup(name string) (*toolEntry, bool) {
	it, ok := ts.byName.Get(namedEntry{name: name})
	return it.entry, ok
}

// currentTools is the published tool set.
func (s *Server) currentTools() *toolSet { return s.tools.Load() }

// syncTools merges the catalog with every source — the catalog wins, then
// the workspace, then skills — publishes the set, and registers with
// mcp-go (which notifies clients with tools/list_changed) only the
// definitions that changed. Only the names a source reports changed are
// merged again: the workspace tells which (changingToolSource), the
// others (skill macro tools, few) are compared whole. mcp-go gets the
// changes through AddTools or DeleteTools, each one list_changed; a sync
// that both adds and removes names registers the whole set with SetTools
// instead, so that clients are told once.
func (s *Server) syncTools() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()

	var names []string
	plain := make([]map[string]*toolEntry, len(s.sources))
	for i, src := range s.sources {
		if cs, ok := src.(changingToolSource); ok {
			names = append(names, cs.toolChanges()...)
			continue
		}
		plain[i] = entriesByName(src.toolEntries())
	}
	var skillTools map[string]*toolEntry
	if s.skills != nil {
		skillTools = entriesByName(s.skills.toolEntries())
	}
	if s.lastPlain != nil {
		for i, m := range plain {
			var old map[string]*toolEntry
			if i < len(s.lastPlain) {
				old = s.lastPlain[i]
			}
			names = changedEntries(names, old, m)
		}
		names = changedEntries(names, s.lastSkills, skillTools)
	}
	s.lastPlain, s.lastSkills = plain, skillTools
	// winner is the entry a name resolves to: the catalog's, else the
	// first source's that has it, else a skill's.
	winner := func(name string) *toolEntry {
		if e := s.catalogByName[name]; e != nil {
			return e
		}
		for i, src := range s.sources {
			if cs, ok := src.(changingToolSource); ok {
				if e := cs.toolEntry(name); e != nil {
					return e
				}
			} else if e := plain[i][name]; e != nil {
				return e
			}
		}
		return skillTools[name]
	}

	if s.registered == nil {
		return s.registerAll(plain, skillTools)
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	names = slices.Compact(names)
	prev := s.currentTools()
	work := s.registered.Clone()
	hidden := prev.hidden
	var added []mcpserver.ServerTool
	var removed []string
	for _, name := range names {
		e := winner(name)
		old, had := work.Get(namedEntry{name: name})
		if had && old.entry.hidden {
			hidden--
		}
		if e == nil {
			if had {
				work.Delete(namedEntry{name: name})
				removed = append(removed, name)
			}
			continue
		}
		if e.hidden {
			hidden++
		}
		work.ReplaceOrInsert(namedEntry{name: name, entry: e})
		// An entry published before is its own definition; others are
		// compared with what mcp-go has.
		if !had || old.entry != e && !sameTool(old.entry.tool, e.tool) {
			added = append(added, mcpserver.ServerTool{Tool: e.tool, Handler: e.handler})
		}
	}
	// The set is published before mcp-go registers it, so that the
	// AfterListTools hook already hides a new hidden tool that tools/list
	// may return once it is registered. A name in the set is therefore
	// not yet dispatchable: what must know that asks mcp-go
	// (waitFirstScan).
	set := &toolSet{byName: work.Clone(), hidden: hidden}
	set.prev.Store(prev.builtBase())
	s.tools.Store(set)
	if len(added) == 0 && len(removed) == 0 {
		s.registered = work
		s.listed.Store(set)
		return nil
	}
	return s.register(work, set, func() {
		switch {
		case len(added) > 0 && len(removed) > 0:
			s.mcp.SetTools(allTools(work)...)
		case len(added) > 0:
			s.mcp.AddTools(added...)
		default:
			s.mcp.DeleteTools(removed...)
		}
	})
}

// register makes mcp-go's registration the tree work, published as set,
// by change (SetTools, AddTools or DeleteTools). mcp-go panics on
// definitions it refuses: the previous registration keeps serving, the
// error reports it, and the next sync registers everything (registered
// stays nil until mcp-go took the change). A prepared tools/list waits
// while mcp-go switches: it notifies tools/list_changed as it registers,
// and a client listing at once must get the new tools (tools_list.go); a
// failed switch leaves tools/list to mcp-go.
func (s *Server) register(work *btree.BTreeG[namedEntry], set *toolSet, change func()) (err error) {
	s.registered = nil
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("registering tools: %v", r)
		}
	}()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	s.listed.Store(nil)
	change()
	s.registered = work
	s.listed.Store(set)
	// Clients list at once after list_changed: encode the list meanwhile.
	go set.listResult()
	return nil
}

// registerAll merges every tool into a new set, publishes it and
// registers it with mcp-go whole: the first sync, and the one after
// mcp-go refused a definition.
func (s *Server) registerAll(plain []map[string]*toolEntry, skillTools map[string]*toolEntry) error {
	work := newEntryTree()
	hidden := 0
	add := func(e *toolEntry) {
		if work.Has(namedEntry{name: e.tool.Name}) {
			return
		}
		work.ReplaceOrInsert(namedEntry{name: e.tool.Name, entry: e})
		if e.hidden {
			hidden++
		}
	}
	for i := range s.catalog {
		// By name: an entry replaced since New (a tool withdrawn from
		// the list, skills.go) is the one catalogByName holds.
		add(s.catalogByName[s.catalog[i].tool.Name])
	}
	for i, src := range s.sources {
		if cs, ok := src.(changingToolSource); ok {
			cs.eachToolEntry(add)
			continue
		}
		for _, e := range plain[i] {
			add(e)
		}
	}
	for _, e := range skillTools { // macro tools last: catalog and workspace tools win
		add(e)
	}
	set := &toolSet{byName: work.Clone(), hidden: hidden}
	s.tools.Store(set)
	return s.register(work, set, func() { s.mcp.SetTools(allTools(work)...) })
}

// allTools lists the tree's tools for mcp-go.
func allTools(t *btree.BTreeG[namedEntry]) []mcpserver.ServerTool {
	out := make([]mcpserver.ServerTool, 0, t.Len())
	t.Ascend(func(it namedEntry) bool {
		out = append(out, mcpserver.ServerTool{Tool: it.entry.tool, Handler: it.entry.handler})
		return true
	})
	return out
}

// entriesByName indexes a source's entries by name; the first of a name
// wins.
func entriesByName(entries []toolEntry) map[string]*toolEntry {
	m := make(map[string]*toolEntry, len(entries))
	for i := range entries {
		if _, taken := m[entries[i].tool.Name]; !taken {
			m[entries[i].tool.Name] = &entries[i]
		}
	}
	return m
}

// changedEntries appends to names those of the entries added, removed or
// given another definition or visibility between old and now.
func changedEntries(names []string, old, now map[string]*toolEntry) []string {
	for name, e := range now {
		if o, ok := old[name]; !ok || o.hidden != e.hidden || !sameTool(o.tool, e.tool) {
			names = append(names, name)
		}
	}
	for name := range old {
		if _, ok := now[name]; !ok {
			names = append(names, name)
		}
	}
	return names
}

// hideUnadvertised is the AfterListTools hook: it removes the registered
// but unadvertised tools (workspace tools without the opt-in) from the
// tools/list result. WithToolFilter is not used because mcp-go applies it
// to tools/call too, which would make hidden tools uncallable.
func (s *Server) hideUnadvertised(_ context.Context, _ any, _ *mcp.ListToolsRequest, result *mcp.ListToolsResult) {
	set := s.currentTools()
	if result == nil || set == nil || set.hidden == 0 || len(result.Tools) == 0 {
		return
	}
	result.Tools = set.withoutHidden(result.Tools)
}

// withoutHidden returns the tools that are not hidden in the set. mcp-go
// lists tools sorted by name, so the set's tree is walked beside the list
// from its first name; a list in another order is looked up tool by tool.
func (ts *toolSet) withoutHidden(tools []mcp.Tool) []mcp.Tool {
	kept := tools[:0:0]
	if !slices.IsSortedFunc(tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) }) {
		for _, t := range tools {
			if e, ok := ts.lookup(t.Name); !ok || !e.hidden {
				kept = append(kept, t)
			}
		}
		return kept
	}
	i := 0
	ts.byName.AscendGreaterOrEqual(namedEntry{name: tools[0].Name}, func(it namedEntry) bool {
		for i < len(tools) && tools[i].Name < it.name {
			kept = append(kept, tools[i]) // not in the set
			i++
		}
		if i < len(tools) && tools[i].Name == it.name {
			if !it.entry.hidden {
				kept = append(kept, tools[i])
			}
			i++
		}
		return i < len(tools)
	})
	return append(kept, tools[i:]...)
}

// catalogTool is the MCP definition of a catalog row.
func catalogTool(op *registry.Operation) mcp.Tool {
	m := op.MCP
	title := m.Title
	if title == "" {
		title = op.Title
	}
	var sideEffect any
	if op.SideEffectClass != "" {
		sideEffect = op.SideEffectClass
	}
	sideEffects := op.Classes()
	if sideEffects == nil {
		sideEffects = []string{}
	}
	requires := m.Requires
	if requires == nil {
		requires = []string{}
	}
	t := mcp.Tool{
		Name:           m.Name,
		Title:          title,
		Description:    op.Description,
		RawInputSchema: m.InputSchema,
		Meta: &mcp.Meta{AdditionalFields: map[string]any{
			"vox_source":                  registry.SourceCatalog,
			"vox_exposure":                m.Exposure,
			"vox_side_effect_class":       sideEffect,
			"vox_side_effects":            sideEffects,
			"vox_requires":                requires,
			"vox_product_lane":            op.ProductLane,
			"vox_http_read_role_eligible": m.HTTPReadRoleEligible,
		}},
		Annotations: catalogAnnotations(op),
		Execution:   catalogExecution(m),
	}
	if len(t.RawInputSchema) == 0 {
		t.RawInputSchema = json.RawMessage(registry.DefaultInputSchema)
	}
	if m.OutputSchema != nil {
		t.RawOutputSchema = m.OutputSchema
	}
	return t
}

// catalogAnnotations derives the MCP hints from the row's side-effect
// classes and requires (docs/contracts.md §1, the annotation table): a
// tool is read-only when every class is none or read_only, destructive
// when one removes (destructive, removes_state), idempotent when every
// class leaves the same state on a repeated call (none, read_only,
// changes_state, removes_state), and open-world when one is network or it
// requires the network. A row without a class gets no hints but
// openWorld.
func catalogAnnotations(op *registry.Operation) mcp.ToolAnnotation {
	var a mcp.ToolAnnotation
	classes := op.Classes()
	if len(classes) > 0 {
		readOnly, destructive, idempotent := true, false, true
		for _, c := range classes {
			switch c {
			case registry.SideEffectNone, registry.SideEffectReadOnly:
			case registry.SideEffectChangesState:
				readOnly = false
			case registry.SideEffectRemovesState:
				readOnly, destructive = false, true
			case registry.SideEffectDestructive:
				readOnly, destructive, idempotent = false, true, false
			default: // writes_files, spawns_process, network
				readOnly, idempotent = false, false
			}
		}
		a.ReadOnlyHint, a.DestructiveHint = ptr(readOnly), ptr(destructive)
		if idempotent {
			a.IdempotentHint = ptr(true)
		}
	}
	a.OpenWorldHint = ptr(slices.Contains(classes, registry.SideEffectNetwork) ||
		slices.Contains(op.MCP.Requires, registry.RequireNetwork))
	return a
}

func ptr[T any](v T) *T { return &v }

// sameTool reports whether two definitions are identical on the wire.
func sameTool(a, b mcp.Tool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.RawInputSchema, b.RawInputSchema) && bytes.Equal(a.RawOutputSchema, b.RawOutputSchema) &&
		reflect.DeepEqual(a.Annotations, b.Annotations) && reflect.DeepEqual(a.Meta, b.Meta) &&
		reflect.DeepEqual(a.Execution, b.Execution)
}

// toolSearchDoc is a tool's document in the search index: name (weight
// 1), description (2), input property names and their descriptions (0.5).
func toolSearchDoc(t *mcp.Tool) search.Doc {
	var props strings.Builder
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(t.RawInputSchema, &schema) == nil {
		for name, p := range schema.Properties {
			props.WriteString(name)
			props.WriteByte(' ')
			props.WriteString(p.Description)
			props.WriteByte(' ')
		}
	}
	return search.Doc{Key: t.Name, Fields: []search.Field{
		{Weight: 1, Text: t.Name},
		{Weight: 2, Text: t.Description},
		{Weight: 0.5, Text: props.String()},
	}}
}
