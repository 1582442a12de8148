// Package vox is the facade of the Vox language implementation that the
// rest of vox-mcp imports: Compile turns one .vox file into a Module with
// its diagnostics, tools and resources; Module.Call and Module.ReadResource
// run its functions through the JSON bridge, with capabilities and limits.
//
// The work is layered one way, as in go.starlark.net: syntax (scanner,
// parser, tree) → schema (parameter types to JSON Schema) and resolve
// (names to slots) → eval (the interpreter) and capability (fs, env, json,
// path, time). A Module does not change after Compile (the interpreter's
// form of its functions is made on first use, once) and is safe for
// concurrent calls; each call gets its own interpreter state.
package vox

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vox-lang/vox-mcp/internal/uritemplate"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// universe is the predeclared names: eval's builtins and the capability
// namespaces.
var universe = eval.Universe(capability.Names())

// Module is one compiled .vox file.
type Module struct {
	path      string
	diags     []diag.Diagnostic
	hasErrors bool
	tools     []Tool
	resources []Resource
	prompts   []Prompt
	// res is the resolved syntax tree, which calls run (program) and a
	// few questions need (resolved). A lean module (CompileServed) drops
	// it once compiled and keeps the source text — which the names it
	// keeps are slices of anyway — and parsedAsScript to make it again on
	// its first need; resOnce guards that.
	res            *resolve.Module
	resOnce        sync.Once
	text           string
	parsedAsScript bool
	script         bool // compiled by CompileScript, with top-level statements
	checked        *check.Result
	// inputSchemas are the compiled explicit input schemas of tools, by
	// function name (inputschema.go).
	inputSchemas map[string]*jsonschema.Schema
	progOnce     sync.Once
	prog         *eval.Program // made by the first call (program)
	ns           atomic.Pointer[nsCache]
}

// Tool is a function declared with @tool (or @mcp.tool, or the bare tool
// keyword).
type Tool struct {
	Name, Description string
	Line, Col         int    // the declaration head: first decorator or keyword
	InputSchema       []byte // canonical schema literal
	Signature         string // e.g. "greet(name: str, times: int = 1) to str"
	// Shape is how its result leaves a call, from the declared result
	// type (docs/tool-results.md §2); OutputSchema is set for the
	// Structured shape only.
	Shape        schema.Shape
	OutputSchema []byte
	// Mutates says whether the tool may change anything: its body, or a
	// function or constant it uses at any depth, names a capability
	// function that writes (capability.Mutating). Found statically, it
	// decides the tool's readOnlyHint (docs/security.md, readOnlyHint).
	Mutates bool
	// LongRunning: declared @long_running, a client may call it as a
	// durable task (docs/tasks.md §3).
	LongRunning bool
}

// Resource is a function declared with @mcp.resource, @resource or the bare
// resource keyword.
type Resource struct {
	URI, Description, Func, MIMEType string
	// Variables are the variables of a URI template (docs/vox-language.md,
	// Resources with URI parameters), in template order; nil for a plain
	// URI. The checker rejects a malformed template.
	Variables []string
	// Completions name the functions that complete its variables.
	Completions []Completion
	Line, Col   int
}

// Completion says that the plain function Func, fn() to list[str], gives
// the completion candidates of the argument or URI variable Param
// (docs/vox-language.md, Completion).
type Completion struct {
	Param, Func string
}

func completionsOf(fn *syntax.FnDecl) []Completion {
	var out []Completion
	for _, c := range fn.Completions {
		out = append(out, Completion{Param: c.Param, Func: c.Func})
	}
	return out
}

// Prompt is a function declared with @mcp.prompt (a vox-mcp extension,
// docs/vox-language.md, Prompts): its parameters are the prompt's
// arguments, each a string, optional when declared Option[str].
type Prompt struct {
	Name, Description string
	Arguments         []PromptArgument
	Completions       []Completion // of its arguments
	// Messages is set when it is declared to list[Message]: it returns
	// its messages rather than the text of one user message.
	Messages  bool
	Line, Col int
}

// PromptArgument is one argument of a workspace prompt.
type PromptArgument struct {
	Name        string
	Description string // from the prompt's doc comment (@param), "" when none
	Required    bool
}

// Compile lexes, parses and checks one file; path is the repo-relative
// slash path used in diagnostics. It never panics and never fails: errors
// are diagnostics.
func Compile(path string, src []byte) *Module {
	return compile(path, src, false, false, check.Options{})
}

// CompileWith is Compile with checker options: Compat adds the
// vox/compat/... warnings, Record keeps what every name is for the
// queries of Module.Check (editors).
func CompileWith(path string, src []byte, opts check.Options) *Module {
	return compile(path, src, false, false, opts)
}

// CompileServed is CompileWith for a module that is kept long and seldom
// run: a workspace file a server serves, among thousands that are never
// called. Once the declarations, schemas and the checker's findings are
// taken, the module drops its syntax tree and the resolver's state —
// four fifths of what a compiled file keeps — and makes them again from
// src on their first need (a call, ClientCapabilities, HasFunc,
// Resolved), which parses the file once more.
func CompileServed(path string, src []byte, opts check.Options) *Module {
	return compile(path, src, false, true, opts)
}

// CompileScript compiles a file as vox run FILE does when no function is
// named (docs/vox-language.md, Scripts): its top-level statements, a
// top-level let among them, are the body of a function main.
func CompileScript(path string, src []byte) *Module {
	return compile(path, src, true, false, check.Options{})
}

func compile(path string, src []byte, script, lean bool, opts check.Options) (m *Module) {
	defer func() {
		if r := recover(); r != nil {
			d := diag.Diagnostic{Path: path, Line: 1, Col: 1, Severity: diag.Error, Code: "vox/internal/panic",
				Message: fmt.Sprintf("internal error while compiling: %v", r)}
			m = &Module{path: path, diags: []diag.Diagnostic{d}, hasErrors: true}
		}
	}()
	text := string(src)
	var f *syntax.File
	var diags diag.List
	var res *resolve.Module
	if lean && len(src) <= maxReusedSource {
		// The tree is dropped at the end: its nodes and bindings go back
		// to reusedSlabs for the next file (release, deferred after the
		// recovery above so that it runs first).
		slabs := reusedSlabs.Get().(*treeSlabs)
		defer slabs.release()
		f, diags = syntax.ParseInto(&slabs.nodes, path, src, text, script)
		opts.AfterParseErrors = diags.HasErrors()
		res = resolve.FileIn(&slabs.resolved, f, universe, &diags)
	} else {
		f, diags = syntax.ParseText(path, src, text, script)
		opts.AfterParseErrors = diags.HasErrors()
		res = resolve.File(f, universe, &diags)
	}
	m = &Module{path: path, script: f.Script != nil}
	// The declarations are counted first: the module keeps these lists as
	// long as it lives, and appends would leave up to half of each unused.
	var ntools, nresources, nprompts int
	for _, d := range f.Decls {
		if fn, ok := d.(*syntax.FnDecl); ok {
			switch fn.Kind {
			case syntax.ToolFn:
				ntools++
			case syntax.ResourceFn:
				nresources++
			case syntax.PromptFn:
				nprompts++
			}
		}
	}
	if ntools > 0 {
		m.tools = make([]Tool, 0, ntools)
	}
	if nresources > 0 {
		m.resources = make([]Resource, 0, nresources)
	}
	if nprompts > 0 {
		m.prompts = make([]Prompt, 0, nprompts)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*syntax.FnDecl)
		if !ok {
			continue
		}
		checkParamDocs(path, f, fn, &diags)
		switch fn.Kind {
		case syntax.ToolFn:
			sc := schema.ScopeOf(fn, res.Records)
			sc.Descriptions = schema.DocDescriptions(f, fn)
			t := Tool{
				Name: fn.Name, Description: fn.Description,
				Line: int(fn.Head.Line), Col: int(fn.Head.Col),
				InputSchema: schema.InputJSON(path, fn.Params, sc, &diags),
				Signature:   schema.Signature(fn.Name, fn.Params, fn.Result),
				LongRunning: fn.LongRunning,
			}
			if i, ok := res.FuncIndex[fn.Name]; ok && res.Funcs[i] == fn {
				t.Mutates = slices.ContainsFunc(res.Capabilities(i), capability.Mutating)
			}
			if fn.InputSchemaPos.Line != 0 {
				sch, text, err := inputSchema(fn)
				if err != nil {
					diags.Errorf(path, int(fn.InputSchemaPos.Line), int(fn.InputSchemaPos.Col), "vox/schema/input-schema",
						"the input schema of %s: %v", fn.Name, err)
				} else {
					t.InputSchema = text
					if m.inputSchemas == nil {
						m.inputSchemas = map[string]*jsonschema.Schema{}
					}
					m.inputSchemas[fn.Name] = sch
				}
			}
			if fn.Result != nil {
				var rt *syntax.Type
				t.Shape, rt = schema.ResultShape(fn.Result, res.Records)
				switch t.Shape {
				case schema.Structured:
					t.OutputSchema = schema.OutputJSON(path, rt, sc, &diags)
				case schema.Plain:
					t.OutputSchema = schema.WrappedOutputJSON(path, rt, sc)
				}
			}
			m.tools = append(m.tools, t)
		case syntax.ResourceFn:
			var vars []string
			if uritemplate.IsTemplate(fn.URI) {
				// The checker matches the parameters with the variables.
				if t, err := uritemplate.Parse(fn.URI); err == nil {
					for _, v := range t.Variables {
						vars = append(vars, v.Name)
					}
				}
			}
			for _, p := range fn.Params {
				if p.Default == nil && !uritemplate.IsTemplate(fn.URI) {
					diags.Errorf(path, int(p.NamePos.Line), int(p.NamePos.Col), "vox/decl/resource-params",
						"resource function %s must take no arguments: parameter %s has no default", fn.Name, p.Name)
				}
			}
			mt := fn.MIMEType
			if mt == "" {
				mt = mimeType(fn.URI)
			} else if err := content.CheckMIME(mt, ""); err != nil {
				diags.Errorf(path, int(fn.MIMEPos.Line), int(fn.MIMEPos.Col), "vox/decl/resource-mime",
					"resource %s: %v", fn.URI, err)
			}
			m.resources = append(m.resources, Resource{
				URI: fn.URI, Description: fn.Description, Func: fn.Name, MIMEType: mt, Variables: vars, Completions: completionsOf(fn),
				Line: int(fn.Head.Line), Col: int(fn.Head.Col),
			})
		case syntax.PromptFn:
			pr := Prompt{Name: fn.Name, Description: fn.Description, Completions: completionsOf(fn), Messages: check.IsMessageList(fn.Result),
				Line: int(fn.Head.Line), Col: int(fn.Head.Col)}
			descs := schema.DocDescriptions(f, fn)
			for _, p := range fn.Params {
				optional := p.Default != nil || p.Type.IsNamed("Option")
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: p.Name, Description: descs[p.Name], Required: !optional})
			}
			m.prompts = append(m.prompts, pr)
		}
	}
	m.res = res
	// The checker's errors belong to functions (Broken), not to the file:
	// they keep only those functions off the served surface.
	fileErrors := diags.HasErrors()
	m.checked = check.File(res, opts)
	for _, d := range m.checked.Diagnostics {
		if d.Code == "vox/decorator/unknown" {
			// The checker's error replaces the parser's "ignored".
			diags = slices.DeleteFunc(diags, func(x diag.Diagnostic) bool {
				return x.Code == "vox/decorator/ignored" && x.Line == d.Line && x.Col == d.Col
			})
		}
	}
	diags = append(diags, m.checked.Diagnostics...)
	diags.Sort()
	m.diags = diags
	m.hasErrors = fileErrors
	if lean {
		// What the module keeps of the tree is strings and values; the
		// tree itself is made again by resolved.
		m.res, m.text, m.parsedAsScript = nil, text, script
	}
	return m
}

// treeSlabs are the chunks a lean compilation (CompileServed) parses and
// resolves a file into. Nothing the module keeps points into them — its
// declarations, schemas, signatures and findings are strings, bytes and
// values, and its tree is dropped — so they are reset and reused by the
// next compilation. A full refresh of a workspace compiles every file
// while the surface in service is held; made per file, these chunks were
// garbage of the size classes of the kept declarations, allocated among
// them, and once freed left the heap's spans partly filled for good (Go
// never moves objects; docs/benchmarks.md, Refresh).
type treeSlabs struct {
	nodes    syntax.Nodes
	resolved resolve.Slabs
}

// reusedSlabs holds the treeSlabs no compilation is using.
var reusedSlabs = sync.Pool{New: func() any { return new(treeSlabs) }}

// maxReusedSource is the largest source whose tree is made in reused
// slabs: the slabs keep the room of the largest tree made in them, which
// must stay the size of ordinary files.
const maxReusedSource = 64 << 10

// release zeroes the slabs (no tree made in them is used any more) and
// returns them to reusedSlabs.
func (s *treeSlabs) release() {
	s.nodes.Reset()
	s.resolved.Reset()
	reusedSlabs.Put(s)
}

// resolved returns the module's resolved syntax tree, making it again
// from the source for a lean module (CompileServed) on the first call:
// parsing and resolving the same source gives the same tree (the checker
// only reads it), whose diagnostics were taken by the compilation.
func (m *Module) resolved() *resolve.Module {
	m.resOnce.Do(func() {
		if m.res != nil || m.text == "" {
			return
		}
		f, diags := syntax.ParseText(m.path, []byte(m.text), m.text, m.parsedAsScript)
		m.res = resolve.File(f, universe, &diags)
	})
	return m.res
}

// mimeType infers the MIME type of a resource that declares none from its
// URI's extension.
func mimeType(uri string) string {
	u := uri
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	switch strings.ToLower(path.Ext(u)) {
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	}
	return "text/plain"
}

// program returns the module's program, prepared on the first call: most
// modules of a workspace are never called, and preparing them all would be
// a sizeable part of a refresh.
func (m *Module) program() *eval.Program {
	m.progOnce.Do(func() {
		if res := m.resolved(); res != nil {
			m.prog = eval.Compile(m.path, res)
		}
	})
	return m.prog
}

// Path returns the path given to Compile.
func (m *Module) Path() string { return m.path }

// Diagnostics returns the file's errors and warnings, sorted and
// de-duplicated.
func (m *Module) Diagnostics() []diag.Diagnostic { return m.diags }

// HasErrors reports whether the file failed to compile: a parse or
// declaration error, which keeps the whole file off the surface. A
// checker error keeps only its function off (Broken); Diagnostics holds
// both.
func (m *Module) HasErrors() bool { return m.hasErrors }

// Check returns the checker's result: its diagnostics, the functions its
// errors break and, when compiled with Record, what each name is.
func (m *Module) Check() *check.Result { return m.checked }

// AnyBroken reports whether a checker error keeps some function of the
// file off the served surface.
func (m *Module) AnyBroken() bool { return m.checked != nil && m.checked.AnyBroken() }

// Broken returns the checker error that keeps function name off the
// served surface (its own, or one in a function it calls); ok is false
// when there is none.
func (m *Module) Broken(name string) (d diag.Diagnostic, ok bool) {
	if m.checked == nil {
		return d, false
	}
	return m.checked.Broken(name)
}

// IsScript reports whether the module was compiled by CompileScript and
// has top-level statements: calling main runs them.
func (m *Module) IsScript() bool { return m.script }

// HasFunc reports whether the module declares a function named name.
func (m *Module) HasFunc(name string) bool {
	res := m.resolved()
	if res == nil {
		return false
	}
	_, ok := res.FuncIndex[name]
	return ok
}

// clientAsks are the builtins that ask the calling client, with the
// capability the client must declare for each (docs/vox-language.md,
// Asking the user and the model).
var clientAsks = [...]struct{ builtin, capability string }{
	{"elicit", "elicitation"},
	{"sample", "sampling"},
	{"roots", "roots"},
}

// ClientCapabilities returns the MCP client capabilities a call of the
// tool, resource or prompt function fn needs: "elicitation" when its
// body, or a function or constant it uses at any depth, names elicit,
// "sampling" for sample, "roots" for roots. A function that also names
// client_has asks according to what the client declared, and so needs
// none; a user function of a builtin's name shadows the builtin and needs
// nothing.
func (m *Module) ClientCapabilities(fn string) []string {
	res := m.resolved()
	if res == nil {
		return nil
	}
	i, ok := res.FuncIndex[fn]
	if !ok || res.Reaches(i, "client_has") {
		return nil
	}
	var out []string
	for _, a := range clientAsks {
		if res.Reaches(i, a.builtin) {
			out = append(out, a.capability)
		}
	}
	return out
}

// Resolved returns the file's syntax tree with its names bound, for
// readers of the source such as the language server (internal/lsp); nil
// when compiling failed with an internal error. It must not be changed.
func (m *Module) Resolved() *resolve.Module { return m.resolved() }

// Tools returns the tools in declaration order.
func (m *Module) Tools() []Tool { return m.tools }

// Prompts returns the workspace prompts in declaration order.
func (m *Module) Prompts() []Prompt { return m.prompts }

// Resources returns the resources in declaration order.
func (m *Module) Resources() []Resource { return m.resources }

// checkParamDocs warns about the @param lines of fn's doc comment that
// describe nothing (docs/vox-language.md, Parameter descriptions): a
// name fn has no parameter of, a line without a name or without text.
func checkParamDocs(path string, f *syntax.File, fn *syntax.FnDecl, diags *diag.List) {
	for _, d := range syntax.ParamDocs(f, fn) {
		line, col := int(d.NamePos.Line), int(d.NamePos.Col)
		switch {
		case d.Name == "":
			diags.Warnf(path, line, col, "vox/doc/param", "@param needs a parameter name, then its description: @param name text")
		case !slices.ContainsFunc(fn.Params, func(p *syntax.Param) bool { return p.Name == d.Name }):
			names := make([]string, len(fn.Params))
			for i, p := range fn.Params {
				names[i] = p.Name
			}
			have := "it has none"
			if len(names) > 0 {
				have = "its parameters: " + strings.Join(names, ", ")
			}
			diags.Warnf(path, line, col, "vox/doc/param", "@param %s describes no parameter of %s (%s)", d.Name, fn.Name, have)
		case d.Text == "":
			diags.Warnf(path, line, col, "vox/doc/param", "@param %s has no description: write @param %s text", d.Name, d.Name)
		}
	}
}
