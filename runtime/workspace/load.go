package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/safefs"
	"github.com/vox-lang/vox-mcp/runtime/uritemplate"
	"github.com/vox-lang/vox-mcp/runtime/vox"
	"github.com/vox-lang/vox-mcp/runtime/vox/check"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
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

// ReservedScheme is the URI scheme of skill resources; workspace resources
// may not use it.
const ReservedScheme = "skill://"

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
	file         *File
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

// newTemplate parses the URI template of a resource with variables (nil
// for a plain URI); the checker accepted it, so it parses.
func newTemplate(uri string, vars []string) *uritemplate.Template {
	if len(vars) == 0 {
		return nil
	}
	t, err := uritemplate.Parse(uri)
	if err != nil {
		return nil
	}
	return t
}

// MatchResource returns the template resource that uri expands, in scan
// order (the first declared wins a URI two templates match), and the
// decoded value of each variable.
func (s *Surface) MatchResource(uri string) (*Resource, map[string]string, bool) {
	if s == nil {
		return nil, nil, false
	}
	for _, r := range s.Resources {
		if r.template == nil {
			continue
		}
		if vars, ok := r.template.Match(uri); ok {
			return r, vars, true
		}
	}
	return nil, nil, false
}

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
	Name     string
	Required bool
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
				OutputSchema: json.RawMessage(t.OutputSchema), Signature: t.Signature, Path: f.Path, Line: t.Line, Hash: c.hash, file: f}
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
	Root      string // the workspace root (fs.* paths are relative to it)
	Config    *Config
	Tools     []*Tool     // in scan order (Snapshot sorts them by name)
	Resources []*Resource // in scan order (Snapshot sorts them by URI)
	Prompts   []*Prompt   // in scan order; a name declared twice keeps the first
	Result    Result
	// Findings locate the shadowed and duplicate declarations of Result,
	// in scan order (the parity gate reports them with positions).
	Findings []Finding
	// tools and resources index Tools and Resources by name and URI. A
	// refresh that changed a few files keeps every entry in its place and
	// shares these maps with the surface before it.
	tools     map[string]int
	resources map[string]int
	prompts   map[string]int
	files     map[string]*File // by path, for snapshot surfaces
	// compiledBytes is the size of the sources the load compiled anew
	// (ReturnMemory).
	compiledBytes int64
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
			args[j] = PromptArgument{Name: a.Name, Required: a.Required}
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
	i, ok := s.tools[name]
	if !ok {
		return nil, false
	}
	return s.Tools[i], true
}

// Resource returns the resource with the given URI.
func (s *Surface) Resource(uri string) (*Resource, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := s.resources[uri]
	if !ok {
		return nil, false
	}
	return s.Resources[i], true
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
	return &Surface{Config: DefaultConfig(), Tools: []*Tool{}, Resources: []*Resource{}, Prompts: []*Prompt{}, Result: newResult(),
		tools: map[string]int{}, resources: map[string]int{}, prompts: map[string]int{}, files: map[string]*File{}}
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
	files, compiledBytes := l.compileAll(dir, srcs, found.touched, newFileProgress(progress, len(srcs)))
	if !incremental {
		// A refresh from changes watches what the walk before it did: a
		// file it added is in a watched folder.
		l.root.track(files, found.walked)
	}
	s, ms := l.mergeChanges(cfg, files, scanErrs, found.touched)
	if s == nil {
		s, ms = merge(cfg, files, scanErrs, l.Shadows)
	}
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
// touched is not nil, srcs are the last load's sources in their places
// with those at touched changed, and the others keep the last load's
// files unexamined (refresh.go).
func (l *Loader) compileAll(dir *safefs.Root, srcs []SourceFile, touched []int, progress *fileProgress) ([]*File, int64) {
	var files, olds []*File
	var todo []int
	check := func(i int) {
		src := srcs[i]
		old := l.previous(i, src.Path)
		olds[i] = old
		if old != nil && old.Abs == src.Abs && old.root == l.root {
			if c := old.cur.Load(); c != nil && c.module != nil && c.size == src.Size && c.modTime.Equal(src.ModTime) {
				files[i] = old
				return
			}
		}
		todo = append(todo, i)
	}
	if touched != nil {
		files, olds = slices.Clone(l.last.files), make([]*File, len(srcs))
		for _, i := range touched {
			check(i)
		}
	} else {
		files, olds = make([]*File, len(srcs)), make([]*File, len(srcs))
		for i := range srcs {
			check(i)
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
				f.cur.Store(compileFile(dir, src.Path, prevC))
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
// different stat and reads it again.
func compileFile(dir *safefs.Root, rel string, prev *compiled) *compiled {
	src, info, err := dir.ReadFileInfo(rel, MaxSourceBytes)
	if err != nil {
		return &compiled{readErr: readError(err)}
	}
	c := &compiled{size: info.Size(), modTime: info.ModTime(), hash: Hash(src)}
	if prev != nil && prev.module != nil && prev.hash == c.hash {
		c.module = prev.module
		return c
	}
	c.module = vox.CompileWith(rel, src, compileOptions)
	return c
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
	// toolStart and resStart are where each file's tools and resources
	// start in Surface.Tools and Surface.Resources.
	toolStart, resStart []int
	// involved holds the paths named by findings and file errors: the
	// files whose change can change more than their own entries.
	involved map[string]bool
	scanErrs []FileError
}

// merge builds the surface from the files in scan order (
// docs/federation.md §1.3).
func merge(cfg *Config, files []*File, scanErrs []FileError, shadows func(string) bool) (*Surface, mergeState) {
	ms := mergeState{compiled: make([]*compiled, len(files)), toolStart: make([]int, len(files)), resStart: make([]int, len(files)),
		involved: map[string]bool{}, scanErrs: scanErrs}
	ntools := 0
	for i, f := range files {
		c := f.cur.Load()
		ms.compiled[i] = c
		if c.module != nil {
			ntools += len(c.module.Tools())
		}
	}
	s := &Surface{Config: cfg, Result: newResult(), tools: make(map[string]int, ntools), resources: map[string]int{}, prompts: map[string]int{},
		Tools: make([]*Tool, 0, ntools), Prompts: []*Prompt{}}
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
		ms.toolStart[i], ms.resStart[i] = len(s.Tools), len(s.Resources)
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
			first, dup := s.tools[t.Name]
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
				ft := s.Tools[first]
				s.Findings = append(s.Findings, Finding{Kind: DuplicateTool, Name: t.Name, Path: f.Path, Line: t.Line, Col: t.Col, FirstPath: ft.Path, FirstLine: ft.Line})
			default:
				s.tools[t.Name] = len(s.Tools)
				s.Tools = append(s.Tools, tool)
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
			switch {
			case strings.HasPrefix(strings.ToLower(r.URI), ReservedScheme):
				at(f.Path, r.Line, r.Col, fmt.Sprintf("%d:%d: resource URI %q uses the reserved scheme skill:// (it serves installed skills): choose another scheme", r.Line, r.Col, r.URI))
			case dup:
				dupRes[r.URI] = true
				fr := s.Resources[first]
				s.Findings = append(s.Findings, Finding{Kind: DuplicateResource, Name: r.URI, Path: f.Path, Line: r.Line, Col: r.Col, FirstPath: fr.Path, FirstLine: fr.Line})
			default:
				s.resources[r.URI] = len(s.Resources)
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
	// Tools and Resources stay in scan order: sorting them would cost a
	// refresh more than everything else together, and every consumer
	// either sorts anyway (the server, Snapshot) or does not care.
	if s.Tools == nil {
		s.Tools = []*Tool{}
	}
	if s.Resources == nil {
		s.Resources = []*Resource{}
	}
	s.Result.ToolCount = len(s.Tools)
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
// gives the same result as merge: the same files in the same order, the
// same scan errors, and every file whose compilation changed still
// compiling and declaring the same tool names and resource URIs, in the
// same order, while no finding or file error names it. Then the new
// surface is the last one with those files' entries replaced in place: it
// shares the last one's maps and results, and the only work proportional
// to the workspace is copying the lists of entries. It returns nil when
// merge is needed. When touched is not nil, only the files at touched can
// have changed (compileAll).
func (l *Loader) mergeChanges(cfg *Config, files []*File, scanErrs []FileError, touched []int) (*Surface, mergeState) {
	last := l.last
	if last == nil || len(files) != len(last.files) || !slices.Equal(scanErrs, last.merge.scanErrs) {
		return nil, mergeState{}
	}
	prev, pm := last.surface, last.merge
	// Each file's compilation is read once: a call may swap it meanwhile
	// (a per-call recompile), which the next refresh then picks up — a
	// refresh from changes too, since the edit the call found raised an
	// event.
	var changed []int
	var now []*compiled
	see := func(i int) bool {
		if files[i].Path != last.files[i].Path {
			return false
		}
		if c := files[i].cur.Load(); c != pm.compiled[i] {
			changed = append(changed, i)
			now = append(now, c)
		}
		return true
	}
	if touched != nil {
		slices.Sort(touched)
		for _, i := range touched {
			if !see(i) {
				return nil, mergeState{}
			}
		}
	} else {
		for i := range files {
			if !see(i) {
				return nil, mergeState{}
			}
		}
	}
	for k, i := range changed {
		oc, nc := pm.compiled[i], now[k]
		// A file that declares prompts is merged whole: prompts are few,
		// and their entries are not kept in places like tools'.
		if oc.module == nil || nc.module == nil || oc.module.HasErrors() || nc.module.HasErrors() || nc.module.AnyBroken() || pm.involved[files[i].Path] ||
			len(oc.module.Prompts()) > 0 || len(nc.module.Prompts()) > 0 {
			return nil, mergeState{}
		}
		ot, _, or, _ := oc.decls(last.files[i])
		nt, _, nr, _ := nc.decls(files[i])
		if len(ot) != len(nt) || len(or) != len(nr) {
			return nil, mergeState{}
		}
		for j := range ot {
			if ot[j].Name != nt[j].Name {
				return nil, mergeState{}
			}
		}
		for j := range or {
			if or[j].URI != nr[j].URI {
				return nil, mergeState{}
			}
		}
	}
	ms := pm
	s := &Surface{Config: cfg, Result: prev.Result, Findings: prev.Findings, Tools: prev.Tools, Resources: prev.Resources, Prompts: prev.Prompts,
		tools: prev.tools, resources: prev.resources, prompts: prev.prompts}
	if len(changed) == 0 {
		return s, ms
	}
	// The changed files' entries take the places of their old ones; the
	// maps by name and URI, which hold places, stay as they are.
	ms.compiled = slices.Clone(pm.compiled)
	s.Tools, s.Resources = slices.Clone(prev.Tools), slices.Clone(prev.Resources)
	for k, i := range changed {
		ms.compiled[i] = now[k]
		nt, _, nr, _ := now[k].decls(files[i])
		copy(s.Tools[pm.toolStart[i]:], nt)
		copy(s.Resources[pm.resStart[i]:], nr)
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
