// Package check is the static checker of Vox, a pass between resolve and
// eval: it gives every expression and binding a type (declared, or
// inferred for let), and reports what would fail at run time or is
// certainly a mistake — operand and argument types, arity, unknown methods
// and names, return types and missing returns, non-bool conditions,
// assignment to immutable bindings, non-exhaustive matches — with
// rustc-style help lines and fixes. What it cannot know (untyped
// parameters, imports, platform names such as db) is Unknown and never an
// error. docs/vox-language.md, The checker, lists every code.
//
// A checker error belongs to a function: Result.Broken says which
// functions (and the tools and resources that call them) it makes
// unservable, so the rest of the file is served.
package check

import (
	"fmt"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/uritemplate"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Options select what a check does besides the default checks.
type Options struct {
	// Compat adds the vox/compat/... warnings: constructs the reference
	// compiler rejects (off by default, so valid use of an extension stays
	// quiet).
	Compat bool
	// Strict reports as errors what the reference's checker rejects and
	// this one tolerates (vox check --strict; docs/vox-language.md, The
	// checker, Strictness): every undefined name, platform names but db,
	// and method calls on receivers the reference has no method table
	// for. Compat reports the same as warnings.
	Strict bool
	// Record keeps every name's position, type and definition for the
	// queries of Result (At, Definition, Names, Members): editors set it,
	// refreshes do not.
	Record bool
	// Skip turns the checker off: no diagnostics, nothing broken. Only
	// benchmarks set it, to measure what checking costs a refresh.
	Skip bool
	// AfterParseErrors is set when the parser reported errors: a body it
	// cut short is not reported as missing its return.
	AfterParseErrors bool
}

// maxDepth bounds the recursion over the tree (the parser bounds nesting
// already; this keeps the checker safe on any tree).
const maxDepth = 2048

// PlatformNames are names a tool may use without declaring them: the full
// platform provides them (the reference binds db in every body). Using one
// is a warning, vox/name/platform: the call fails here at run time.
var PlatformNames = []string{"db", "ctx", "request", "session", "auth", "http", "ai", "log", "cache", "storage", "queue", "events"}

// local is what the checker knows of a local binding.
type local struct {
	name    string
	t       *Type
	pos     syntax.Pos
	kind    localKind
	mut     bool
	typed   bool // declared with a type annotation
	used    bool
	mapPos  bool // the position of a for over a map (vox/for/position-not-value)
	posWarn bool
	loopPos syntax.Pos // the for loop's pattern, for the fix
	loopEnd syntax.Pos
	loopFix string
}

type localKind uint8

const (
	kLet localKind = iota
	kParam
	kFor
	kMatch
)

// newLocal allocates a local from the checker's slab: locals are many
// and small, and live as long as the check.
func (c *checker) newLocal(l local) *local {
	if len(c.slab) == cap(c.slab) {
		c.slab = make([]local, 0, 64)
	}
	c.slab = append(c.slab, l)
	return &c.slab[len(c.slab)-1]
}

// fnCtx is the function being checked.
type fnCtx struct {
	fn       *resolve.Function
	ret      *Type // declared result, Unknown when none
	declared bool
	name     string
	tool     bool // a tool or resource: the bridge unwraps its result
	parent   *fnCtx
	loops    int
}

type checker struct {
	path  string
	mod   *resolve.Module
	opts  Options
	lib   *library
	ts    typeScope
	diags diag.List

	funcs   []*funcSig
	consts  []*Type
	cstate  []uint8 // 0 not done, 1 in progress, 2 done
	locals  map[*resolve.Binding]*local
	fn      *fnCtx
	item    int // the function (index) or constant (len(funcs)+index) being checked
	edges   [][]int
	firstEr []int // index in diags of the item's first error, -1
	depth   int
	scope   []*local // the locals in scope, for suggestions
	imports map[string]bool

	rec       *recorder
	slab      []local
	ctorTypes []*Type // per constructor, made on first use
	// pending are the undefined names: errors where a tool, a resource or
	// the script reaches them, warnings elsewhere (result decides).
	pending []pendingDiag
	leave   flow // how the last expression of type never left
}

type pendingDiag struct {
	item int
	d    diag.Diagnostic
}

// funcSig is a module function's signature as the checker reads it.
type funcSig struct {
	decl   *syntax.FnDecl
	params []*Type
	ret    *Type
	typ    *Type // &fnType
	fnType Type
}

// File checks a resolved file. It never panics on a tree the parser made.
func File(m *resolve.Module, opts Options) *Result {
	if opts.Skip {
		return &Result{}
	}
	c := &checker{path: m.File.Path, mod: m, opts: opts, lib: theLibrary(), locals: make(map[*resolve.Binding]*local, 64)}
	if opts.Record {
		c.rec = &recorder{}
	}
	for _, d := range m.File.Decls {
		switch d := d.(type) {
		case *syntax.TypeDecl:
			setKey(&c.ts.adts, d.Name)
		case *syntax.RecordDecl:
			setKey(&c.ts.records, d.Name)
		case *syntax.ImportDecl:
			for _, part := range strings.FieldsFunc(d.Path, func(r rune) bool {
				return r == '.' || r == '/' || r == ':' || r == '{' || r == '}' || r == ',' || r == ' '
			}) {
				setKey(&c.imports, part)
			}
		}
	}
	n := len(m.Funcs) + len(m.Consts)
	c.edges = make([][]int, n)
	c.firstEr = make([]int, n)
	for i := range c.firstEr {
		c.firstEr[i] = -1
	}
	c.funcs = make([]*funcSig, len(m.Funcs))
	sigs := make([]funcSig, len(m.Funcs))
	for i, d := range m.Funcs {
		c.funcs[i] = c.signature(&sigs[i], d)
	}
	c.consts = make([]*Type, len(m.Consts))
	c.cstate = make([]uint8, len(m.Consts))
	c.decorators()
	if opts.Compat {
		c.compatDecls()
	}
	for i := range m.Consts {
		c.constType(i)
	}
	for i, d := range m.Funcs {
		c.item = i
		c.function(i, d)
	}
	return c.result()
}

// setKey adds k to a set made on first use (most files declare no types
// and import nothing).
func setKey(m *map[string]bool, k string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[k] = true
}

// signature reads a function's declared types.
func (c *checker) signature(s *funcSig, d *syntax.FnDecl) *funcSig {
	ts := c.ts
	ts.params = d.TypeParams
	*s = funcSig{decl: d, ret: tUnknown}
	if d.Result != nil {
		s.ret = ts.fromSyntax(d.Result, 0)
	}
	s.params = make([]*Type, len(d.Params))
	for i, p := range d.Params {
		s.params[i] = tUnknown
		if p.Type != nil {
			s.params[i] = ts.fromSyntax(p.Type, 0)
		}
	}
	s.fnType = Type{Kind: KFunc, Args: s.params, Ret: s.ret}
	s.typ = &s.fnType
	return s
}

func (c *checker) constType(i int) *Type {
	switch c.cstate[i] {
	case 1:
		return tUnknown
	case 2:
		return c.consts[i]
	}
	c.cstate[i] = 1
	d := c.mod.Consts[i]
	saved, savedItem, savedFn := c.scope, c.item, c.fn
	c.scope, c.item = nil, len(c.funcs)+i
	c.fn = &fnCtx{ret: tUnknown, name: d.Name}
	if init := c.mod.ConstInit[i]; init != nil {
		c.fn.fn = init
	}
	t := c.expr(d.Value)
	if d.Type != nil {
		want := c.ts.fromSyntax(d.Type, 0)
		if !assignable(want, t) {
			c.errorf(d.Value.Span(), "vox/type/mismatch", nil, "constant %s is declared %s but its value is %s", d.Name, want, t)
		}
		t = want
	}
	c.scope, c.item, c.fn = saved, savedItem, savedFn
	c.consts[i] = t
	c.cstate[i] = 2
	return t
}

// function checks one declared function.
func (c *checker) function(i int, d *syntax.FnDecl) {
	fn, _ := d.Function.(*resolve.Function)
	if fn == nil || d.Body == nil {
		return
	}
	sig := c.funcs[i]
	c.fn = &fnCtx{fn: fn, ret: sig.ret, declared: d.Result != nil, name: d.Name, tool: d.Kind != syntax.PlainFn}
	c.scope = c.scope[:0]
	c.params(d.Params, sig.params, nil)
	if c.opts.Compat {
		c.compatFn(d)
	}
	c.uses(d)
	if d.Kind == syntax.PromptFn {
		c.prompt(d, sig)
	}
	if d.Kind == syntax.ResourceFn && uritemplate.IsTemplate(d.URI) {
		c.resourceTemplate(d, sig)
	}
	c.completions(d)
	t, ends := c.body(d.Body)
	c.finish(d.NamePos, d.Name, d.Body, sig.ret, d.Result != nil, t, ends, d.Kind)
	c.unused()
	c.fn = nil
}

// params binds parameters, checking duplicates and typed defaults.
func (c *checker) params(ps []*syntax.Param, types []*Type, expected []*Type) {
	for j, p := range ps {
		for _, prev := range ps[:j] {
			if prev.Name == p.Name && p.Name != "_" {
				c.warnf(p.NamePos, "vox/param/duplicate", []string{fmt.Sprintf("the first %s is at %d:%d: rename one of them", p.Name, prev.NamePos.Line, prev.NamePos.Col)},
					"parameter %s is declared twice", p.Name)
				break
			}
		}
		t := types[j]
		if t.Kind == KUnknown && j < len(expected) && expected[j] != nil {
			t = expected[j]
		}
		if p.Default != nil {
			savedScope := c.scope
			dt := c.expr(p.Default)
			c.scope = savedScope
			if p.Type != nil && !assignable(t, dt) && !(t.Kind == KOption && assignable(t.arg(0), dt)) { // an Option's default d binds Some(d)
				// The reference never checks defaults: a warning.
				c.warnf(p.Default.Span(), "vox/type/mismatch", nil, "the default of %s is %s, but the parameter is %s", p.Name, dt, t)
			} else if p.Type == nil && t.Kind == KUnknown {
				t = dt
				if dt.Kind == KUnit || dt.Kind == KOption {
					t = tUnknown
				}
			}
		}
		if p.Ident == nil {
			continue
		}
		b, _ := p.Ident.Binding.(*resolve.Binding)
		if b == nil {
			continue
		}
		l := c.newLocal(local{name: p.Name, t: t, pos: p.NamePos, kind: kParam, typed: p.Type != nil, used: true})
		c.locals[b] = l
		c.scope = append(c.scope, l)
		c.record(p.NamePos, p.Name, "parameter", t, p.NamePos, "")
	}
}

// finish checks the end of a function body against its result type.
func (c *checker) finish(pos syntax.Pos, name string, body *syntax.Block, ret *Type, declared bool, t *Type, ends bool, kind syntax.FnKind) {
	if !declared || ret.Kind == KUnit || ret.Kind == KOption || !ret.known() || ends || c.opts.AfterParseErrors {
		return
	}
	if t.Kind == KUnit {
		what := "function"
		if kind == syntax.ToolFn {
			what = "tool"
		}
		// The reference unifies a body's last statement with the declared
		// result silently: missing returns and last values of another
		// type are warnings; a return statement is checked (ret).
		c.warnf(pos, "vox/return/missing", []string{fmt.Sprintf("end the body with a value of type %s, or return one on every path", ret)},
			"%s %s must return %s, but its body can end without a value", what, name, ret)
		return
	}
	if !returnable(ret, t) {
		at := pos
		if n := len(body.Stmts); n > 0 {
			at = body.Stmts[n-1].Span()
		}
		c.warnf(at, "vox/return/type", returnHelp(ret, t), "%s returns %s here, but it is declared to return %s", name, t, ret)
	}
}

// returnable reports whether a function declared to return want may
// return got: besides the assignable values, an Ok or a Some of one, which
// a call through the JSON bridge unwraps (an Err fails the call;
// docs/vox-language.md, Arguments and results).
func returnable(want, got *Type) bool {
	if assignable(want, got) {
		return true
	}
	if (got.Kind == KResult || got.Kind == KOption) && want.Kind != KResult && want.Kind != KOption {
		return assignable(want, got.arg(0))
	}
	return false
}

func returnHelp(want, got *Type) []string {
	if want.Kind == KStr && got.known() {
		return []string{"convert it: str(value)"}
	}
	if want.Kind == KResult && got.known() && got.Kind != KResult {
		return []string{"wrap it: Ok(value)"}
	}
	if want.Kind == KOption && got.known() && got.Kind != KOption {
		return []string{"wrap it: Some(value)"}
	}
	return nil
}

// body checks a function body: its value's type (nil when it can end
// without a value) and whether it always ends in a return.
func (c *checker) body(b *syntax.Block) (t *Type, ends bool) {
	t, flow := c.block(b)
	return t, flow == flowReturns
}

func kindName(k localKind) string {
	switch k {
	case kParam:
		return "parameter"
	case kFor:
		return "loop variable"
	case kMatch:
		return "pattern variable"
	}
	return "variable"
}

// unused warns of the function's locals that are never read.
func (c *checker) unused() { c.unusedFrom(0) }

func (c *checker) unusedFrom(mark int) {
	if mark > len(c.scope) {
		return
	}
	for _, l := range c.scope[mark:] {
		if l.used || l.kind == kParam || strings.HasPrefix(l.name, "_") || l.reported() {
			continue
		}
		l.used = true
		c.add(diag.Diagnostic{Line: int(l.pos.Line), Col: int(l.pos.Col), Severity: diag.Warning, Code: "vox/name/unused",
			Message: fmt.Sprintf("unused %s %s", kindName(l.kind), l.name),
			Help:    []string{fmt.Sprintf("if this is intentional, prefix it with an underscore: _%s", l.name)},
			Fix:     &diag.Fix{Line: int(l.pos.Line), Col: int(l.pos.Col), EndLine: int(l.pos.Line), EndCol: int(l.pos.Col), NewText: "_"}})
	}
}

func (l *local) reported() bool { return false }
