// Package resolve binds every name of a parsed Vox file before anything
// runs: locals and parameters to frame slots, captured variables to cells,
// and the rest to module functions, module constants, constructors,
// builtins or capability namespaces. A name that is none of these resolves
// to Undefined, which fails only when evaluated; the checker
// (internal/vox/check) reports it. The resolver turns the use of an
// unavailable function by a tool or resource into an error.
//
// It sits between syntax and eval, as go.starlark.net's resolver does, and
// annotates the tree in place: Ident.Binding holds a *Binding and the
// Function fields of FnDecl and FuncLit hold a *Function.
package resolve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/internal/slab"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Scope says where a name lives.
type Scope uint8

// The scopes.
const (
	Undefined Scope = iota
	Local           // a slot of the current frame
	Cell            // a slot of the current frame holding a cell shared with closures
	Free            // a cell captured from an enclosing function: Function.FreeVars[Index]
	Global          // a module function: Module.Funcs[Index]
	Const           // a module constant: Module.Consts[Index]
	Ctor            // a constructor: Module.Ctors[Index]
	Builtin         // a builtin function or value: Universe.Builtins[Index]
	Namespace       // a capability namespace: Universe.Namespaces[Index]
)

var scopeNames = [...]string{"undefined", "local", "cell", "free", "function", "constant", "constructor", "builtin", "namespace"}

func (s Scope) String() string { return scopeNames[s] }

// Binding is what a name refers to. All uses of one local share its
// Binding, so capturing it later turns every use into a cell access.
type Binding struct {
	Scope Scope
	Index int
	Name  string
	Pos   syntax.Pos // of the declaration (locals)
}

// Function is a resolved function: a declared fn, a lambda, or the
// synthetic nullary function that computes a module constant or a default.
type Function struct {
	Name     string
	Pos      syntax.Pos
	Params   []*syntax.Param
	Result   *syntax.Type
	Body     *syntax.Block
	Defaults []*Function // per parameter; nil where there is no default
	Locals   []*Binding  // parameters first
	FreeVars []*Binding  // the enclosing function's bindings captured here
	HasTry   bool        // the body uses '?', which returns early

	parent    *Function
	freeIndex map[*Binding]int
	owner     *item
}

// NumParams is the number of parameters.
func (f *Function) NumParams() int { return len(f.Params) }

// Constructor is a constructor: one of the core ones (None, Some, Ok, Err) or a
// variant of an algebraic type declared in the file.
type Constructor struct {
	Name   string
	Type   string // Option, Result or the declared type's name
	Fields []string
	Tag    int // the index in Module.Ctors
}

// Indices of the core constructors in Module.Ctors.
const (
	CtorNone = iota
	CtorSome
	CtorOk
	CtorErr
	NumCoreCtors // the number of core constructors
)

// coreCtors are the first constructors of every module. They never
// change, so all modules share them.
var coreCtors = [NumCoreCtors]*Constructor{
	{Name: "None", Type: "Option", Tag: CtorNone},
	{Name: "Some", Type: "Option", Tag: CtorSome, Fields: []string{"value"}},
	{Name: "Ok", Type: "Result", Tag: CtorOk, Fields: []string{"value"}},
	{Name: "Err", Type: "Result", Tag: CtorErr, Fields: []string{"value"}},
}

// Universe lists the predeclared names that eval provides.
type Universe struct {
	Builtins   []string // functions and values such as len, print, Unit
	Namespaces []string // fs, env, json, ...
}

// Module is a resolved file.
type Module struct {
	File      *syntax.File
	Funcs     []*syntax.FnDecl // every function declaration, in order; the first of a name wins
	FuncIndex map[string]int
	Consts    []*syntax.ConstDecl
	ConstInit []*Function
	Ctors     []*Constructor
	CtorIndex map[string]int
	Records   map[string]*syntax.RecordDecl // record types by name

	// reached are the builtins each function names itself or through the
	// functions and constants it uses (Reaches); reachedCaps the
	// capability functions (Capabilities).
	reached, reachedCaps map[int][]string
}

// Reaches reports whether function i of Funcs may call the builtin name:
// it, or a function or constant it uses at any depth, names it. Only
// tools, resources and prompts are answered; a plain function is false.
// The server asks it of the builtins that need a client capability
// (elicit, sample), so that a request of a client without the capability
// is refused before the tool runs.
func (m *Module) Reaches(i int, name string) bool {
	return slices.Contains(m.reached[i], name)
}

// Capabilities returns the capability functions function i of Funcs may
// call, as it or a function or constant it uses at any depth names them:
// "fs.write" for fs.write(...) and std.fs.write(...), and "fs.*" where a
// namespace is used as a value (let f = fs), so that any of its
// functions may be called. Only tools, resources and prompts are
// answered. The server asks whether a tool can reach a function that
// changes anything (docs/security.md, readOnlyHint).
func (m *Module) Capabilities(i int) []string { return m.reachedCaps[i] }

// item is a unit of reachability: a module function or a constant.
type item struct {
	fn       int // index in Funcs, or -1
	cnst     int // index in Consts, or -1
	name     string
	refs     []ref    // functions and constants it uses
	builtins []int    // the builtins it names (Universe.Builtins indices), each once
	caps     []string // the capability functions it names (Capabilities), each once
}

type ref struct {
	pos  syntax.Pos
	fn   int // -1 for a constant
	cnst int
}

// scopeEntry is one local in scope: the names of the enclosing blocks are
// one stack, searched from the top, rather than a map per block: blocks
// hold few names, and a map per block was most of the resolver's cost.
type scopeEntry struct {
	name string
	b    *Binding
	fn   *Function
}

// bigScope is the number of names in scope past which lookups consult
// counts before searching the stack, so that a function with thousands of
// locals does not make every lookup of a global search them all.
const bigScope = 128

type resolver struct {
	path   string
	mod    *Module
	uni    Universe
	diags  *diag.List
	fn     *Function
	fnItem []*item
	cItem  []*item
	depth  int

	scope  []scopeEntry
	marks  []int          // where each open block's names start in scope
	floor  int            // names below it belong to an unrelated function
	counts map[string]int // names in scope, counted, once scope is big

	// Bindings of module-level names are shared by all their uses; they
	// are never modified (only locals turn into cells).
	globals, consts, ctors, builtins, namespaces []*Binding

	*Slabs
}

// Slabs holds the chunks the resolver allocates bindings and functions
// from. A caller that keeps nothing of a resolved file once done with it
// can Reset them and resolve the next file into the same chunks (FileIn),
// so that they are not garbage made per file (internal/vox's lean
// modules, docs/benchmarks.md, Refresh).
type Slabs struct {
	bindings  slab.Slab[Binding]
	functions slab.Slab[Function]
	synth     slab.Slab[syntheticBody]
}

// Reset zeroes everything resolved into s and makes the room free for the
// next file. Nothing of the modules resolved into s may be used after.
func (s *Slabs) Reset() {
	s.bindings.Reset()
	s.functions.Reset()
	s.synth.Reset()
}

// syntheticBody is the body of a synthetic function, allocated in one
// piece.
type syntheticBody struct {
	block syntax.Block
	stmt  syntax.ExprStmt
	stmts [1]syntax.Stmt
}

func (r *resolver) newBinding(b Binding) *Binding    { return r.bindings.Make(b) }
func (r *resolver) newFunction(f Function) *Function { return r.functions.Make(f) }

// shared returns the shared binding of module-level name i of a scope.
func (r *resolver) shared(cache *[]*Binding, n int, scope Scope, i int, name string) *Binding {
	if *cache == nil {
		*cache = make([]*Binding, n)
	}
	if b := (*cache)[i]; b != nil {
		return b
	}
	b := r.newBinding(Binding{Scope: scope, Index: i, Name: name})
	(*cache)[i] = b
	return b
}

// File resolves a parsed file, adding its diagnostics to diags.
func File(f *syntax.File, uni Universe, diags *diag.List) *Module {
	return FileIn(new(Slabs), f, uni, diags)
}

// FileIn is File that allocates the module's bindings and functions in
// slabs, which the module then shares: slabs must not be Reset while the
// module is used.
func FileIn(slabs *Slabs, f *syntax.File, uni Universe, diags *diag.List) *Module {
	r := &resolver{path: f.Path, uni: uni, diags: diags, Slabs: slabs}
	nfn, nconst := 0, 0
	for _, d := range f.Decls {
		switch d.(type) {
		case *syntax.FnDecl:
			nfn++
		case *syntax.ConstDecl:
			nconst++
		}
	}
	m := &Module{File: f, FuncIndex: make(map[string]int, nfn), CtorIndex: map[string]int{},
		Funcs: make([]*syntax.FnDecl, 0, nfn), Ctors: append([]*Constructor(nil), coreCtors[:]...),
		Records: map[string]*syntax.RecordDecl{}}
	r.mod = m
	items := make([]item, nfn+nconst)
	r.fnItem = make([]*item, 0, nfn)
	// Declarations first, so that bodies see every module name.
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *syntax.FnDecl:
			if prev, dup := m.FuncIndex[d.Name]; dup {
				p := m.Funcs[prev].NamePos
				r.warn(d.NamePos, "vox/resolve/redeclared", "%s is declared again: the declaration at line %d is used", d.Name, p.Line)
			} else {
				m.FuncIndex[d.Name] = len(m.Funcs)
			}
			m.Funcs = append(m.Funcs, d)
			it := &items[len(r.fnItem)]
			*it = item{fn: len(m.Funcs) - 1, cnst: -1, name: d.Name}
			r.fnItem = append(r.fnItem, it)
		case *syntax.ConstDecl:
			d.Index = len(m.Consts)
			m.Consts = append(m.Consts, d)
			it := &items[nfn+len(r.cItem)]
			*it = item{fn: -1, cnst: d.Index, name: d.Name}
			r.cItem = append(r.cItem, it)
		case *syntax.RecordDecl:
			if _, dup := m.Records[d.Name]; dup {
				r.warn(d.NamePos, "vox/resolve/redeclared", "record type %s is declared again: the first declaration is used", d.Name)
				continue
			}
			m.Records[d.Name] = d
		case *syntax.TypeDecl:
			for _, v := range d.Variants {
				if _, dup := m.CtorIndex[v.Name]; dup {
					r.warn(v.Pos, "vox/resolve/redeclared", "constructor %s is declared again: the first declaration is used", v.Name)
					continue
				}
				c := &Constructor{Name: v.Name, Type: d.Name, Tag: len(m.Ctors)}
				for _, fld := range v.Fields {
					c.Fields = append(c.Fields, fld.Name)
				}
				m.CtorIndex[v.Name] = c.Tag
				m.Ctors = append(m.Ctors, c)
			}
		}
	}
	m.ConstInit = make([]*Function, len(m.Consts))
	for i, c := range m.Consts {
		m.ConstInit[i] = r.synthetic(c.Name, c.Value, r.cItem[i])
	}
	for i, d := range m.Funcs {
		if d.Unavailable != nil {
			continue
		}
		it := r.fnItem[i]
		fn := r.newFunction(Function{Name: d.Name, Pos: d.NamePos, Params: d.Params, Result: d.Result, Body: d.Body, owner: it})
		fn.Defaults = r.defaults(d.Params, d.Name, it)
		d.Function = fn
		r.function(fn, false)
	}
	r.reach()
	r.reachBuiltins()
	return m
}

// reachBuiltins records for every tool, resource and prompt the builtins
// it reaches through the functions and constants it uses, walking the
// graph of uses once per root with a work list.
func (r *resolver) reachBuiltins() {
	m := r.mod
	for i, d := range m.Funcs {
		if d.Kind == syntax.PlainFn || d.Unavailable != nil {
			continue
		}
		seen := map[*item]bool{r.fnItem[i]: true}
		work := []*item{r.fnItem[i]}
		var names, caps []string
		for len(work) > 0 {
			it := work[len(work)-1]
			work = work[:len(work)-1]
			for _, b := range it.builtins {
				if n := r.uni.Builtins[b]; !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			for _, c := range it.caps {
				if !slices.Contains(caps, c) {
					caps = append(caps, c)
				}
			}
			for _, rf := range it.refs {
				var next *item
				if rf.fn >= 0 {
					next = r.fnItem[rf.fn]
				} else {
					next = r.cItem[rf.cnst]
				}
				if !seen[next] {
					seen[next] = true
					work = append(work, next)
				}
			}
		}
		if len(names) > 0 {
			if m.reached == nil {
				m.reached = map[int][]string{}
			}
			m.reached[i] = names
		}
		if len(caps) > 0 {
			if m.reachedCaps == nil {
				m.reachedCaps = map[int][]string{}
			}
			m.reachedCaps[i] = caps
		}
	}
}

func (r *resolver) warn(pos syntax.Pos, code, format string, args ...any) {
	r.diags.Warnf(r.path, int(pos.Line), int(pos.Col), code, format, args...)
}

// synthetic resolves an expression evaluated in the module scope (a
// constant's value, a parameter default) as a nullary function.
func (r *resolver) synthetic(name string, x syntax.Expr, owner *item) *Function {
	body := r.synth.New()
	body.stmt.X = x
	body.stmts[0] = &body.stmt
	body.block = syntax.Block{Lbrace: x.Span(), Stmts: body.stmts[:]}
	fn := r.newFunction(Function{Name: name, Pos: x.Span(), owner: owner, Body: &body.block})
	savedFn := r.fn
	r.fn = nil
	r.function(fn, false)
	r.fn = savedFn
	return fn
}

func (r *resolver) defaults(params []*syntax.Param, name string, owner *item) []*Function {
	// The defaults are named name.param; the names are slices of one
	// string.
	n := 0
	for _, p := range params {
		if p.Default != nil {
			n += len(name) + 1 + len(p.Name)
		}
	}
	if n == 0 {
		return nil
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range params {
		if p.Default != nil {
			b.WriteString(name)
			b.WriteByte('.')
			b.WriteString(p.Name)
		}
	}
	names := b.String()
	out := make([]*Function, len(params))
	for i, p := range params {
		if p.Default == nil {
			continue
		}
		k := len(name) + 1 + len(p.Name)
		out[i] = r.synthetic(names[:k], p.Default, owner)
		names = names[k:]
	}
	return out
}

// function resolves fn's parameters and body in a new frame: nested in
// the current scope for a lambda, else seeing module names only.
func (r *resolver) function(fn *Function, nested bool) {
	savedFn, savedFloor := r.fn, r.floor
	fn.parent = r.fn
	r.fn = fn
	if !nested {
		r.floor = len(r.scope)
	}
	if n := len(fn.Params) + countLocals(fn.Body); n > 0 {
		fn.Locals = make([]*Binding, 0, n)
	}
	r.push()
	for _, p := range fn.Params {
		b := r.bind(p.Name, p.NamePos)
		if p.Ident != nil {
			p.Ident.Binding = b
		}
	}
	r.blockStmts(fn.Body)
	r.pop()
	r.fn, r.floor = savedFn, savedFloor
}

// countLocals estimates the locals a body declares from its statements (not
// those of nested blocks), to size Function.Locals at once.
func countLocals(b *syntax.Block) int {
	if b == nil {
		return 0
	}
	n := 0
	for _, s := range b.Stmts {
		switch s.(type) {
		case *syntax.LetStmt:
			n++
		case *syntax.ForStmt:
			n += 2
		}
	}
	return n
}

// bind declares a new local in the innermost block.
func (r *resolver) bind(name string, pos syntax.Pos) *Binding {
	b := r.newBinding(Binding{Scope: Local, Index: len(r.fn.Locals), Name: name, Pos: pos})
	r.fn.Locals = append(r.fn.Locals, b)
	r.scope = append(r.scope, scopeEntry{name, b, r.fn})
	if r.counts != nil {
		r.counts[name]++
	} else if len(r.scope) > bigScope {
		r.counts = make(map[string]int, len(r.scope))
		for _, e := range r.scope {
			r.counts[e.name]++
		}
	}
	return b
}

func (r *resolver) push() { r.marks = append(r.marks, len(r.scope)) }

func (r *resolver) pop() {
	m := r.marks[len(r.marks)-1]
	r.marks = r.marks[:len(r.marks)-1]
	if r.counts != nil {
		for _, e := range r.scope[m:] {
			r.counts[e.name]--
		}
		if m == 0 {
			r.counts = nil
		}
	}
	clear(r.scope[m:])
	r.scope = r.scope[:m]
}

// lookup resolves a use of a name.
func (r *resolver) lookup(id *syntax.Ident) {
	id.Binding = r.lookupName(id.Name, id)
}

func (r *resolver) lookupName(name string, id *syntax.Ident) *Binding {
	if r.counts == nil || r.counts[name] > 0 {
		for i := len(r.scope) - 1; i >= r.floor; i-- {
			e := &r.scope[i]
			if e.name != name {
				continue
			}
			lb := e.b
			if e.fn == r.fn {
				return lb
			}
			// Captured from an enclosing function: the local becomes a
			// cell and every function in between gets a free variable.
			if lb.Scope == Local {
				lb.Scope = Cell
			}
			return r.capture(r.fn, lb, e.fn)
		}
	}
	m := r.mod
	owner := r.fn.topOwner()
	if i, ok := m.FuncIndex[name]; ok {
		owner.refs = append(owner.refs, ref{pos: pos(id), fn: i, cnst: -1})
		return r.shared(&r.globals, len(m.Funcs), Global, i, m.Funcs[i].Name)
	}
	for i, c := range m.Consts {
		if c.Name == name {
			owner.refs = append(owner.refs, ref{pos: pos(id), fn: -1, cnst: i})
			return r.shared(&r.consts, len(m.Consts), Const, i, c.Name)
		}
	}
	if i, ok := m.CtorIndex[name]; ok {
		return r.shared(&r.ctors, len(m.Ctors), Ctor, i, m.Ctors[i].Name)
	}
	switch name {
	case "None":
		return r.shared(&r.ctors, len(m.Ctors), Ctor, CtorNone, name)
	case "Some":
		return r.shared(&r.ctors, len(m.Ctors), Ctor, CtorSome, name)
	case "Ok":
		return r.shared(&r.ctors, len(m.Ctors), Ctor, CtorOk, name)
	case "Err":
		return r.shared(&r.ctors, len(m.Ctors), Ctor, CtorErr, name)
	case "Error": // a synonym: its binding keeps the name written
		return r.newBinding(Binding{Scope: Ctor, Index: CtorErr, Name: name})
	}
	if i := slices.Index(r.uni.Builtins, name); i >= 0 {
		if !slices.Contains(owner.builtins, i) {
			owner.builtins = append(owner.builtins, i)
		}
		return r.shared(&r.builtins, len(r.uni.Builtins), Builtin, i, name)
	}
	if i := slices.Index(r.uni.Namespaces, name); i >= 0 {
		return r.shared(&r.namespaces, len(r.uni.Namespaces), Namespace, i, name)
	}
	return r.newBinding(Binding{Scope: Undefined, Name: name})
}

func pos(id *syntax.Ident) syntax.Pos {
	if id == nil {
		return syntax.Pos{}
	}
	return id.NamePos
}

// topOwner returns the reachability item of the function being resolved.
func (f *Function) topOwner() *item {
	for f.owner == nil && f.parent != nil {
		f = f.parent
	}
	if f.owner == nil {
		return &item{fn: -1, cnst: -1}
	}
	return f.owner
}

// capture returns fn's free-variable binding for lb, a local of the
// function def that encloses fn, adding free variables along the way.
func (r *resolver) capture(fn *Function, lb *Binding, def *Function) *Binding {
	var outer *Binding
	if fn.parent == def {
		outer = lb
	} else {
		outer = r.capture(fn.parent, lb, def)
	}
	if fn.freeIndex == nil {
		fn.freeIndex = map[*Binding]int{}
	}
	i, ok := fn.freeIndex[outer]
	if !ok {
		i = len(fn.FreeVars)
		fn.FreeVars = append(fn.FreeVars, outer)
		fn.freeIndex[outer] = i
	}
	return r.newBinding(Binding{Scope: Free, Index: i, Name: lb.Name})
}

func (r *resolver) enter() bool {
	r.depth++
	return r.depth <= 4*512
}

func (r *resolver) blockStmts(b *syntax.Block) {
	if b == nil {
		return
	}
	r.push()
	for _, s := range b.Stmts {
		r.stmt(s)
	}
	r.pop()
}

func (r *resolver) stmt(s syntax.Stmt) {
	if !r.enter() {
		r.depth--
		return
	}
	defer func() { r.depth-- }()
	switch s := s.(type) {
	case *syntax.LetStmt:
		r.expr(s.Value) // the value cannot see the new names
		r.bindPattern(s.Pattern)
	case *syntax.ReturnStmt:
		if s.Value != nil {
			r.expr(s.Value)
		}
	case *syntax.BranchStmt:
	case *syntax.WhileStmt:
		r.expr(s.Cond)
		r.blockStmts(s.Body)
	case *syntax.LoopStmt:
		r.blockStmts(s.Body)
	case *syntax.ForStmt:
		r.expr(s.Iter)
		r.push()
		r.bindNames(s.Pattern)
		if s.Index != nil {
			r.bindNames(s.Index)
		}
		if s.Key != nil {
			r.expr(s.Key) // resolved for readers; nothing evaluates it
		}
		r.blockStmts(s.Body)
		r.pop()
	case *syntax.AssignStmt:
		r.expr(s.RHS)
		r.expr(s.LHS)
	case *syntax.ExprStmt:
		r.expr(s.X)
	}
}

// bindPattern declares the names a pattern binds; a bare name that is a
// nullary constructor matches it instead.
func (r *resolver) bindPattern(p syntax.Pattern) {
	if !r.enter() {
		r.depth--
		return
	}
	defer func() { r.depth-- }()
	switch p := p.(type) {
	case *syntax.BindPat:
		if c, ok := r.nullaryCtor(p.Ident.Name); ok {
			p.Ident.Binding = r.shared(&r.ctors, len(r.mod.Ctors), Ctor, c, r.mod.Ctors[c].Name)
			return
		}
		p.Ident.Binding = r.bind(p.Ident.Name, p.Ident.NamePos)
	case *syntax.CtorPat:
		r.lookup(p.Name)
		for _, a := range p.Args {
			r.bindPattern(a)
		}
	case *syntax.TuplePat:
		for _, e := range p.Elems {
			r.bindPattern(e)
		}
	}
}

// bindNames declares the names of a for loop's pattern: names, _ and
// tuples of them, every name binding (even one that is a constructor's).
func (r *resolver) bindNames(p syntax.Pattern) {
	if !r.enter() {
		r.depth--
		return
	}
	defer func() { r.depth-- }()
	switch p := p.(type) {
	case *syntax.BindPat:
		p.Ident.Binding = r.bind(p.Ident.Name, p.Ident.NamePos)
	case *syntax.TuplePat:
		for _, e := range p.Elems {
			r.bindNames(e)
		}
	}
}

func (r *resolver) nullaryCtor(name string) (int, bool) {
	if name == "None" {
		return CtorNone, true
	}
	if i, ok := r.mod.CtorIndex[name]; ok && len(r.mod.Ctors[i].Fields) == 0 {
		return i, true
	}
	return 0, false
}

func (r *resolver) expr(e syntax.Expr) {
	if !r.enter() {
		r.depth--
		return
	}
	defer func() { r.depth-- }()
	switch e := e.(type) {
	case *syntax.Ident:
		r.lookup(e)
		if ns := r.namespaceOf(e); ns != "" {
			r.useCapability(ns + ".*")
		}
	case *syntax.Literal:
	case *syntax.TemplateLit:
		for _, v := range e.Vars {
			r.lookup(v)
		}
	case *syntax.ListExpr:
		for _, x := range e.Elems {
			r.expr(x)
		}
	case *syntax.TupleExpr:
		for _, x := range e.Elems {
			r.expr(x)
		}
	case *syntax.ObjectExpr:
		for _, x := range e.Values {
			r.expr(x)
		}
	case *syntax.Block:
		r.blockStmts(e)
	case *syntax.IfExpr:
		r.expr(e.Cond)
		r.blockStmts(e.Then)
		if e.Else != nil {
			r.expr(e.Else)
		}
	case *syntax.MatchExpr:
		r.expr(e.X)
		for _, arm := range e.Arms {
			r.push()
			r.bindPattern(arm.Pattern)
			if arm.Guard != nil {
				r.expr(arm.Guard)
			}
			r.expr(arm.Body)
			r.pop()
		}
	case *syntax.ForStmt, *syntax.WhileStmt, *syntax.LoopStmt:
		r.depth-- // stmt counts the level again
		r.stmt(e.(syntax.Stmt))
		r.depth++
	case *syntax.WithExpr:
		r.expr(e.X)
		r.expr(e.Options)
	case *syntax.ViewExpr:
		// The element's name is a tag, not a name of the program; its
		// attribute values and children are expressions.
		for _, a := range e.Attrs {
			r.expr(a.Value)
		}
		for _, x := range e.Children {
			r.expr(x)
		}
	case *syntax.RecordLit:
		r.recordLit(e)
	case *syntax.FuncLit:
		fn := r.newFunction(Function{Name: "lambda", Pos: e.Pos, Params: e.Params, Result: e.Result, Body: e.Body})
		fn.Defaults = r.defaults(e.Params, "lambda", r.fn.topOwner())
		e.Function = fn
		r.function(fn, true)
	case *syntax.CallExpr:
		r.expr(e.Fn)
		for _, a := range e.Args {
			r.expr(a.Value)
		}
	case *syntax.DotExpr:
		if ns := r.selection(e); ns != "" {
			// std.fs used as a value: any of fs's functions.
			r.useCapability(ns + ".*")
		}
	case *syntax.IndexExpr:
		r.expr(e.X)
		r.expr(e.Index)
	case *syntax.TryExpr:
		r.fn.HasTry = true
		r.expr(e.X)
	case *syntax.UnaryExpr:
		r.expr(e.X)
	case *syntax.BinaryExpr:
		r.expr(e.X)
		r.expr(e.Y)
	}
}

// selection resolves x.name and records the capability function it
// names: fs.write, or std.fs.write. It returns the namespace x.name is
// when x is std (std.fs is fs), else "".
func (r *resolver) selection(e *syntax.DotExpr) string {
	var of string
	switch x := e.X.(type) {
	case *syntax.Ident:
		r.lookup(x)
		of = r.namespaceOf(x)
	case *syntax.DotExpr:
		if !r.enter() {
			r.depth--
			return ""
		}
		of = r.selection(x)
		r.depth--
	default:
		r.expr(e.X)
	}
	switch of {
	case "":
	case "std":
		// std.X is the namespace std.X where the library has one
		// (std.json, whose parse differs from the bare json's), else X.
		if slices.Contains(r.uni.Namespaces, "std."+e.Name) {
			return "std." + e.Name
		}
		if slices.Contains(r.uni.Namespaces, e.Name) {
			return e.Name
		}
	default:
		r.useCapability(of + "." + e.Name)
	}
	return ""
}

// namespaceOf is the capability namespace a resolved name denotes, or "".
func (r *resolver) namespaceOf(id *syntax.Ident) string {
	if b, ok := id.Binding.(*Binding); ok && b.Scope == Namespace {
		return b.Name
	}
	return ""
}

// useCapability records that the current function names a capability
// function (Capabilities).
func (r *resolver) useCapability(name string) {
	owner := r.fn.topOwner()
	if !slices.Contains(owner.caps, name) {
		owner.caps = append(owner.caps, name)
	}
}

// recordLit resolves a record literal: its type must be a record type of
// the file, and it must give each field once, every field without an
// Option type.
func (r *resolver) recordLit(e *syntax.RecordLit) {
	for _, f := range e.Fields {
		r.expr(f.Value)
	}
	d, ok := r.mod.Records[e.Type.Name]
	if !ok {
		r.diags.Errorf(r.path, int(e.Type.NamePos.Line), int(e.Type.NamePos.Col), "vox/resolve/record-type",
			"%s is not a record type of this file: declare type %s { field: type, ... }", e.Type.Name, e.Type.Name)
		return
	}
	e.Record = d
	given := map[string]bool{}
	for _, f := range e.Fields {
		if given[f.Name] {
			r.diags.Errorf(r.path, int(f.NamePos.Line), int(f.NamePos.Col), "vox/resolve/record-field", "field %s of %s is given twice", f.Name, d.Name)
		}
		given[f.Name] = true
		if !slices.ContainsFunc(d.Fields, func(x *syntax.Field) bool { return x.Name == f.Name }) {
			r.diags.Errorf(r.path, int(f.NamePos.Line), int(f.NamePos.Col), "vox/resolve/record-field", "record %s has no field %s: its fields are %s", d.Name, f.Name, fieldNames(d))
		}
	}
	var missing []string
	for _, f := range d.Fields {
		if !given[f.Name] && !f.Type.IsNamed("Option") {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		r.diags.Errorf(r.path, int(e.Lbrace.Line), int(e.Lbrace.Col), "vox/resolve/record-field", "%s literal lacks field %s (only Option fields may be left out)", d.Name, strings.Join(missing, ", "))
	}
}

func fieldNames(d *syntax.RecordDecl) string {
	names := make([]string, len(d.Fields))
	for i, f := range d.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// reach walks from every tool and resource through the functions and
// constants they use: an unavailable function there is an error.
func (r *resolver) reach() {
	m := r.mod
	type visit struct {
		it   *item
		root *syntax.FnDecl
	}
	seen := map[*item]bool{}
	var queue []visit
	for i, d := range m.Funcs {
		if d.Kind != syntax.PlainFn || d == m.File.Script {
			queue = append(queue, visit{r.fnItem[i], d})
			seen[r.fnItem[i]] = true
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, rf := range v.it.refs {
			var next *item
			if rf.fn >= 0 {
				next = r.fnItem[rf.fn]
				if u := m.Funcs[rf.fn].Unavailable; u != nil {
					r.diags.Errorf(r.path, int(rf.pos.Line), int(rf.pos.Col), "vox/resolve/unavailable",
						"%s uses %s, which is unavailable: %s at line %d:%d", describe(v.root), m.Funcs[rf.fn].Name, u.Reason, u.Pos.Line, u.Pos.Col)
				}
			} else {
				next = r.cItem[rf.cnst]
			}
			if !seen[next] {
				seen[next] = true
				queue = append(queue, visit{next, v.root})
			}
		}
	}
}

func describe(d *syntax.FnDecl) string {
	switch d.Kind {
	case syntax.ResourceFn:
		return fmt.Sprintf("resource %s", d.URI)
	case syntax.PlainFn:
		return "the script"
	case syntax.PromptFn:
		return fmt.Sprintf("prompt %s", d.Name)
	}
	return fmt.Sprintf("tool %s", d.Name)
}
