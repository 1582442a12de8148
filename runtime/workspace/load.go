package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"

	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/uritemplate"
	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// validToolName checks registry.ToolNamePattern (^[A-Za-z0-9_-]{1,64}$)
// without a regexp: a refresh checks every tool of the workspace.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Result is the refresh result (docs/federation.md §1), returned by
// vox_workspace_mcp_refresh and embedded in the parity gate's summary.
// Arrays are sorted and never nil.
type Result struct {
	ToolCount          int         `json:"tool_count"`
	ResourceCount      int         `json:"resource_count"`
	Shadowed           []string    `json:"shadowed"`
	DuplicateTools     []string    `json:"duplicate_tools"`
	DuplicateResources []string    `json:"duplicate_resources"`
	Errors             []FileError `json:"errors"`
}

// Tool is one workspace tool of a surface.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage // canonical literal
	// OutputSchema is set when the declared result type is object-shaped
	// (docs/tool-results.md §2); nil otherwise.
	OutputSchema json.RawMessage
	Signature    string
	Path         string // repo-relative source path
	Line         int    // 1-based declaration line
	Hash         string // SHA-256 of the source file the tool was scanned from
	// Mutates: the tool can reach fs.write (vox.Tool.Mutates); with writes
	// granted it is not advertised as read-only.
	Mutates bool
	// LongRunning: declared @long_running (vox.Tool.LongRunning), so a
	// client may call it as a durable task.
	LongRunning bool
	file        *File
}

// Resource is one workspace resource of a surface. A resource whose URI
// is a template (docs/vox-language.md, Resources with URI parameters) has
// Variables; it is listed as a resource template and read through
// Surface.MatchResource.
type Resource struct {
	URI         string
	Description string
	MIMEType    string
	Func        string
	Variables   []string // the URI template's variables; nil for a plain URI
	Completions []Completion
	Path        string
	Line        int
	Hash        string
	file        *File
	template    *uritemplate.Template // parsed URI, when Variables is set
}

// IsTemplate reports whether the resource's URI is a template.
func (r *Resource) IsTemplate() bool { return r.template != nil }

// Prompt is one workspace prompt of a surface, a function declared with
// @mcp.prompt (docs/vox-language.md, Prompts).
type Prompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument // in parameter order
	Completions []Completion
	Path        string
	Line        int
	Hash        string
	file        *File
}

// Completion names the function that completes an argument of a prompt
// or a variable of a resource template (docs/vox-language.md, Completion).
type Completion = vox.Completion

// PromptArgument is one argument of a workspace prompt: a string,
// required unless its parameter is Option[str] or has a default.
type PromptArgument struct {
	Name        string
	Description string // the @param line of its doc comment, "" when none
	Required    bool
}

// File is one scanned source file and its compiled module. The module is
// replaced (never mutated) when a call finds the file changed on disk
// (docs/federation.md §3); callers keep the module they obtained.
type File struct {
	Path string
	Abs  string // "" for an embedded file, whose content is data
	data []byte
	// root is the workspace root the file is read beneath, at the scan
	// and at every call's check (nil for an embedded file).
	root *rootDir
	mu   sync.Mutex // serialises recompiles
	cur  atomic.Pointer[compiled]
	// checked is the root's count of changes (rootDir.changes) when a
	// call last found cur current; 0 when none did while tracked.
	checked atomic.Uint64
}

// compiled is one compilation of a file's content.
type compiled struct {
	size    int64
	modTime time.Time
	hash    string
	module  *vox.Module // nil when the file could not be read
	readErr string

	// decls are the module's tools and resources as surface entries,
	// built once per compilation: a refresh that reuses the compilation
	// reuses them too.
	declsOnce sync.Once
	tools     []*Tool
	toolPos   []vox.Tool
	resources []*Resource
	resPos    []vox.Resource
}

// decls returns the surface entries of a compiled file f.
func (c *compiled) decls(f *File) ([]*Tool, []vox.Tool, []*Resource, []vox.Resource) {
	c.declsOnce.Do(func() {
		c.toolPos = c.module.Tools()
		c.resPos = c.module.Resources()
		// One allocation for the entries of a file, one for pointers to them.
		tools := make([]Tool, len(c.toolPos))
		c.tools = make([]*Tool, len(c.toolPos))
		for i, t := range c.toolPos {
			tools[i] = Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema),
				OutputSchema: json.RawMessage(t.OutputSchema), Signature: t.Signature, Path: f.Path, Line: t.Line, Hash: c.hash, Mutates: t.Mutates, LongRunning: t.LongRunning, file: f}
			c.tools[i] = &tools[i]
		}
		resources := make([]Resource, len(c.resPos))
		c.resources = make([]*Resource, len(c.resPos))
		for i, r := range c.resPos {
			resources[i] = Resource{URI: r.URI, Description: r.Description, MIMEType: r.MIMEType, Func: r.Func, Variables: r.Variables, Completions: r.Completions,
				Path: f.Path, Line: r.Line, Hash: c.hash, file: f, template: newTemplate(r.URI, r.Variables)}
			c.resources[i] = &resources[i]
		}
	})
	return c.tools, c.toolPos, c.resources, c.resPos
}

// Surface is the workspace surface of one refresh. It is immutable apart
// from the per-file recompiles, which swap whole modules atomically.
type Surface struct {
	Root   string // the workspace root (fs.* paths are relative to it)
	Config *Config
	// Powers are what its calls may do beyond reading the workspace, as
	// the person running the server granted them (Consent.Powers); nil
	// grants nothing. Whoever installs the surface sets them.
	Powers    *capability.Powers
	Resources []*Resource // in scan order (Snapshot sorts them by URI)
	Prompts   []*Prompt   // in scan order; a name declared twice keeps the first
	Result    Result
	// Findings locate the shadowed and duplicate declarations of Result,
	// in scan order (the parity gate reports them with positions).
	Findings []Finding
	// tools are the tools by name, a B-tree whose nodes the surfaces of
	// successive refreshes share: a refresh that changed a few files
	// copies only the nodes on the paths to those files' tools, so adding
	// or removing a file costs its own tools, not the workspace's
	// (docs/federation.md §4). It is never written once the surface is
	// built.
	tools     *btree.BTreeG[toolItem]
	resources map[string]*Resource // by URI
	prompts   map[string]int
	files     map[string]*File // by path, for snapshot surfaces
	// compiledBytes is the size of the sources the load compiled anew
	// (ReturnMemory).
	compiledBytes int64
	// gen identifies the surface among a loader's; a surface made from
	// the one of generation base by changing a few files names the tools
	// added, replaced or removed in changedTools (ToolChanges).
	gen, base    uint64
	changedTools []string

	toolsOnce sync.Once
	toolList  []*Tool
}

// toolItem is a tool in a surface's tree, keyed by name.
type toolItem struct {
	name string
	tool *Tool
}

// toolTreeDegree is the B-tree's degree: nodes of up to 63 tools, so a
// change copies a few hundred pointers per level of a tree 3 or 4 levels
// deep at 160,000 tools.
const toolTreeDegree = 32

func newToolTree() *btree.BTreeG[toolItem] {
	return btree.NewG(toolTreeDegree, func(a, b toolItem) bool { return a.name < b.name })
}

// surfaceGen numbers the surfaces loads make (Surface.gen).
var surfaceGen atomic.Uint64

// Tools returns the surface's tools sorted by name. It is built on the
// first call: a refresh never needs the whole list (ToolChanges).
func (s *Surface) Tools() []*Tool {
	if s == nil {
		return nil
	}
	s.toolsOnce.Do(func() {
		s.toolList = make([]*Tool, 0, s.tools.Len())
		s.tools.Ascend(func(it toolItem) bool {
			s.toolList = append(s.toolList, it.tool)
			return true
		})
	})
	return s.toolList
}

// ToolCount is the number of tools of the surface.
func (s *Surface) ToolCount() int {
	if s == nil {
		return 0
	}
	return s.tools.Len()
}

// ToolChanges returns the names of the tools added, replaced or removed
// between prev and s when a load made s from prev by merging only the
// files that changed (sorted, each once); ok is false when s is
// not known to follow prev, and the caller compares the whole surfaces.
// A replaced tool may have kept its definition (an edited body).
func (s *Surface) ToolChanges(prev *Surface) (names []string, ok bool) {
	if s == nil || prev == nil || s.base == 0 || s.base != prev.gen {
		return nil, false
	}
	return s.changedTools, true
}

// returnMemoryBytes is the size of the sources compiled by a load past
// which ReturnMemory returns the memory freed to the system: about 600
// files of 1.5 KB, whose compilation takes some 200 ms, ten times the
// collection (docs/benchmarks.md, Refresh).
const returnMemoryBytes = 1 << 20

// ReturnMemory hands the memory freed since the load of s to the system
// when that load compiled much: the caller installed s and stopped
// serving the surface before it, so that surface is garbage now. A load
// holds the old surface and builds the new one beside it (the old one
// serves calls until the swap, docs/federation.md §3), and the Go
// runtime would keep the pages of both — and a heap grown to twice the
// live one — mapped for minutes; debug.FreeOSMemory collects and returns
// them at once, which costs one collection, a fraction of such a load
// (docs/benchmarks.md, Refresh). A small load returns nothing: the
// collection would cost more than the load.
func ReturnMemory(s *Surface) {
	if s != nil && s.compiledBytes >= returnMemoryBytes {
		debug.FreeOSMemory()
	}
}

// Prompt returns the prompt with the given name.
func (s *Surface) Prompt(name string) (*Prompt, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := s.prompts[name]
	if !ok {
		return nil, false
	}
	return s.Prompts[i], true
}

// prompts makes the surface entries of the prompts a compiled file
// declares.
func (c *compiled) prompts(f *File) []*Prompt {
	decl := c.module.Prompts()
	out := make([]*Prompt, len(decl))
	for i, p := range decl {
		args := make([]PromptArgument, len(p.Arguments))
		for j, a := range p.Arguments {
			args[j] = PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
		out[i] = &Prompt{Name: p.Name, Description: p.Description, Arguments: args, Completions: p.Completions, Path: f.Path, Line: p.Line, Hash: c.hash, file: f}
	}
	return out
}

// Tool returns the tool with the given name.
func (s *Surface) Tool(name string) (*Tool, bool) {
	if s == nil {
		return nil, false
	}
	it, ok := s.tools.Get(toolItem{name: name})
	return it.tool, ok
}

// Finding is a declaration that was not added to the surface.
type Finding struct {
	Kind      FindingKind
	Name      string // tool name or resource URI
	Path      string
	Line, Col int
	// FirstPath and FirstLine locate the declaration that won (for
	// duplicates).
	FirstPath string
	FirstLine int
}

// FindingKind says why a declaration was not added.
type FindingKind string

// The kinds of findings.
const (
	Shadowed          FindingKind = "shadowed"
	DuplicateTool     FindingKind = "duplicate_tool"
	DuplicateResource FindingKind = "duplicate_resource"
)

// Empty is the surface of a workspace not scanned yet.
func Empty() *Surface {
	return &Surface{Config: DefaultConfig(), Resources: []*Resource{}, Prompts: []*Prompt{}, Result: newResult(),
		tools: newToolTree(), resources: map[string]*Resource{}, prompts: map[string]int{}, files: map[string]*File{}}
}

func newResult() Result {
	return Result{Shadowed: []string{}, DuplicateTools: []string{}, DuplicateResources: []string{}, Errors: []FileError{}}
}

// Loader scans and compiles a workspace. It keeps the files of the last
// load so that the next one recompiles only the files whose size,
// modification time or content changed. A Loader is safe for concurrent
// use; loads are serialised.
type Loader struct {
	// Root is the workspace root.
	Root string
	// Shadows reports whether a tool name belongs to the catalog; such
	// workspace tools are shadowed (reported, not served). Nil: none. It
	// must answer the same for a name from one load to the next: a load
	// reuses what the last one merged for the files that did not change.
	Shadows func(name string) bool
	// Log receives the notices, per-file errors and shadowed names.
	Log *slog.Logger
	// Workers bounds the files compiled at once; 0 means GOMAXPROCS.
	Workers int

	mu    sync.Mutex
	last  *loadState // the previous load; nil before the first
	root  *rootDir   // Root, open
	walks int        // the loads that walked the tree (for tests)
}

// loadState is what a load leaves to the next: its files in scan order and
// what its merge found, so that a refresh where few files changed costs
// the stat of each file and work proportional to the changes.
type loadState struct {
	files   []*File
	byPath  map[string]*File // files by path, built when the file list changed
	surface *Surface
	merge   mergeState
	// srcs are the files as scanned, recheck the paths to scan at every
	// refresh from changes, vouched whether the changes since are
	// recorded in full; dir and config are the root and config scanned
	// (refresh.go).
	srcs    []SourceFile
	recheck []string
	vouched bool
	dir     *safefs.Root
	config  *Config
}

// Load reads the scan config, scans and compiles the workspace and merges
// it into a surface (docs/federation.md §1). The error is fatal — an
// invalid config or glob, an unreadable root — and the caller keeps its
// previous surface; per-file problems are in the result instead.
func (l *Loader) Load() (*Surface, error) { return l.LoadReporting(nil) }

// LoadReporting is Load telling progress how many of the scanned files
// are compiled (or kept from the last load), growing, at most about a
// hundred times and always when all are; nil reports nothing.
func (l *Loader) LoadReporting(progress func(done, total int)) (*Surface, error) {
	cfg, err := LoadConfig(l.Root)
	if err != nil {
		return nil, err
	}
	return l.loadWith(cfg, progress)
}

// LoadWith is Load with an already read config.
func (l *Loader) LoadWith(cfg *Config) (*Surface, error) { return l.loadWith(cfg, nil) }

func (l *Loader) loadWith(cfg *Config, progress func(done, total int)) (*Surface, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	log := l.log()
	if cfg.Missing {
		log.Info("no workspace scan config; scanning with the defaults", "config", ConfigPath, "scan_globs", DefaultScanGlobs)
	}
	if l.root == nil || l.root.path != l.Root {
		l.root = newRootDir(l.Root)
	}
	dir, err := l.root.reopen()
	if err != nil {
		return nil, &ScanError{Msg: fmt.Sprintf("workspace root %s: %s", l.Root, unwrapPathError(err))}
	}
	found, incremental := l.fromChanges(dir, cfg)
	if !incremental {
		if found, err = l.walkTree(dir, cfg); err != nil {
			return nil, err
		}
	}
	srcs, scanErrs := found.files, found.errs
	files, compiledBytes := l.compileAll(dir, srcs, found.splice, newFileProgress(progress, len(srcs)))
	if !incremental {
		// A refresh from changes watches what the walk before it did: a
		// file it added is in a watched folder.
		l.root.track(files, found.walked)
	}
	s, ms := l.mergeChanges(cfg, files, scanErrs, found.splice)
	if s == nil {
		s, ms = merge(cfg, files, scanErrs, l.Shadows)
	}
	// The tree of tools the next load changes is this one's; the surface
	// gets a copy that shares its nodes until then (Surface.tools).
	s.tools = ms.tools.Clone()
	s.Root, s.compiledBytes = l.Root, compiledBytes
	for _, e := range s.Result.Errors {
		log.Warn("workspace file error", "path", e.Path, "error", e.Message)
	}
	for _, name := range s.Result.Shadowed {
		log.Warn("workspace tool shadowed by a catalog tool of the same name; it is not served", "tool", name)
	}
	for _, name := range s.Result.DuplicateTools {
		log.Warn("duplicate workspace tool; the first declaration wins", "tool", name)
	}
	for _, uri := range s.Result.DuplicateResources {
		log.Warn("duplicate workspace resource; the first declaration wins", "uri", uri)
	}
	l.last = &loadState{files: files, surface: s, merge: ms, srcs: srcs, recheck: found.recheck, vouched: found.vouched, dir: dir, config: cfg}
	return s, nil
}

func (l *Loader) log() *slog.Logger {
	if l.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Log
}

// compileAll returns one File per source, in order. A file whose size and
// modification time match the previous load keeps its compilation without
// being read; a changed one is read and hashed, and keeps its module when
// the content is the same; the others are compiled in parallel. When
// sp is not nil, srcs are the last load's sources with those sp names
// removed, added or changed, and the others keep the last load's files
// unexamined (refresh.go).
func (l *Loader) compileAll(dir *safefs.Root, srcs []SourceFile, sp *splice, progress *fileProgress) ([]*File, int64) {
	var files, olds []*File
	var todo []int
	check := func(i int, old *File) {
		src := srcs[i]
		olds[i] = old
		if old != nil && old.Abs == src.Abs && old.root == l.root {
			if c := old.cur.Load(); c != nil && c.module != nil && c.size == src.Size && c.modTime.Equal(src.ModTime) {
				files[i] = old
				return
			}
		}
		todo = append(todo, i)
	}
	if sp != nil {
		files, olds = align(sp, l.last.files, len(srcs)), make([]*File, len(srcs))
		for _, p := range sp.changed {
			check(p[0], l.last.files[p[1]])
		}
		for _, i := range sp.added {
			check(i, nil)
		}
	} else {
		files, olds = make([]*File, len(srcs)), make([]*File, len(srcs))
		for i := range srcs {
			check(i, l.previous(i, srcs[i].Path))
		}
	}
	progress.add(len(srcs) - len(todo))
	if len(todo) == 0 {
		return files, 0
	}
	var compiledBytes int64
	for _, i := range todo {
		compiledBytes += srcs[i].Size
	}
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				i := todo[k]
				src := srcs[i]
				var prevC *compiled
				if old := olds[i]; old != nil {
					prevC = old.cur.Load()
				}
				f := &File{Path: src.Path, Abs: src.Abs, root: l.root}
				f.cur.Store(compileFile(dir, src.Path, prevC, true))
				files[i] = f
				progress.add(1)
			}
		}()
	}
	wg.Wait()
	return files, compiledBytes
}

// fileProgress counts the files of a load that are done and reports the
// count, growing, every hundredth of the total and at the end.
type fileProgress struct {
	report          func(done, total int)
	total, step     int
	mu              sync.Mutex
	done, reported  int
	reportedAtLeast bool
}

func newFileProgress(report func(done, total int), total int) *fileProgress {
	if report == nil {
		return nil
	}
	return &fileProgress{report: report, total: total, step: max(1, (total+99)/100)}
}

func (p *fileProgress) add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.done == p.total && (p.reported < p.total || !p.reportedAtLeast) || p.done-p.reported >= p.step {
		p.reported, p.reportedAtLeast = p.done, true
		p.report(p.done, p.total)
	}
}

// previous returns the file of the last load at path; i is the file's
// position in this load, where it usually was in the last one too.
func (l *Loader) previous(i int, path string) *File {
	last := l.last
	if last == nil {
		return nil
	}
	if i < len(last.files) && last.files[i].Path == path {
		return last.files[i]
	}
	if last.byPath == nil {
		last.byPath = make(map[string]*File, len(last.files))
		for _, f := range last.files {
			last.byPath[f.Path] = f
		}
	}
	return last.byPath[path]
}

// compileFile reads the file rel beneath the root dir and compiles it,
// reusing prev's module when the content hash is unchanged. It records the
// size and modification time that the opened file's fstat gave before it
// was read: when the file changes after that, the next check sees a
// different stat and reads it again. A served module (a load's, which
// most likely no call needs soon) keeps no syntax tree until a call
// needs it (vox.CompileServed, docs/federation.md §4).
func compileFile(dir *safefs.Root, rel string, prev *compiled, served bool) *compiled {
	bp := readBuffers.Get().(*[]byte)
	defer putReadBuffer(bp)
	src, info, err := dir.AppendFileInfo((*bp)[:0], rel, MaxSourceBytes)
	if err != nil {
		return &compiled{readErr: readError(err)}
	}
	*bp = src // the module keeps a copy of the text, never src
	c := &compiled{size: info.Size(), modTime: info.ModTime(), hash: Hash(src)}
	if prev != nil && prev.module != nil && prev.hash == c.hash {
		c.module = prev.module
		return c
	}
	if served {
		c.module = vox.CompileServed(rel, src, compileOptions)
	} else {
		c.module = vox.CompileWith(rel, src, compileOptions)
	}
	return c
}

// readBuffers are the buffers compileFile reads sources into. A buffer
// per file was garbage of the size of the text its module keeps, made
// between the kept texts of a full refresh: once freed, it left their
// spans partly filled (docs/benchmarks.md, Refresh).
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putReadBuffer returns a buffer to readBuffers unless it holds a file
// much larger than sources usually are.
func putReadBuffer(bp *[]byte) {
	if cap(*bp) <= 256<<10 {
		readBuffers.Put(bp)
	}
}

// readError words why a source file could not be read.
func readError(err error) string {
	if errors.Is(err, safefs.ErrEscapes) {
		return "cannot read: leads outside the workspace root (through a symlink or ..); not loaded"
	}
	return "cannot read: " + unwrapPathError(err)
}

// Hash is the content hash recorded for a source file: hex SHA-256.
func Hash(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// fileErrorMessage is the per-file message of a file that does not compile:
// its error diagnostics, each "line:col: message [code]", sorted, joined by
// "; ".
func fileErrorMessage(ds []diag.Diagnostic) string {
	var parts []string
	for _, d := range ds {
		if d.Severity != diag.Error {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d:%d: %s [%s]", d.Line, d.Col, d.Message, d.Code))
	}
	return strings.Join(parts, "; ")
}

// brokenEntry is the error entry of a tool or resource that a checker
// error keeps off the surface: "L:C: tool NAME is not served: L:C:
// message [code]" (the error is in the function or in one it uses).
func brokenEntry(path string, line, col int, what string, d diag.Diagnostic) FileError {
	return FileError{Path: path, Message: fmt.Sprintf("%d:%d: %s is not served: %d:%d: %s [%s]", line, col, what, d.Line, d.Col, d.Message, d.Code)}
}

// compileOptions are the checker's options of a refresh: the defaults;
// benchmarks turn checking off to measure its cost.
var compileOptions check.Options

// mergeState is what a merge found beyond the surface: what the next
// refresh needs to merge only the files that changed.
type mergeState struct {
	compiled []*compiled // per file, the compilation merged
	// tools is the tree of the surface's tools that the next merge
	// changes (the surface holds a copy sharing its nodes).
	tools *btree.BTreeG[toolItem]
	// involved holds the paths named by findings and file errors: the
	// files whose change can change more than their own entries.
	involved map[string]bool
	scanErrs []FileError
}

// merge builds the surface from the files in scan order (
// docs/federation.md §1.3).
func merge(cfg *Config, files []*File, scanErrs []FileError, shadows func(string) bool) (*Surface, mergeState) {
	ms := mergeState{compiled: make([]*compiled, len(files)), tools: newToolTree(), involved: map[string]bool{}, scanErrs: scanErrs}
	for i, f := range files {
		ms.compiled[i] = f.cur.Load()
	}
	s := &Surface{Config: cfg, Result: newResult(), resources: map[string]*Resource{}, prompts: map[string]int{}, Prompts: []*Prompt{},
		gen: surfaceGen.Add(1)}
	// Messages of one file are ordered by position (declaration errors
	// are found tools first, then resources).
	type posMsg struct {
		line, col int
		msg       string
	}
	fileMsgs := map[string][]posMsg{}
	var errPaths []string
	at := func(path string, line, col int, msg string) {
		ms.involved[path] = true
		if _, ok := fileMsgs[path]; !ok {
			errPaths = append(errPaths, path)
		}
		fileMsgs[path] = append(fileMsgs[path], posMsg{line, col, msg})
	}
	fileErr := func(path, msg string) { at(path, 0, 0, msg) }
	for _, e := range scanErrs {
		fileErr(e.Path, e.Message)
	}
	shadowed, dupTools, dupRes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	// dropped are the tools and resources a checker error keeps off the
	// surface: one entry of errors each (docs/vox-language.md, The
	// checker), after the files' entries.
	var dropped []FileError
	for i, f := range files {
		c := ms.compiled[i]
		if c.module == nil {
			fileErr(f.Path, c.readErr)
			continue
		}
		m := c.module
		if m.HasErrors() {
			fileErr(f.Path, fileErrorMessage(m.Diagnostics()))
			continue
		}
		tools, toolPos, resources, resPos := c.decls(f)
		for i, tool := range tools {
			t := toolPos[i]
			first, dup := ms.tools.Get(toolItem{name: t.Name})
			if d, ok := m.Broken(t.Name); ok {
				dropped = append(dropped, brokenEntry(f.Path, t.Line, t.Col, "tool "+t.Name, d))
				ms.involved[f.Path] = true
				continue
			}
			switch {
			case !validToolName(t.Name):
				at(f.Path, t.Line, t.Col, fmt.Sprintf("%d:%d: invalid tool name %q: workspace tool names must match %s", t.Line, t.Col, t.Name, registry.ToolNamePattern))
			case shadows != nil && shadows(t.Name):
				shadowed[t.Name] = true
				s.Findings = append(s.Findings, Finding{Kind: Shadowed, Name: t.Name, Path: f.Path, Line: t.Line, Col: t.Col})
			case dup:
				dupTools[t.Name] = true
				ft := first.tool
				s.Findings = append(s.Findings, Finding{Kind: DuplicateTool, Name: t.Name, Path: f.Path, Line: t.Line, Col: t.Col, FirstPath: ft.Path, FirstLine: ft.Line})
			default:
				ms.tools.ReplaceOrInsert(toolItem{name: t.Name, tool: tool})
			}
		}
		for i, res := range resources {
			r := resPos[i]
			first, dup := s.resources[r.URI]
			if d, ok := m.Broken(r.Func); ok {
				dropped = append(dropped, brokenEntry(f.Path, r.Line, r.Col, "resource "+r.URI, d))
				ms.involved[f.Path] = true
				continue
			}
			switch problem := ResourceURIProblem(r.URI); {
			case problem != "":
				at(f.Path, r.Line, r.Col, fmt.Sprintf("%d:%d: resource URI %q %s", r.Line, r.Col, r.URI, problem))
			case dup:
				dupRes[r.URI] = true
				s.Findings = append(s.Findings, Finding{Kind: DuplicateResource, Name: r.URI, Path: f.Path, Line: r.Line, Col: r.Col, FirstPath: first.Path, FirstLine: first.Line})
			default:
				s.resources[r.URI] = res
				s.Resources = append(s.Resources, res)
			}
		}
		for _, pr := range c.prompts(f) {
			if d, ok := m.Broken(pr.Name); ok {
				dropped = append(dropped, brokenEntry(f.Path, pr.Line, 1, "prompt "+pr.Name, d))
				ms.involved[f.Path] = true
				continue
			}
			// Prompts are few: a name declared twice is an error at the
			// second declaration rather than a finding of its own.
			if first, dup := s.prompts[pr.Name]; dup {
				fp := s.Prompts[first]
				at(f.Path, pr.Line, 1, fmt.Sprintf("%d:1: prompt %s is declared twice: the first, at %s:%d, is served; rename one of them", pr.Line, pr.Name, fp.Path, fp.Line))
				continue
			}
			s.prompts[pr.Name] = len(s.Prompts)
			s.Prompts = append(s.Prompts, pr)
		}
	}
	// Resources stay in scan order: the first template declared wins a
	// URI two match (MatchResource).
	if s.Resources == nil {
		s.Resources = []*Resource{}
	}
	s.Result.ToolCount = ms.tools.Len()
	s.Result.ResourceCount = len(s.Resources)
	s.Result.Shadowed = sortedKeys(shadowed)
	s.Result.DuplicateTools = sortedKeys(dupTools)
	s.Result.DuplicateResources = sortedKeys(dupRes)
	slices.Sort(errPaths)
	for _, p := range errPaths {
		msgs := fileMsgs[p]
		slices.SortStableFunc(msgs, func(a, b posMsg) int {
			if a.line != b.line {
				return a.line - b.line
			}
			return a.col - b.col
		})
		parts := make([]string, len(msgs))
		for i, m := range msgs {
			parts[i] = m.msg
		}
		s.Result.Errors = append(s.Result.Errors, FileError{Path: p, Message: strings.Join(parts, "; ")})
	}
	s.Result.Errors = append(s.Result.Errors, dropped...)
	for _, f := range s.Findings {
		ms.involved[f.Path] = true
		if f.FirstPath != "" {
			ms.involved[f.FirstPath] = true
		}
	}
	return s, ms
}

// mergeChanges builds the surface of a load from the last one when that
// gives the same result as merge: the same scan errors, and every file
// removed, added or changed compiling without errors, declaring no
// prompts, no tool the merge would refuse (an invalid, shadowed or
// duplicate name) and the same resource URIs if it declares resources
// (resources are few and kept in scan order: a file adding or removing
// some is merged whole), while no finding or file error names it. Then
// the new surface is the last one with those files' tools removed from
// and added to a copy of its tree that shares every node those tools are
// not in, and shares the last one's results; no work grows with the
// workspace but copying the list of files. It returns nil when merge is
// needed. When sp is not nil, only the files it names can have changed
// (compileAll).
func (l *Loader) mergeChanges(cfg *Config, files []*File, scanErrs []FileError, sp *splice) (*Surface, mergeState) {
	last := l.last
	if last == nil || !slices.Equal(scanErrs, last.merge.scanErrs) {
		return nil, mergeState{}
	}
	prev, pm := last.surface, last.merge
	// A change replaces the entries of a file: old (nil for an added
	// file) by now (nil for a removed one).
	type change struct {
		oldF, newF *File
		old, now   *compiled
	}
	var changes []change
	var compiledNow []*compiled
	// Each file's compilation is read once: a call may swap it meanwhile
	// (a per-call recompile), which the next refresh then picks up — a
	// refresh from changes too, since the edit the call found raised an
	// event.
	see := func(i, j int) {
		if c := files[i].cur.Load(); c != pm.compiled[j] {
			changes = append(changes, change{oldF: last.files[j], newF: files[i], old: pm.compiled[j], now: c})
			compiledNow[i] = c
		}
	}
	if sp != nil {
		compiledNow = align(sp, pm.compiled, len(files))
		for _, p := range sp.changed {
			see(p[0], p[1])
		}
		for _, j := range sp.removed {
			changes = append(changes, change{oldF: last.files[j], old: pm.compiled[j]})
		}
		for _, i := range sp.added {
			c := files[i].cur.Load()
			changes = append(changes, change{newF: files[i], now: c})
			compiledNow[i] = c
		}
	} else {
		if len(files) != len(last.files) {
			return nil, mergeState{}
		}
		compiledNow = slices.Clone(pm.compiled)
		for i := range files {
			if files[i].Path != last.files[i].Path {
				return nil, mergeState{}
			}
			see(i, i)
		}
	}
	ms := pm
	ms.compiled = compiledNow
	s := &Surface{Config: cfg, Result: prev.Result, Findings: prev.Findings, Resources: prev.Resources, Prompts: prev.Prompts,
		resources: prev.resources, prompts: prev.prompts, gen: surfaceGen.Add(1), base: prev.gen}
	if len(changes) == 0 {
		return s, ms
	}
	simple := func(f *File, c *compiled) bool {
		// A file that declares prompts is merged whole: prompts are few,
		// and their entries are not kept like tools'.
		return c == nil || c.module != nil && !c.module.HasErrors() && !c.module.AnyBroken() && !pm.involved[f.Path] && len(c.module.Prompts()) == 0
	}
	var resChanged []change
	for _, ch := range changes {
		if !simple(ch.oldF, ch.old) || !simple(ch.newF, ch.now) {
			return nil, mergeState{}
		}
		var or, nr []*Resource
		if ch.old != nil {
			_, _, or, _ = ch.old.decls(ch.oldF)
		}
		if ch.now != nil {
			_, _, nr, _ = ch.now.decls(ch.newF)
		}
		if len(or) == 0 && len(nr) == 0 {
			continue
		}
		if !slices.EqualFunc(or, nr, func(a, b *Resource) bool { return a.URI == b.URI }) {
			return nil, mergeState{}
		}
		resChanged = append(resChanged, ch)
	}
	// The old entries leave a copy of the tree first, so that a tool
	// moving between two changed files is no duplicate; a copy, so that
	// giving up leaves the last load's tree as it was.
	tree := pm.tools.Clone()
	var names []string
	for _, ch := range changes {
		if ch.old == nil {
			continue
		}
		ot, _, _, _ := ch.old.decls(ch.oldF)
		for _, t := range ot {
			// Not in the tree as this entry: a finding would name the file.
			if it, ok := tree.Get(toolItem{name: t.Name}); !ok || it.tool != t {
				return nil, mergeState{}
			}
			tree.Delete(toolItem{name: t.Name})
			names = append(names, t.Name)
		}
	}
	for _, ch := range changes {
		if ch.now == nil {
			continue
		}
		nt, _, _, _ := ch.now.decls(ch.newF)
		for _, t := range nt {
			if !validToolName(t.Name) || l.Shadows != nil && l.Shadows(t.Name) || tree.Has(toolItem{name: t.Name}) {
				return nil, mergeState{}
			}
			tree.ReplaceOrInsert(toolItem{name: t.Name, tool: t})
			names = append(names, t.Name)
		}
	}
	ms.tools = tree
	slices.Sort(names)
	s.changedTools = slices.Compact(names)
	s.Result.ToolCount = tree.Len()
	if len(resChanged) > 0 {
		// The changed files' resources take the places of their old ones.
		s.Resources = slices.Clone(prev.Resources)
		s.resources = maps.Clone(prev.resources)
		for _, ch := range resChanged {
			_, _, or, _ := ch.old.decls(ch.oldF)
			_, _, nr, _ := ch.now.decls(ch.newF)
			for k, r := range or {
				if i := slices.Index(s.Resources, r); i >= 0 {
					s.Resources[i] = nr[k]
				}
				s.resources[nr[k].URI] = nr[k]
			}
		}
	}
	return s, ms
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
