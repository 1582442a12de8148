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
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/runtime/uritemplate"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/vox/resolve"
	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// Options select what a check does besides the default checks.
type Options struct {
	// Compat adds the vox/compat/... warnings: constructs the reference
	// compiler rejects (off by default, so valid use of an extension stays
	// quiet).
	Compat bool
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
				c.errorf(p.NamePos, "vox/param/duplicate", []string{fmt.Sprintf("the first %s is at %d:%d: rename one of them", p.Name, prev.NamePos.Line, prev.NamePos.Col)},
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
				c.errorf(p.Default.Span(), "vox/type/mismatch", nil, "the default of %s is %s, but the parameter is %s", p.Name, dt, t)
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
		c.errorf(pos, "vox/return/missing", []string{fmt.Sprintf("end the body with a value of type %s, or return one on every path", ret)},
			"%s %s must return %s, but its body can end without a value", what, name, ret)
		return
	}
	if !returnable(ret, t) {
		at := pos
		if n := len(body.Stmts); n > 0 {
			at = body.Stmts[n-1].Span()
		}
		c.errorf(at, "vox/return/type", returnHelp(ret, t), "%s returns %s here, but it is declared to return %s", name, t, ret)
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

// flow says how a statement or block finishes.
type flow uint8

const (
	flowNormal  flow = iota
	flowReturns      // every path returns (or fails)
	flowBreaks       // every path leaves the loop (break or continue) or returns
)

// block checks a block; its type is that of its last expression
// statement, nil when it ends with another statement.
func (c *checker) block(b *syntax.Block) (*Type, flow) {
	if b == nil {
		return tUnit, flowNormal
	}
	mark := len(c.scope)
	var t *Type = tUnit
	fl := flowNormal
	warned := false
	for i, s := range b.Stmts {
		if fl != flowNormal && !warned {
			c.warnf(s.Span(), "vox/flow/unreachable", []string{"remove it, or move it before the statement that leaves"}, "unreachable code")
			warned = true
		}
		st, sf := c.stmt(s)
		if fl == flowNormal {
			fl = sf
		}
		if i == len(b.Stmts)-1 {
			t = st
		}
	}
	if t == nil {
		t = tUnit // ends with a statement: no value
	}
	c.unusedFrom(mark)
	c.scope = c.scope[:mark]
	if fl != flowNormal {
		return tNever, fl
	}
	return t, fl
}

func (c *checker) enter() bool {
	c.depth++
	return c.depth <= maxDepth
}

// stmt checks a statement; its type is that of an expression statement
// (nil for the others).
func (c *checker) stmt(s syntax.Stmt) (*Type, flow) {
	if !c.enter() {
		c.depth--
		return tUnknown, flowNormal
	}
	t, fl := c.stmtKind(s)
	c.depth--
	return t, fl
}

// stmtKind is stmt by the kind of statement.
func (c *checker) stmtKind(s syntax.Stmt) (*Type, flow) {
	switch s := s.(type) {
	case *syntax.LetStmt:
		c.let(s)
		return nil, flowNormal
	case *syntax.ReturnStmt:
		c.ret(s)
		return tNever, flowReturns
	case *syntax.BranchStmt:
		return tNever, flowBreaks
	case *syntax.WhileStmt, *syntax.LoopStmt, *syntax.ForStmt:
		fl := c.loop(s.(syntax.Expr))
		return nil, fl
	case *syntax.AssignStmt:
		c.assign(s)
		return nil, flowNormal
	case *syntax.ExprStmt:
		t := c.expr(s.X)
		return t, c.exprFlow(s.X, t)
	}
	return nil, flowNormal
}

// exprFlow says whether an expression statement leaves: an if or match
// whose every branch does, or a block that does.
func (c *checker) exprFlow(x syntax.Expr, t *Type) flow {
	if t == nil || t.Kind != KNever {
		return flowNormal
	}
	if c.leave != flowNormal {
		return c.leave
	}
	return flowReturns
}

// loop checks a while, loop or for; a loop with no break that never ends
// (loop) returns on every path it leaves by.
func (c *checker) loop(x syntax.Expr) flow {
	c.fn.loops++
	defer func() { c.fn.loops-- }()
	switch s := x.(type) {
	case *syntax.WhileStmt:
		c.cond(s.Cond, "while")
		c.block(s.Body)
	case *syntax.LoopStmt:
		c.block(s.Body)
		if !hasBreak(s.Body, 0) {
			return flowReturns
		}
	case *syntax.ForStmt:
		c.forStmt(s)
	}
	return flowNormal
}

// hasBreak reports whether a loop body has a break of this loop (not of
// a nested one).
func hasBreak(n syntax.Node, depth int) bool {
	if depth > maxDepth {
		return true
	}
	found := false
	walkStmts(n, depth, func(s syntax.Node, d int) bool {
		switch s := s.(type) {
		case *syntax.BranchStmt:
			if s.Tok == syntax.BREAK {
				found = true
			}
		case *syntax.WhileStmt, *syntax.LoopStmt, *syntax.ForStmt, *syntax.FuncLit:
			return false // a break there is that loop's
		}
		return !found
	})
	return found
}

func (c *checker) cond(x syntax.Expr, what string) {
	t := c.expr(x)
	if t.known() && t.Kind != KBool {
		help := []string{"compare it: " + condHint(t)}
		c.errorf(x.Span(), "vox/type/condition", help, "the condition of %s is %s, not bool", what, t)
	}
}

func condHint(t *Type) string {
	switch t.Kind {
	case KInt, KFloat, KDec:
		return "x != 0"
	case KStr:
		return `x != ""`
	case KList, KMap:
		return "x.len() > 0"
	case KOption:
		return "x.is_some()"
	case KResult:
		return "x.is_ok()"
	}
	return "x == value"
}

func (c *checker) let(s *syntax.LetStmt) {
	t := c.expr(s.Value)
	typed := false
	if s.Type != nil {
		want := c.ts.withParams(c.fnTypeParams()).fromSyntax(s.Type, 0)
		if !assignable(want, t) {
			c.errorf(s.Value.Span(), "vox/type/mismatch", mismatchHelp(want, t), "this value is %s, but %s is declared %s", t, patternText(s.Pattern), want)
		}
		t, typed = want, true
	} else if s.Mut {
		t = widen(t)
	}
	c.bindPattern(s.Pattern, t, kLet, s.Mut, typed)
}

// widen forgets what a let mut's later assignments may change: the
// element type of an empty list, the payload of None.
func widen(t *Type) *Type {
	switch t.Kind {
	case KUnit, KOption:
		if t.Kind == KUnit || !t.arg(0).known() {
			return tUnknown
		}
	case KInt:
		return tUnknown // may become a float
	}
	return t
}

func mismatchHelp(want, got *Type) []string {
	switch {
	case want.Kind == KInt && got.Kind == KStr:
		return []string{"parse it: parse_int(value)?, or write a number"}
	case want.Kind == KStr && got.known():
		return []string{"convert it: str(value)"}
	case want.Kind == KInt && got.Kind == KFloat:
		return []string{"convert it: int(value) or round(value)"}
	}
	return nil
}

func patternText(p syntax.Pattern) string {
	if b, ok := p.(*syntax.BindPat); ok {
		return b.Ident.Name
	}
	return "the pattern"
}

func (c *checker) fnTypeParams() []*syntax.Ident {
	for f := c.fn; f != nil; f = f.parent {
		if f.fn != nil && f.parent == nil {
			if i, ok := c.mod.FuncIndex[f.name]; ok {
				return c.mod.Funcs[i].TypeParams
			}
		}
	}
	return nil
}

func (s typeScope) withParams(ps []*syntax.Ident) *typeScope {
	s.params = ps
	return &s
}

// bindPattern binds the names of a let, for or match pattern to the parts
// of t.
func (c *checker) bindPattern(p syntax.Pattern, t *Type, kind localKind, mut, typed bool) {
	if !c.enter() {
		c.depth--
		return
	}
	defer func() { c.depth-- }()
	switch p := p.(type) {
	case *syntax.BindPat:
		b, _ := p.Ident.Binding.(*resolve.Binding)
		if b == nil || b.Scope == resolve.Ctor {
			if b != nil {
				c.record(p.Ident.NamePos, p.Ident.Name, "constructor", c.ctorResult(b.Index), c.ctorPos(b.Index), "")
			}
			return
		}
		l := c.newLocal(local{name: p.Ident.Name, t: t, pos: p.Ident.NamePos, kind: kind, mut: mut, typed: typed})
		c.locals[b] = l
		c.scope = append(c.scope, l)
		c.record(p.Ident.NamePos, p.Ident.Name, kindName(kind), t, p.Ident.NamePos, "")
	case *syntax.TuplePat:
		for i, e := range p.Elems {
			et := tUnknown
			if t.Kind == KTuple && i < len(t.Args) {
				et = t.Args[i]
			} else if t.Kind == KList {
				et = t.arg(0)
			}
			c.bindPattern(e, et, kind, mut, false)
		}
		if t.Kind == KTuple && t.Args != nil && len(t.Args) != len(p.Elems) {
			c.errorf(p.Pos, "vox/pattern/shape", nil, "this pattern has %d elements, but the value is a tuple of %d", len(p.Elems), len(t.Args))
		}
	case *syntax.CtorPat:
		b, _ := p.Name.Binding.(*resolve.Binding)
		var fields []*Type
		if b != nil && b.Scope == resolve.Ctor {
			fields = c.ctorFields(b.Index, t)
			c.record(p.Name.NamePos, p.Name.Name, "constructor", c.ctorResult(b.Index), c.ctorPos(b.Index), "")
			if n := len(c.mod.Ctors[b.Index].Fields); b.Index >= resolve.NumCoreCtors && n != len(p.Args) {
				c.errorf(p.Name.NamePos, "vox/pattern/shape", nil, "%s has %d field(s), but the pattern gives %d", p.Name.Name, n, len(p.Args))
			}
			if ct := c.ctorResult(b.Index); t.known() && !assignable(t, ct) && !(t.Kind == KResult && ct.Kind == KResult) {
				c.errorf(p.Name.NamePos, "vox/pattern/type", nil, "the pattern %s is %s, but the value matched is %s", p.Name.Name, ct, t)
			}
		} else if b != nil && b.Scope == resolve.Undefined {
			c.undefined(p.Name)
		}
		for i, a := range p.Args {
			ft := tUnknown
			if i < len(fields) {
				ft = fields[i]
			}
			c.bindPattern(a, ft, kind, mut, false)
		}
	}
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

// ctorFields is the types of a constructor's fields, given the type of
// the value matched.
func (c *checker) ctorFields(idx int, t *Type) []*Type {
	switch idx {
	case resolve.CtorNone:
		return nil
	case resolve.CtorSome:
		if t.Kind == KOption {
			return []*Type{t.arg(0)}
		}
		return []*Type{tUnknown}
	case resolve.CtorOk:
		if t.Kind == KResult {
			return []*Type{t.arg(0)}
		}
		return []*Type{tUnknown}
	case resolve.CtorErr:
		if t.Kind == KResult {
			return []*Type{t.arg(1)}
		}
		return []*Type{tUnknown}
	}
	v := c.variant(idx)
	if v == nil {
		return nil
	}
	out := make([]*Type, len(v.Fields))
	for i, f := range v.Fields {
		out[i] = c.ts.fromSyntax(f.Type, 0)
	}
	return out
}

// variant finds the declaration of a constructor of the file.
func (c *checker) variant(idx int) *syntax.Variant {
	if idx < resolve.NumCoreCtors || idx >= len(c.mod.Ctors) {
		return nil
	}
	ct := c.mod.Ctors[idx]
	for _, d := range c.mod.File.Decls {
		if td, ok := d.(*syntax.TypeDecl); ok && td.Name == ct.Type {
			for _, v := range td.Variants {
				if v.Name == ct.Name {
					return v
				}
			}
		}
	}
	return nil
}

func (c *checker) ctorPos(idx int) syntax.Pos {
	if v := c.variant(idx); v != nil {
		return v.Pos
	}
	return syntax.Pos{}
}

// ctorResult is the type a constructor makes.
func (c *checker) ctorResult(idx int) *Type {
	switch idx {
	case resolve.CtorNone, resolve.CtorSome:
		return tOptionAny
	case resolve.CtorOk, resolve.CtorErr:
		return tResultAny
	}
	if idx >= len(c.mod.Ctors) {
		return tUnknown
	}
	if c.ctorTypes == nil {
		c.ctorTypes = make([]*Type, len(c.mod.Ctors))
	}
	if c.ctorTypes[idx] == nil {
		c.ctorTypes[idx] = &Type{Kind: KNamed, Name: c.mod.Ctors[idx].Type}
	}
	return c.ctorTypes[idx]
}

func (c *checker) ret(s *syntax.ReturnStmt) {
	f := c.fn
	var t *Type = tUnit
	if s.Value != nil {
		t = c.expr(s.Value)
	}
	if !f.declared || f.ret.Kind == KUnknown {
		return
	}
	if s.Value == nil && f.ret.Kind != KUnit {
		c.errorf(s.Pos, "vox/return/type", []string{fmt.Sprintf("return a value of type %s", f.ret)}, "%s must return %s, but this return has no value", f.name, f.ret)
		return
	}
	if !returnable(f.ret, t) {
		at := s.Pos
		if s.Value != nil {
			at = s.Value.Span()
		}
		c.errorf(at, "vox/return/type", returnHelp(f.ret, t), "%s returns %s here, but it is declared to return %s", f.name, t, f.ret)
	}
}

func (c *checker) assign(s *syntax.AssignStmt) {
	rt := c.expr(s.RHS)
	if id, ok := s.LHS.(*syntax.Ident); ok {
		b, _ := id.Binding.(*resolve.Binding)
		l := c.localOf(b)
		switch {
		case b == nil:
		case b.Scope == resolve.Undefined:
			c.undefined(id)
			return
		case b.Scope == resolve.Global || b.Scope == resolve.Const || b.Scope == resolve.Builtin || b.Scope == resolve.Ctor || b.Scope == resolve.Namespace:
			c.errorf(id.NamePos, "vox/assign/immutable", []string{"declare a variable: let mut " + id.Name + " = ..."}, "cannot assign to %s %s", b.Scope, id.Name)
			return
		case l != nil:
			c.record(id.NamePos, id.Name, kindName(l.kind), l.t, l.pos, "")
			if !l.mut {
				c.immutable(id, l)
			}
			if s.Op != syntax.ASSIGN {
				l.used = true
				c.binary(s.LHS, s.RHS, l.t, rt, assignOp(s.Op), s.Pos)
			} else if l.typed && !assignable(l.t, rt) {
				c.errorf(s.RHS.Span(), "vox/type/mismatch", mismatchHelp(l.t, rt), "%s is declared %s, but this value is %s", id.Name, l.t, rt)
			} else if !l.typed && l.t.known() && !assignable(l.t, rt) {
				l.t = tUnknown // a variable that changes its type: say nothing of it
			}
			return
		}
		return
	}
	lt := c.expr(s.LHS)
	if s.Op != syntax.ASSIGN {
		c.binary(s.LHS, s.RHS, lt, rt, assignOp(s.Op), s.Pos)
	}
}

func assignOp(t syntax.Token) syntax.Token {
	switch t {
	case syntax.PLUS_EQ:
		return syntax.PLUS
	case syntax.MINUS_EQ:
		return syntax.MINUS
	case syntax.STAR_EQ:
		return syntax.STAR
	case syntax.SLASH_EQ:
		return syntax.SLASH
	}
	return t
}

func (c *checker) immutable(id *syntax.Ident, l *local) {
	switch l.kind {
	case kLet:
		c.add(diag.Diagnostic{Line: int(id.NamePos.Line), Col: int(id.NamePos.Col), Severity: diag.Error, Code: "vox/assign/immutable",
			Message: fmt.Sprintf("cannot assign twice to immutable variable %s", id.Name),
			Help:    []string{fmt.Sprintf("make it mutable: let mut %s (declared at %d:%d)", id.Name, l.pos.Line, l.pos.Col)},
			Fix:     &diag.Fix{Line: int(l.pos.Line), Col: int(l.pos.Col), EndLine: int(l.pos.Line), EndCol: int(l.pos.Col), NewText: "mut "}})
	case kParam:
		c.errorf(id.NamePos, "vox/assign/immutable", []string{fmt.Sprintf("copy it first: let mut %s = %s", id.Name, id.Name)}, "cannot assign to parameter %s", id.Name)
	default:
		c.errorf(id.NamePos, "vox/assign/immutable", []string{fmt.Sprintf("copy it first: let mut %s = %s", id.Name, id.Name)}, "cannot assign to %s %s", kindName(l.kind), id.Name)
	}
}

// localOf finds what the checker knows of a local, following captured
// variables out to the function that declares them.
func (c *checker) localOf(b *resolve.Binding) *local {
	if b == nil {
		return nil
	}
	f := c.fn
	for b.Scope == resolve.Free && f != nil && f.fn != nil && b.Index < len(f.fn.FreeVars) {
		b = f.fn.FreeVars[b.Index]
		f = f.parent
	}
	return c.locals[b]
}

// forStmt checks a for loop: what it iterates and the names it binds.
func (c *checker) forStmt(s *syntax.ForStmt) {
	it := c.expr(s.Iter)
	var elem *Type = tUnknown
	switch it.Kind {
	case KList:
		elem = it.arg(0)
	case KStr:
		elem = tStr
	case KMap, KRecord:
		v := tUnknown
		if it.Kind == KMap {
			v = it.arg(0)
		}
		elem = &Type{Kind: KTuple, Args: []*Type{tStr, v}}
	case KInt, KFloat, KDec, KBool, KFunc, KNamed, KOption, KResult, KUnit:
		help := []string{"iterate a list, a string or a map"}
		if it.Kind == KInt {
			help = []string{"count with range: for i in range(n)"}
		}
		c.errorf(s.Iter.Span(), "vox/for/not-iterable", help, "cannot iterate over %s", it)
	}
	mark := len(c.scope)
	c.bindPattern(s.Pattern, elem, kFor, false, false)
	if s.Index != nil {
		c.bindPattern(s.Index, tInt, kFor, false, false)
		if _, single := s.Pattern.(*syntax.BindPat); single && (it.Kind == KMap || it.Kind == KRecord) {
			if bp, ok := s.Index.(*syntax.BindPat); ok {
				if b, _ := bp.Ident.Binding.(*resolve.Binding); b != nil {
					if l := c.locals[b]; l != nil {
						l.mapPos = true
						l.loopPos = s.Pattern.Span()
						l.loopEnd = syntax.Pos{Line: bp.Ident.NamePos.Line, Col: bp.Ident.NamePos.Col + int32(len(bp.Ident.Name))}
						l.loopFix = fmt.Sprintf("(%s, %s)", patternSource(s.Pattern), bp.Ident.Name)
					}
				}
			}
		}
	}
	if s.Key != nil {
		c.expr(s.Key)
	}
	c.block(s.Body)
	c.unusedFrom(mark)
	c.scope = c.scope[:mark]
}

func patternSource(p syntax.Pattern) string {
	switch p := p.(type) {
	case *syntax.BindPat:
		return p.Ident.Name
	case *syntax.WildcardPat:
		return "_"
	}
	return "k"
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

// decorators reports unknown decorators that are a typo of one vox-mcp
// serves (@tol for @tool): such a function would silently not be a tool.
func (c *checker) decorators() {
	check := func(d syntax.Decorator) {
		if slices.Contains(knownDecorators, d.Name) || slices.Contains(ignoredDecorators, d.Name) {
			return
		}
		best := suggest(d.Name, knownDecorators, 2)
		if best == "" {
			return
		}
		c.add(diag.Diagnostic{Line: int(d.Pos.Line), Col: int(d.Pos.Col), Severity: diag.Error, Code: "vox/decorator/unknown",
			Message: fmt.Sprintf("unknown decorator %s", d.Name), Help: []string{"did you mean " + best + "?"},
			EndCol: int(d.End.Col),
			Fix:    &diag.Fix{Line: int(d.Pos.Line), Col: int(d.Pos.Col), EndLine: int(d.End.Line), EndCol: int(d.End.Col), NewText: best}})
	}
	for _, d := range c.mod.File.Decls {
		switch d := d.(type) {
		case *syntax.FnDecl:
			for _, dec := range d.Decorators {
				n := len(c.diags)
				check(dec)
				if len(c.diags) > n {
					if i, ok := c.mod.FuncIndex[d.Name]; ok {
						c.markErr(i, n)
					}
				}
			}
		case *syntax.SkippedDecl:
			if strings.HasPrefix(d.Word, "@") {
				check(syntax.Decorator{Pos: d.Pos, Name: d.Word, End: syntax.Pos{Line: d.Pos.Line, Col: d.Pos.Col + int32(len(d.Word))}})
			}
		}
	}
}

// knownDecorators are the decorators vox-mcp acts on; a near miss of one
// is an error with a suggestion.
var knownDecorators = []string{"@tool", "@resource", "@mcp.tool", "@mcp.resource", "@mcp.prompt", "@mcp.complete", "@uses", "@input_schema"}

// ignoredDecorators are decorators of the wider language that vox-mcp
// accepts and ignores (docs/vox-language.md, What is skipped).
var ignoredDecorators = []string{"@test", "@scheduled", "@ai", "@deprecated", "@pure", "@inline", "@cached", "@cache", "@table", "@index",
	"@endpoint", "@query", "@mutation", "@server", "@form", "@component", "@page", "@layout", "@route", "@webhook", "@cors", "@pii",
	"@rate_limit", "@layer", "@embed", "@workflow", "@activity", "@agent", "@actor", "@action", "@get", "@post", "@put", "@delete",
	"@island", "@loading", "@state", "@derived", "@effect", "@memo", "@trace", "@log", "@auth", "@require", "@retry", "@timeout",
	"@export", "@extern", "@async", "@sync", "@v0", "@fixture", "@mock", "@bench", "@doc", "@example", "@schema"}

// grantedEffects are the effects of a uses clause that vox-mcp serves: fs
// (read), env (allowlisted), clock (time), mutate and nothing
// (docs/vox-language.md, Capabilities).
var grantedEffects = []string{"fs", "env", "clock", "mutate", "nothing"}

// uses reports a tool or resource whose uses clause names an effect the
// server does not grant: a call that needs it fails.
func (c *checker) uses(d *syntax.FnDecl) {
	if d.Kind == syntax.PlainFn {
		return
	}
	for _, e := range d.Effects {
		if slices.Contains(grantedEffects, e.Name) || !slices.Contains(syntax.Effects, e.Name) {
			continue
		}
		c.warnf(e.Pos, "vox/uses/ungranted", []string{"vox-mcp grants " + strings.Join(grantedEffects, ", ") + "; calls that need " + e.Name + " fail at run time"},
			"%s %s uses %s, which this server does not grant", kindWord(d.Kind), d.Name, e.Name)
	}
}

func kindWord(k syntax.FnKind) string {
	switch k {
	case syntax.ResourceFn:
		return "resource"
	case syntax.PromptFn:
		return "prompt"
	}
	return "tool"
}

// prompt checks the signature of a workspace prompt (docs/vox-language.md,
// Prompts): MCP prompt arguments are strings, so every parameter is str
// (a required argument) or Option[str] (an optional one), and the result
// is str, the text of one user message, or list[Message].
func (c *checker) prompt(d *syntax.FnDecl, sig *funcSig) {
	for j, p := range d.Params {
		t := sig.params[j]
		if p.Type == nil || t.Kind == KStr || t.Kind == KOption && t.arg(0).Kind == KStr {
			continue
		}
		c.errorf(p.NamePos, "vox/decl/prompt-param", []string{"MCP prompt arguments are strings: declare " + p.Name + ": str (required) or " + p.Name + ": Option[str] (optional), and convert inside the prompt"},
			"prompt %s: parameter %s is %s, but a prompt parameter must be str or Option[str]", d.Name, p.Name, t)
	}
	if d.Result == nil || sig.ret.Kind != KStr && !IsMessageList(d.Result) {
		at := d.NamePos
		if d.Result != nil {
			at = d.Result.Pos
		}
		c.errorf(at, "vox/decl/prompt-result", []string{"declare " + d.Name + "(...) to str (the text becomes one user message) or to list[Message] (a list of {role: \"user\" or \"assistant\", content: str or content.*})"},
			"prompt %s must be declared to return str or list[Message]", d.Name)
	}
}

// IsMessageList reports whether t is list[Message], the result of a
// prompt that returns its messages (docs/vox-language.md, Prompts).
// Message names the shape {role, content}, checked when the prompt runs.
func IsMessageList(t *syntax.Type) bool {
	return t != nil && t.IsNamed("list") && len(t.Args) == 1 && t.Args[0].IsNamed("Message") && len(t.Args[0].Args) == 0
}

// resourceTemplate checks a workspace resource whose URI is a template
// (docs/vox-language.md, Resources with URI parameters): the template is
// well formed ({name} and {+name} only: vox/decl/resource-template), and
// its variables and the function's parameters are the same names, each a
// str (vox/decl/resource-var): a read passes every variable, decoded from
// the URI, as a string.
func (c *checker) resourceTemplate(d *syntax.FnDecl, sig *funcSig) {
	// A variable's column is the URI string's plus its offset: URIs are
	// written without escapes.
	at := func(offset int) syntax.Pos {
		p := d.URIPos
		p.Col += int32(1 + offset)
		return p
	}
	t, err := uritemplate.Parse(d.URI)
	if err != nil {
		e := err.(*uritemplate.Error)
		c.errorf(at(e.Offset), "vox/decl/resource-template", []string{e.Hint},
			"resource %s: %s", d.URI, e.Message)
		return
	}
	for _, v := range t.Variables {
		j := slices.IndexFunc(d.Params, func(p *syntax.Param) bool { return p.Name == v.Name })
		if j < 0 {
			c.errorf(at(v.Offset), "vox/decl/resource-var", []string{fmt.Sprintf("add the parameter %s: str to %s, which receives the variable's decoded value", v.Name, d.Name)},
				"resource %s: the URI variable %s must be a parameter of %s", d.URI, v.Name, d.Name)
		}
	}
	for j, p := range d.Params {
		if !slices.ContainsFunc(t.Variables, func(v uritemplate.Variable) bool { return v.Name == p.Name }) {
			c.errorf(p.NamePos, "vox/decl/resource-var", []string{fmt.Sprintf("write {%s} in the URI, or remove the parameter: a read passes only the URI's variables", p.Name)},
				"resource %s: parameter %s must be a variable of the URI template", d.URI, p.Name)
			continue
		}
		if t := sig.params[j]; p.Type != nil && t.Kind != KStr {
			c.errorf(p.NamePos, "vox/decl/resource-var", []string{"URI variables are strings: declare " + p.Name + ": str and convert inside the function"},
				"resource %s: parameter %s is %s, but a URI variable must be str", d.URI, p.Name, t)
		}
	}
}

// completions checks the @mcp.complete("param", fn) decorators of a
// prompt or a resource template (docs/vox-language.md, Completion): param
// is one of its parameters, completed once, and fn a plain function of
// the file declared fn() to list[str], whose list the server ranks.
func (c *checker) completions(d *syntax.FnDecl) {
	for j, comp := range d.Completions {
		if !slices.ContainsFunc(d.Params, func(p *syntax.Param) bool { return p.Name == comp.Param }) {
			what := "argument"
			if d.Kind == syntax.ResourceFn {
				what = "URI variable"
			}
			c.errorf(comp.ParamPos, "vox/decl/complete", []string{fmt.Sprintf("name one of the parameters of %s: each is an %s the client may ask to complete", d.Name, what)},
				"@mcp.complete: %s has no parameter %s", d.Name, comp.Param)
			continue
		}
		if slices.ContainsFunc(d.Completions[:j], func(p syntax.Completion) bool { return p.Param == comp.Param }) {
			c.errorf(comp.ParamPos, "vox/decl/complete", []string{"keep one @mcp.complete per parameter"},
				"@mcp.complete: parameter %s of %s is completed twice", comp.Param, d.Name)
			continue
		}
		i, ok := c.mod.FuncIndex[comp.Func]
		hint := []string{fmt.Sprintf("declare fn %s() to list[str] in this file: it returns the candidates, which the server filters by what the client typed and ranks", comp.Func)}
		if !ok {
			c.errorf(comp.FuncPos, "vox/decl/complete", hint, "@mcp.complete: no function %s in this file", comp.Func)
			continue
		}
		sig := c.funcs[i]
		required := slices.ContainsFunc(sig.decl.Params, func(p *syntax.Param) bool { return p.Default == nil })
		if sig.decl.Kind != syntax.PlainFn || required || sig.decl.Result == nil || sig.ret.Kind != KList || sig.ret.arg(0).Kind != KStr {
			c.errorf(comp.FuncPos, "vox/decl/complete", hint, "@mcp.complete: %s must be a plain function declared fn %s() to list[str]", comp.Func, comp.Func)
		}
	}
}
