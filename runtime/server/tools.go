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

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/search"
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
}

// toolSource supplies the current tools of one origin besides the
// catalog. Implementations return a fresh slice on every call.
type toolSource interface {
	toolEntries() []toolEntry
}

// stableToolSource is a toolSource that can also return its entries as
// pointers that keep their identity while the definitions do not change,
// and the same slice when none changed (the workspace).
type stableToolSource interface {
	stableToolEntries() []*toolEntry
}

// syncInputs are the entries a successful syncTools published, to
// recognise a sync that has nothing to do.
type syncInputs struct {
	sources [][]*toolEntry
	skills  []toolEntry
}

// toolSet is the merged, published set of tools; it is immutable.
type toolSet struct {
	byName map[string]*toolEntry
	sorted []*toolEntry // by name
	hidden map[string]bool

	// The search index is built on the first search, not at start-up.
	indexOnce sync.Once
	index     *search.Index // documents in sorted order

	// list is the encoded tools/list result, built on the first list
	// (tools_list.go).
	listOnce sync.Once
	list     []byte
}

// searchIndex returns the set's BM25 index over every tool.
func (ts *toolSet) searchIndex() *search.Index {
	ts.indexOnce.Do(func() {
		docs := make([]search.Doc, len(ts.sorted))
		for i, e := range ts.sorted {
			docs[i] = toolSearchDoc(&e.tool)
		}
		ts.index = search.Build(docs)
	})
	return ts.index
}

// lookup returns the entry of a registered tool.
func (ts *toolSet) lookup(name string) (*toolEntry, bool) {
	e, ok := ts.byName[name]
	return e, ok
}

// currentTools is the published tool set.
func (s *Server) currentTools() *toolSet { return s.tools.Load() }

// syncTools merges the catalog with every source — the catalog wins, then
// the workspace, then skills — publishes the set, and re-registers with
// mcp-go (which notifies clients with tools/list_changed) only when some
// registered definition changed.
func (s *Server) syncTools() (err error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()

	in := syncInputs{sources: make([][]*toolEntry, len(s.sources))}
	for i, src := range s.sources {
		if st, ok := src.(stableToolSource); ok {
			in.sources[i] = st.stableToolEntries()
			continue
		}
		entries := src.toolEntries()
		ptrs := make([]*toolEntry, len(entries))
		for j := range entries {
			ptrs[j] = &entries[j]
		}
		in.sources[i] = ptrs
	}
	if s.skills != nil {
		in.skills = s.skills.toolEntries()
	}
	// Nothing to do when every source returned what it returned for the
	// last published set (the catalog never changes): a refresh that left
	// every definition as it was publishes nothing.
	if last := s.lastSync; last != nil && s.unchanged(last, &in) {
		return nil
	}
	s.lastSync = nil

	prev := s.currentTools()
	set := &toolSet{byName: make(map[string]*toolEntry, len(s.catalog)+len(prev.sortedOrNil())), hidden: map[string]bool{}}
	add := func(e *toolEntry) {
		if _, taken := set.byName[e.tool.Name]; taken {
			return
		}
		set.byName[e.tool.Name] = e
	}
	for i := range s.catalog {
		add(&s.catalog[i])
	}
	for _, entries := range in.sources {
		for _, e := range entries {
			add(e)
		}
	}
	for i := range in.skills { // macro tools last: catalog and workspace tools win
		add(&in.skills[i])
	}
	set.sorted = sortedEntries(set.byName, prev)
	changed := len(set.sorted) != len(s.registered)
	for _, e := range set.sorted {
		if e.hidden {
			set.hidden[e.tool.Name] = true
		}
		// An entry published before is its own definition; others are
		// compared with what mcp-go has.
		if prev, ok := s.registered[e.tool.Name]; !ok || prev != e && !sameTool(prev.tool, e.tool) {
			changed = true
		}
	}
	// The set is published before mcp-go registers it, so that the
	// AfterListTools hook already hides a new hidden tool that tools/list
	// may return once SetTools ran. A name in the set is therefore not yet
	// dispatchable: what must know that asks mcp-go (waitFirstScan).
	s.tools.Store(set)
	if !changed {
		s.registered = set.byName
		s.lastSync = &in
		s.listed.Store(set)
		return nil
	}
	tools := make([]mcpserver.ServerTool, len(set.sorted))
	for i, e := range set.sorted {
		tools[i] = mcpserver.ServerTool{Tool: e.tool, Handler: e.handler}
	}
	defer func() {
		// mcp-go panics on definitions it refuses; keep serving the
		// previous registration and report it. tools/list is mcp-go's
		// until a registration succeeds.
		if r := recover(); r != nil {
			err = fmt.Errorf("registering tools: %v", r)
		}
	}()
	// A prepared tools/list waits while mcp-go switches: it notifies
	// tools/list_changed from SetTools, and a client listing at once must
	// get the new tools (tools_list.go). A failed switch leaves
	// tools/list to mcp-go.
	s.listMu.Lock()
	defer s.listMu.Unlock()
	s.listed.Store(nil)
	s.mcp.SetTools(tools...)
	s.registered = set.byName
	s.lastSync = &in
	s.listed.Store(set)
	return nil
}

// unchanged reports whether a sync's inputs are those of the last one:
// the same entries from every stable source, the same definitions from
// the others.
func (s *Server) unchanged(last, in *syncInputs) bool {
	if len(last.skills) != len(in.skills) || len(last.sources) != len(in.sources) {
		return false
	}
	for i, src := range s.sources {
		if _, ok := src.(stableToolSource); ok {
			if !sameElems(last.sources[i], in.sources[i]) {
				return false
			}
		} else if !sameDefinitions(last.sources[i], in.sources[i]) {
			return false
		}
	}
	for i := range in.skills {
		if !sameTool(last.skills[i].tool, in.skills[i].tool) {
			return false
		}
	}
	return true
}

func sameDefinitions(a, b []*toolEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && (a[i].hidden != b[i].hidden || !sameTool(a[i].tool, b[i].tool)) {
			return false
		}
	}
	return true
}

// sortedOrNil returns the sorted entries of ts (nil for no set).
func (ts *toolSet) sortedOrNil() []*toolEntry {
	if ts == nil {
		return nil
	}
	return ts.sorted
}

// sortedEntries returns the entries of byName sorted by name. When the
// names are those of prev, prev's order is reused instead of sorting
// again.
func sortedEntries(byName map[string]*toolEntry, prev *toolSet) []*toolEntry {
	sorted := make([]*toolEntry, 0, len(byName))
	if p := prev.sortedOrNil(); len(p) == len(byName) {
		for _, e := range p {
			n, ok := byName[e.tool.Name]
			if !ok {
				break
			}
			sorted = append(sorted, n)
		}
		if len(sorted) == len(byName) {
			return sorted
		}
		sorted = sorted[:0]
	}
	for _, e := range byName {
		sorted = append(sorted, e)
	}
	slices.SortFunc(sorted, func(a, b *toolEntry) int { return strings.Compare(a.tool.Name, b.tool.Name) })
	return sorted
}

// hideUnadvertised is the AfterListTools hook: it removes the registered
// but unadvertised tools (workspace tools without the opt-in) from the
// tools/list result. WithToolFilter is not used because mcp-go applies it
// to tools/call too, which would make hidden tools uncallable.
func (s *Server) hideUnadvertised(_ context.Context, _ any, _ *mcp.ListToolsRequest, result *mcp.ListToolsResult) {
	set := s.currentTools()
	if result == nil || set == nil || len(set.hidden) == 0 {
		return
	}
	kept := result.Tools[:0:0]
	for _, t := range result.Tools {
		if !set.hidden[t.Name] {
			kept = append(kept, t)
		}
	}
	result.Tools = kept
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
		reflect.DeepEqual(a.Annotations, b.Annotations) && reflect.DeepEqual(a.Meta, b.Meta)
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
