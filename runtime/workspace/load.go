package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/vox"
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

// Result is the refresh result (spec 30-federation §1), returned by
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
	Signature   string
	Path        string // repo-relative source path
	Line        int    // 1-based declaration line
	Hash        string // SHA-256 of the source file the tool was scanned from
	file        *File
}

// Resource is one workspace resource of a surface.
type Resource struct {
	URI         string
	Description string
	MIMEType    string
	Func        string
	Path        string
	Line        int
	Hash        string
	file        *File
}

// File is one scanned source file and its compiled module. The module is
// replaced (never mutated) when a call finds the file changed on disk
// (spec 30-federation §3.4); callers keep the module they obtained.
type File struct {
	Path string
	Abs  string // "" for an embedded file, whose content is data
	data []byte
	mu   sync.Mutex // serialises recompiles
	cur  atomic.Pointer[compiled]
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
		c.tools = make([]*Tool, len(c.toolPos))
		for i, t := range c.toolPos {
			c.tools[i] = &Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema),
				Signature: t.Signature, Path: f.Path, Line: t.Line, Hash: c.hash, file: f}
		}
		c.resources = make([]*Resource, len(c.resPos))
		for i, r := range c.resPos {
			c.resources[i] = &Resource{URI: r.URI, Description: r.Description, MIMEType: r.MIMEType, Func: r.Func,
				Path: f.Path, Line: r.Line, Hash: c.hash, file: f}
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
	Result    Result
	// Findings locate the shadowed and duplicate declarations of Result,
	// in scan order (the parity gate reports them with positions).
	Findings  []Finding
	tools     map[string]*Tool
	resources map[string]*Resource
	files     map[string]*File // by path
}

// Tool returns the tool with the given name.
func (s *Surface) Tool(name string) (*Tool, bool) {
	if s == nil {
		return nil, false
	}
	t, ok := s.tools[name]
	return t, ok
}

// Resource returns the resource with the given URI.
func (s *Surface) Resource(uri string) (*Resource, bool) {
	if s == nil {
		return nil, false
	}
	r, ok := s.resources[uri]
	return r, ok
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
	return &Surface{Config: DefaultConfig(), Tools: []*Tool{}, Resources: []*Resource{}, Result: newResult(),
		tools: map[string]*Tool{}, resources: map[string]*Resource{}, files: map[string]*File{}}
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
	// workspace tools are shadowed (reported, not served). Nil: none.
	Shadows func(name string) bool
	// Log receives the notices, per-file errors and shadowed names.
	Log *slog.Logger
	// Workers bounds the files compiled at once; 0 means GOMAXPROCS.
	Workers int

	mu   sync.Mutex
	prev map[string]*File
}

// Load reads the scan config, scans and compiles the workspace and merges
// it into a surface (spec 30-federation §1). The error is fatal — an
// invalid config or glob, an unreadable root — and the caller keeps its
// previous surface; per-file problems are in the result instead.
func (l *Loader) Load() (*Surface, error) {
	cfg, err := LoadConfig(l.Root)
	if err != nil {
		return nil, err
	}
	return l.LoadWith(cfg)
}

// LoadWith is Load with an already read config.
func (l *Loader) LoadWith(cfg *Config) (*Surface, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	log := l.log()
	if cfg.Missing {
		log.Info("no workspace scan config; scanning with the defaults", "config", ConfigPath, "scan_globs", DefaultScanGlobs)
	}
	srcs, scanErrs, err := Scan(l.Root, cfg)
	if err != nil {
		return nil, err
	}
	files := l.compileAll(srcs)
	s := merge(cfg, files, scanErrs, l.Shadows)
	s.Root = l.Root
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
	next := make(map[string]*File, len(files))
	for _, f := range files {
		next[f.Path] = f
	}
	l.prev = next
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
// the content is the same; the others are compiled in parallel.
func (l *Loader) compileAll(srcs []SourceFile) []*File {
	files := make([]*File, len(srcs))
	var todo []int
	for i, src := range srcs {
		if old := l.prev[src.Path]; old != nil && old.Abs == src.Abs {
			if c := old.cur.Load(); c != nil && c.module != nil && c.size == src.Size && c.modTime.Equal(src.ModTime) {
				files[i] = old
				continue
			}
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return files
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
				if old := l.prev[src.Path]; old != nil {
					prevC = old.cur.Load()
				}
				f := &File{Path: src.Path, Abs: src.Abs}
				f.cur.Store(compileFile(src.Path, src.Abs, prevC))
				files[i] = f
			}
		}()
	}
	wg.Wait()
	return files
}

// compileFile reads and compiles one file, reusing prev's module when the
// content hash is unchanged.
func compileFile(rel, abs string, prev *compiled) *compiled {
	info, err := os.Stat(abs)
	if err != nil {
		return &compiled{readErr: "cannot read: " + unwrapPathError(err)}
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return &compiled{readErr: "cannot read: " + unwrapPathError(err)}
	}
	c := &compiled{size: info.Size(), modTime: info.ModTime(), hash: Hash(src)}
	if prev != nil && prev.module != nil && prev.hash == c.hash {
		c.module = prev.module
		return c
	}
	c.module = vox.Compile(rel, src)
	return c
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

// merge builds the surface from the files in scan order (spec
// 30-federation §1.3).
func merge(cfg *Config, files []*File, scanErrs []FileError, shadows func(string) bool) *Surface {
	ntools := 0
	for _, f := range files {
		if c := f.cur.Load(); c.module != nil {
			ntools += len(c.module.Tools())
		}
	}
	s := &Surface{Config: cfg, Result: newResult(), tools: make(map[string]*Tool, ntools), resources: map[string]*Resource{},
		files: make(map[string]*File, len(files)), Tools: make([]*Tool, 0, ntools)}
	// Messages of one file are ordered by position (declaration errors
	// are found tools first, then resources).
	type posMsg struct {
		line, col int
		msg       string
	}
	fileMsgs := map[string][]posMsg{}
	var errPaths []string
	at := func(path string, line, col int, msg string) {
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
	for _, f := range files {
		s.files[f.Path] = f
		c := f.cur.Load()
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
			switch {
			case !validToolName(t.Name):
				at(f.Path, t.Line, t.Col, fmt.Sprintf("%d:%d: invalid tool name %q: workspace tool names must match %s", t.Line, t.Col, t.Name, registry.ToolNamePattern))
			case shadows != nil && shadows(t.Name):
				shadowed[t.Name] = true
				s.Findings = append(s.Findings, Finding{Kind: Shadowed, Name: t.Name, Path: f.Path, Line: t.Line, Col: t.Col})
			case s.tools[t.Name] != nil:
				dupTools[t.Name] = true
				first := s.tools[t.Name]
				s.Findings = append(s.Findings, Finding{Kind: DuplicateTool, Name: t.Name, Path: f.Path, Line: t.Line, Col: t.Col, FirstPath: first.Path, FirstLine: first.Line})
			default:
				s.tools[t.Name] = tool
				s.Tools = append(s.Tools, tool)
			}
		}
		for i, res := range resources {
			r := resPos[i]
			switch {
			case strings.HasPrefix(strings.ToLower(r.URI), ReservedScheme):
				at(f.Path, r.Line, r.Col, fmt.Sprintf("%d:%d: resource URI %q uses the reserved scheme skill:// (it serves installed skills): choose another scheme", r.Line, r.Col, r.URI))
			case s.resources[r.URI] != nil:
				dupRes[r.URI] = true
				first := s.resources[r.URI]
				s.Findings = append(s.Findings, Finding{Kind: DuplicateResource, Name: r.URI, Path: f.Path, Line: r.Line, Col: r.Col, FirstPath: first.Path, FirstLine: first.Line})
			default:
				s.resources[r.URI] = res
				s.Resources = append(s.Resources, res)
			}
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
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
