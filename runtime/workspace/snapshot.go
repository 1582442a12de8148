package workspace

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// Snapshot is the workspace surface compiled into generated/workspace by
// go generate (docs/federation.md §6): the tables a server starts from
// with zero parsing when its root is the repository the snapshot was
// generated from.
type Snapshot struct {
	// Module is the module path in the go.mod of the repository the
	// snapshot describes; ConfigSHA256 the digest of its scan config.
	Module       string
	ConfigSHA256 string
	Tools        []SnapshotTool     // sorted by name
	Resources    []SnapshotResource // sorted by URI
	Prompts      []SnapshotPrompt   // sorted by name
	Result       Result
}

// SnapshotTool is a tool of a snapshot.
type SnapshotTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// OutputSchema is nil unless the tool's result is object-shaped
	// (docs/tool-results.md §2).
	OutputSchema json.RawMessage
	Signature    string
	Path         string
	Line         int
	Hash         string
	// Mutates: the tool may change files (Tool.Mutates).
	Mutates bool
	// LongRunning: the tool allows tasks (Tool.LongRunning).
	LongRunning bool
}

// SnapshotResource is a resource of a snapshot.
type SnapshotResource struct {
	URI         string
	Description string
	MIMEType    string
	Func        string
	Variables   []string // of a URI template; nil for a plain URI
	Completions []Completion
	Path        string
	Line        int
	Hash        string
}

// SnapshotPrompt is a prompt of a snapshot.
type SnapshotPrompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument
	Completions []Completion
	Path        string
	Line        int
	Hash        string
}

// Snapshot records the surface for generated/workspace; module is the
// repository's module path.
func (s *Surface) Snapshot(module string) *Snapshot {
	snap := &Snapshot{Module: module, ConfigSHA256: s.Config.SHA256, Result: s.Result}
	for _, t := range s.Tools() {
		snap.Tools = append(snap.Tools, SnapshotTool{t.Name, t.Description, t.InputSchema, t.OutputSchema, t.Signature, t.Path, t.Line, t.Hash, t.Mutates, t.LongRunning})
	}
	for _, r := range s.Resources {
		snap.Resources = append(snap.Resources, SnapshotResource{r.URI, r.Description, r.MIMEType, r.Func, r.Variables, r.Completions, r.Path, r.Line, r.Hash})
	}
	for _, p := range s.Prompts {
		snap.Prompts = append(snap.Prompts, SnapshotPrompt{p.Name, p.Description, p.Arguments, p.Completions, p.Path, p.Line, p.Hash})
	}
	slices.SortFunc(snap.Prompts, func(a, b SnapshotPrompt) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(snap.Tools, func(a, b SnapshotTool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(snap.Resources, func(a, b SnapshotResource) int { return strings.Compare(a.URI, b.URI) })
	return snap
}

// Describes reports whether the snapshot was generated from the
// repository at root: root/go.mod declares the recorded module path and
// the scan config's SHA-256 equals the recorded one. Only then may a
// server serve from it.
func (snap *Snapshot) Describes(root string) bool {
	if snap == nil || snap.Module == "" || ModulePath(root) != snap.Module {
		return false
	}
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return false
	}
	defer dir.Close()
	src, err := readContract(dir, ConfigPath, contractdoc.ContractLimits.MaxBytes)
	if err != nil || src == nil {
		return false
	}
	return Hash(src) == snap.ConfigSHA256
}

// EmbeddedSurface turns the snapshot into a surface whose source files
// are read from fsys (an app binary's embedded sources, "vox gen app")
// instead of the disk; root is the workspace of the fs.* capabilities. Each
// file is compiled on the first call of one of its tools or resources.
func (snap *Snapshot) EmbeddedSurface(fsys fs.FS, root string, cfg *Config) (*Surface, error) {
	s := snap.Surface(root, cfg)
	for path, f := range s.files {
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, fmt.Errorf("embedded source %s: %w", path, err)
		}
		f.Abs, f.data = "", data
	}
	return s, nil
}

// Surface turns the snapshot into a surface rooted at root. Nothing is
// read or compiled: each file is compiled on the first call of one of its
// tools or resources.
func (snap *Snapshot) Surface(root string, cfg *Config) *Surface {
	s := &Surface{Root: root, Config: cfg, Result: snap.Result, tools: newToolTree(), resources: map[string]*Resource{},
		prompts: map[string]int{}, files: map[string]*File{},
		Resources: make([]*Resource, 0, len(snap.Resources)), Prompts: make([]*Prompt, 0, len(snap.Prompts))}
	dir := newRootDir(root)
	file := func(path string) *File {
		f := s.files[path]
		if f == nil {
			f = &File{Path: path, Abs: filepath.Join(root, filepath.FromSlash(path)), root: dir}
			s.files[path] = f
		}
		return f
	}
	for _, t := range snap.Tools {
		tool := &Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Signature: t.Signature,
			Path: t.Path, Line: t.Line, Hash: t.Hash, Mutates: t.Mutates, LongRunning: t.LongRunning, file: file(t.Path)}
		s.tools.ReplaceOrInsert(toolItem{name: t.Name, tool: tool})
	}
	for _, r := range snap.Resources {
		res := &Resource{URI: r.URI, Description: r.Description, MIMEType: r.MIMEType, Func: r.Func, Variables: r.Variables, Completions: r.Completions,
			Path: r.Path, Line: r.Line, Hash: r.Hash, file: file(r.Path), template: newTemplate(r.URI, r.Variables)}
		s.resources[r.URI] = res
		s.Resources = append(s.Resources, res)
	}
	for _, p := range snap.Prompts {
		s.prompts[p.Name] = len(s.Prompts)
		s.Prompts = append(s.Prompts, &Prompt{Name: p.Name, Description: p.Description, Arguments: p.Arguments, Completions: p.Completions,
			Path: p.Path, Line: p.Line, Hash: p.Hash, file: file(p.Path)})
	}
	return s
}

// ModulePath returns the module path declared by root/go.mod, or "".
func ModulePath(root string) string {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return ""
	}
	defer dir.Close()
	data, err := dir.ReadFile("go.mod", maxGoModBytes)
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}
