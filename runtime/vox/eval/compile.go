package eval

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vox-lang/vox-mcp/runtime/vox/internal/slab"
	"github.com/vox-lang/vox-mcp/runtime/vox/resolve"
	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// The compiler turns resolved functions into trees of Go closures. Each
// expression becomes an exprFn, each statement a stmtFn that reports
// control flow (break, continue, return) as a result rather than a panic;
// only control flow that escapes from inside an expression (a return in
// the block of an if used as a value, the '?' operator) unwinds with a
// panic, and only functions that contain such code install a recover.

type ctrl uint8

const (
	ctrlNone ctrl = iota
	ctrlBreak
	ctrlContinue
	ctrlReturn
)

type (
	exprFn  func(fr *frame) Value
	stmtFn  func(fr *frame) ctrl
	blockFn func(fr *frame) (Value, ctrl)
	condFn  func(fr *frame) bool
	matchFn func(fr *frame, v Value) bool
)

// Func is a function of a program. Its body is compiled to closures on its
// first call (code): most functions of a workspace are never called, and
// compiling them all would be a large part of a refresh.
type Func struct {
	name        string
	params      []*syntax.Param
	nlocals     int
	defaults    []*Func
	cellParams  []int
	unavailable *syntax.Unavailable
	rf          *resolve.Function // nil when unavailable
	prog        *Program
	// code is written once, before ready is set: a call that sees ready
	// reads it without a lock, and from the Func itself rather than
	// through a pointer (this is the hottest path of the interpreter).
	ready atomic.Bool
	code  funcCode
}

// funcCode is the compiled body of a function.
type funcCode struct {
	body    blockFn
	recover bool // the body unwinds early returns with a panic
	nest    int  // the deepest nesting of its body: Go frames per call, roughly
}

// Name returns the function's name.
func (f *Func) Name() string { return f.name }

// compiled returns f's compiled body, compiling it on the first call.
func (f *Func) compiled() *funcCode {
	if !f.ready.Load() {
		f.compile()
	}
	return &f.code
}

// compiles counts the bodies compiled (for tests).
var compiles atomic.Int64

// compile compiles f's body once; concurrent first calls wait for it.
// Compiling a body never compiles another (calls and lambdas refer to
// functions whose own bodies wait for their first call), so one lock per
// program suffices.
func (f *Func) compile() {
	p := f.prog
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.ready.Load() {
		return
	}
	code := funcCode{recover: f.rf.HasTry}
	c := &compiler{p: p, code: &code}
	code.body = c.bodyBlock(f.rf.Body, valueMove)
	code.nest = c.maxNest + 2
	f.code = code
	f.ready.Store(true)
	compiles.Add(1)
}

// Program is a compiled module, shared by all calls. Apart from the
// function bodies compiled on first call, it does not change.
type Program struct {
	path     string
	mod      *resolve.Module
	funcs    []*Func
	funcVals []Value
	consts   []*Func
	ctorVals []Value
	mu       sync.Mutex // serialises the compilation of function bodies

	// Funcs and closures are allocated in chunks (under mu once Compile
	// returned).
	funcSlab    slab.Slab[Func]
	closureSlab slab.Slab[Closure]
}

// Compile prepares a resolved module for calls. Function bodies are
// compiled on their first call (or all at once by Precompile).
func Compile(path string, mod *resolve.Module) *Program {
	p := &Program{path: path, mod: mod}
	p.funcs = make([]*Func, len(mod.Funcs))
	p.funcVals = make([]Value, len(mod.Funcs))
	for i, d := range mod.Funcs {
		f := p.funcSlab.Make(Func{name: d.Name, params: d.Params, unavailable: d.Unavailable, prog: p})
		if d.Unavailable == nil {
			p.setup(f, d.Function.(*resolve.Function))
		}
		p.funcs[i] = f
		p.funcVals[i] = closureValue(p.closureSlab.Make(Closure{fn: f}))
	}
	p.ctorVals = make([]Value, len(mod.Ctors))
	for i, c := range mod.Ctors {
		if i < resolve.NumCoreCtors {
			p.ctorVals[i] = coreCtorValue(c)
			continue
		}
		p.ctorVals[i] = ctorValue(c)
	}
	p.consts = make([]*Func, len(mod.Consts))
	for i := range mod.Consts {
		p.consts[i] = p.newFunc(mod.ConstInit[i])
		p.consts[i].name = mod.Consts[i].Name
	}
	return p
}

// Precompile compiles every function body now, as the first calls would:
// the fuzz targets use it to reach the compiler with every function.
func (p *Program) Precompile() {
	var walk func(f *Func)
	walk = func(f *Func) {
		if f == nil || f.rf == nil {
			return
		}
		f.compiled()
		for _, d := range f.defaults {
			walk(d)
		}
	}
	for _, f := range p.funcs {
		walk(f)
	}
	for _, f := range p.consts {
		walk(f)
	}
}

// Path returns the module's path.
func (p *Program) Path() string { return p.path }

// Func returns the module function named name (the first of that name).
func (p *Program) Func(name string) (*Func, bool) {
	i, ok := p.mod.FuncIndex[name]
	if !ok {
		return nil, false
	}
	return p.funcs[i], true
}

func (p *Program) newFunc(rf *resolve.Function) *Func {
	f := p.funcSlab.Make(Func{name: rf.Name, prog: p})
	p.setup(f, rf)
	return f
}

// setup fills in what a call needs to know of f before its body is
// compiled: its frame and its parameters' defaults.
func (p *Program) setup(f *Func, rf *resolve.Function) {
	f.rf = rf
	f.params = rf.Params
	f.nlocals = len(rf.Locals)
	for i := range rf.Params {
		if rf.Locals[i].Scope == resolve.Cell {
			f.cellParams = append(f.cellParams, i)
		}
	}
	if rf.Defaults != nil {
		f.defaults = make([]*Func, len(rf.Defaults))
		for i, d := range rf.Defaults {
			if d != nil {
				f.defaults[i] = p.newFunc(d)
			}
		}
	}
}

type loopCtx struct {
	exprDepth int
	escapes   bool
}

type compiler struct {
	p         *Program
	code      *funcCode // the body being compiled
	exprDepth int       // > 0 while compiling a block used as a plain expression
	loops     []*loopCtx
	nest      int // current syntactic nesting
	maxNest   int
}

func (c *compiler) enter() {
	c.nest++
	if c.nest > c.maxNest {
		c.maxNest = c.nest
	}
}

func binding(id *syntax.Ident) *resolve.Binding {
	if b, ok := id.Binding.(*resolve.Binding); ok {
		return b
	}
	return &resolve.Binding{Scope: resolve.Undefined, Name: id.Name}
}

// ---- blocks and statements ----

// valueUse says what becomes of the value of a block or a tail
// expression (cow.go): it is kept (a block used as an expression), it
// leaves the function (its body: a plain local it ends with is moved out
// rather than shared), or it is dropped (a loop's body, a statement).
type valueUse uint8

const (
	valueRetain valueUse = iota
	valueMove
	valueDrop
)

// block compiles a block whose value is its last expression statement's.
func (c *compiler) block(b *syntax.Block, use valueUse) blockFn { return c.bodyBlock(b, use) }

// bodyBlock compiles a block whose value is used as use says.
func (c *compiler) bodyBlock(b *syntax.Block, use valueUse) blockFn {
	if b == nil || len(b.Stmts) == 0 {
		return func(*frame) (Value, ctrl) { return Unit, ctrlNone }
	}
	n := len(b.Stmts)
	stmts := make([]stmtFn, 0, n-1)
	for _, s := range b.Stmts[:n-1] {
		stmts = append(stmts, c.stmt(s))
	}
	var last blockFn
	if es, ok := b.Stmts[n-1].(*syntax.ExprStmt); ok && c.placeCall(es.X) {
		// A method call on a place ends the block: it writes back as a
		// statement does, and its result is the block's value.
		call := es.X.(*syntax.CallExpr)
		retain := use == valueRetain
		if use == valueMove {
			// Moved out only when the place dies with the frame.
			retain = !localRoot(call.Fn.(*syntax.DotExpr).X)
		}
		x := c.callMode(call, callMode{stmt: true, retain: retain})
		w := weight(es.X)
		last = func(fr *frame) (Value, ctrl) {
			fr.th.step(w)
			return x(fr), ctrlNone
		}
	} else if ok {
		last = c.tail(es.X, weight(es.X), use)
	} else {
		s := c.stmt(b.Stmts[n-1])
		last = func(fr *frame) (Value, ctrl) { return Unit, s(fr) }
	}
	switch len(stmts) {
	case 0:
		return last
	case 1:
		s0 := stmts[0]
		return func(fr *frame) (Value, ctrl) {
			if k := s0(fr); k != ctrlNone {
				return Unit, k
			}
			return last(fr)
		}
	}
	return func(fr *frame) (Value, ctrl) {
		for _, s := range stmts {
			if k := s(fr); k != ctrlNone {
				return Unit, k
			}
		}
		return last(fr)
	}
}

// tail compiles an expression whose value ends a block: if, match and
// blocks there pass control flow through instead of unwinding. Its value
// is used as use says.
func (c *compiler) tail(e syntax.Expr, w int64, use valueUse) blockFn {
	switch e := e.(type) {
	case *syntax.IfExpr:
		cond := c.cond(e.Cond)
		then := c.bodyBlock(e.Then, use)
		var els blockFn
		switch x := e.Else.(type) {
		case nil:
			els = func(*frame) (Value, ctrl) { return Unit, ctrlNone }
		case *syntax.Block:
			els = c.bodyBlock(x, use)
		default:
			els = c.tail(x, 0, use)
		}
		return func(fr *frame) (Value, ctrl) {
			fr.th.step(w)
			if cond(fr) {
				return then(fr)
			}
			return els(fr)
		}
	case *syntax.MatchExpr:
		x := c.borrow(e.X)
		pats, bodies := c.arms(e, func(body syntax.Expr) blockFn { return c.tail(body, weight(body), use) })
		pos := e.Pos
		return func(fr *frame) (Value, ctrl) {
			fr.th.step(w)
			v := x(fr)
			for i, m := range pats {
				if m(fr, v) {
					return bodies[i](fr)
				}
			}
			fr.th.Fail(pos, "no match arm matches %s", fr.th.display(v))
			return Unit, ctrlNone
		}
	case *syntax.Block:
		return c.bodyBlock(e, use)
	}
	var x exprFn
	switch use {
	case valueMove:
		x = c.moved(e)
	case valueDrop:
		x = c.borrow(e)
	default:
		x = c.expr(e)
	}
	return func(fr *frame) (Value, ctrl) {
		fr.th.step(w)
		return x(fr), ctrlNone
	}
}

// moved compiles an expression whose value leaves the function (its
// result, or a return's value): a plain local, or what a method called on
// a place rooted at one returns (a mutating method made the whole path
// unique first), is moved out, not shared. A field or element read from
// a local is not: the local may share its container with a caller.
func (c *compiler) moved(e syntax.Expr) exprFn {
	switch x := e.(type) {
	case *syntax.Ident:
		if binding(x).Scope == resolve.Local {
			return c.borrow(e)
		}
	case *syntax.CallExpr:
		if d, ok := x.Fn.(*syntax.DotExpr); ok && localRoot(d.X) {
			return c.borrow(e)
		}
	}
	return c.expr(e)
}

// localRoot reports whether e is a plain local of the function, or a
// field or index path from one: nothing but the frame holds it.
func localRoot(e syntax.Expr) bool {
	for {
		switch x := e.(type) {
		case *syntax.DotExpr:
			e = x.X
		case *syntax.IndexExpr:
			e = x.X
		case *syntax.Ident:
			return binding(x).Scope == resolve.Local
		default:
			return false
		}
	}
}

func (c *compiler) arms(e *syntax.MatchExpr, body func(syntax.Expr) blockFn) ([]matchFn, []blockFn) {
	pats := make([]matchFn, len(e.Arms))
	bodies := make([]blockFn, len(e.Arms))
	for i, arm := range e.Arms {
		pats[i] = c.pattern(arm.Pattern)
		if arm.Guard != nil {
			// The arm is taken when its pattern matches and then its
			// guard, which sees the pattern's names, is true.
			m, g := pats[i], c.cond(arm.Guard)
			pats[i] = func(fr *frame, v Value) bool { return m(fr, v) && g(fr) }
		}
		bodies[i] = body(arm.Body)
	}
	return pats, bodies
}

// weight is the number of steps a statement or expression counts: one per
// expression node, not counting the statements of nested blocks and
// lambdas, which count their own.
func weight(n syntax.Node) int64 {
	var w int64
	var walk func(n syntax.Node, depth int)
	walk = func(n syntax.Node, depth int) {
		if depth > 600 {
			return
		}
		w++
		switch n := n.(type) {
		case *syntax.LetStmt:
			walk(n.Value, depth+1)
		case *syntax.ReturnStmt:
			if n.Value != nil {
				walk(n.Value, depth+1)
			}
		case *syntax.AssignStmt:
			walk(n.LHS, depth+1)
			walk(n.RHS, depth+1)
		case *syntax.ExprStmt:
			walk(n.X, depth+1)
		case *syntax.TemplateLit:
			w += int64(len(n.Vars))
		case *syntax.ListExpr:
			for _, x := range n.Elems {
				walk(x, depth+1)
			}
		case *syntax.TupleExpr:
			for _, x := range n.Elems {
				walk(x, depth+1)
			}
		case *syntax.ObjectExpr:
			for _, x := range n.Values {
				walk(x, depth+1)
			}
		case *syntax.RecordLit:
			for _, f := range n.Fields {
				walk(f.Value, depth+1)
			}
		case *syntax.WithExpr:
			walk(n.X, depth+1)
			walk(n.Options, depth+1)
		case *syntax.IfExpr:
			walk(n.Cond, depth+1)
		case *syntax.MatchExpr:
			walk(n.X, depth+1)
		case *syntax.CallExpr:
			walk(n.Fn, depth+1)
			for _, a := range n.Args {
				walk(a.Value, depth+1)
			}
		case *syntax.DotExpr:
			walk(n.X, depth+1)
		case *syntax.IndexExpr:
			walk(n.X, depth+1)
			walk(n.Index, depth+1)
		case *syntax.TryExpr:
			walk(n.X, depth+1)
		case *syntax.UnaryExpr:
			walk(n.X, depth+1)
		case *syntax.BinaryExpr:
			walk(n.X, depth+1)
			walk(n.Y, depth+1)
		}
	}
	walk(n, 0)
	return w
}

func (c *compiler) stmt(s syntax.Stmt) stmtFn {
	c.enter()
	defer func() { c.nest-- }()
	w := weight(s)
	switch s := s.(type) {
	case *syntax.LetStmt:
		val := c.expr(s.Value)
		if bp, ok := s.Pattern.(*syntax.BindPat); ok {
			b := binding(bp.Ident)
			i := b.Index
			switch b.Scope {
			case resolve.Local:
				return func(fr *frame) ctrl {
					fr.th.step(w)
					fr.slots[i] = val(fr)
					return ctrlNone
				}
			case resolve.Cell:
				return func(fr *frame) ctrl {
					fr.th.step(w)
					cell := new(Value)
					*cell = val(fr)
					fr.slots[i] = cellValue(cell)
					return ctrlNone
				}
			}
		}
		m := c.pattern(s.Pattern)
		pos := s.Pos
		return func(fr *frame) ctrl {
			fr.th.step(w)
			v := val(fr)
			if !m(fr, v) {
				fr.th.Fail(pos, "let pattern does not match %s", fr.th.display(v))
			}
			return ctrlNone
		}
	case *syntax.ReturnStmt:
		val := func(*frame) Value { return Unit }
		if s.Value != nil {
			val = c.moved(s.Value)
		}
		if c.exprDepth > 0 {
			c.code.recover = true
		}
		return func(fr *frame) ctrl {
			fr.th.step(w)
			fr.ret = val(fr)
			return ctrlReturn
		}
	case *syntax.BranchStmt:
		k := ctrlBreak
		if s.Tok == syntax.CONTINUE {
			k = ctrlContinue
		}
		if len(c.loops) == 0 {
			pos, word := s.Pos, s.Tok.String()
			return func(fr *frame) ctrl {
				fr.th.Fail(pos, "%s outside a loop", word)
				return ctrlNone
			}
		}
		if l := c.loops[len(c.loops)-1]; c.exprDepth > l.exprDepth {
			l.escapes = true
		}
		return func(fr *frame) ctrl {
			fr.th.step(w)
			return k
		}
	case *syntax.WhileStmt:
		cond := c.cond(s.Cond)
		body, l := c.loopBody(s.Body)
		wc := weight(s.Cond)
		run := func(fr *frame) ctrl {
			for {
				fr.th.step(wc)
				if !cond(fr) {
					return ctrlNone
				}
				if _, k := body(fr); k == ctrlBreak {
					return ctrlNone
				} else if k == ctrlReturn {
					return k
				}
			}
		}
		return c.guardLoop(l, run)
	case *syntax.LoopStmt:
		body, l := c.loopBody(s.Body)
		run := func(fr *frame) ctrl {
			for {
				fr.th.step(1)
				if _, k := body(fr); k == ctrlBreak {
					return ctrlNone
				} else if k == ctrlReturn {
					return k
				}
			}
		}
		return c.guardLoop(l, run)
	case *syntax.ForStmt:
		return c.forStmt(s, w)
	case *syntax.AssignStmt:
		return c.assign(s, w)
	case *syntax.ExprStmt:
		switch x := s.X.(type) {
		case *syntax.IfExpr, *syntax.MatchExpr, *syntax.Block:
			t := c.tail(s.X, w, valueDrop)
			return func(fr *frame) ctrl {
				_, k := t(fr)
				return k
			}
		case *syntax.CallExpr:
			call := c.callMode(x, callMode{stmt: true})
			return func(fr *frame) ctrl {
				fr.th.step(w)
				call(fr)
				return ctrlNone
			}
		}
		x := c.borrow(s.X)
		return func(fr *frame) ctrl {
			fr.th.step(w)
			x(fr)
			return ctrlNone
		}
	}
	panic("eval: unknown statement")
}

func (c *compiler) loopBody(b *syntax.Block) (blockFn, *loopCtx) {
	l := &loopCtx{exprDepth: c.exprDepth}
	c.loops = append(c.loops, l)
	body := c.block(b, valueDrop)
	c.loops = c.loops[:len(c.loops)-1]
	return body, l
}

// loopSignal unwinds a break or continue from inside an expression to its
// loop.
type loopSignal struct {
	depth int
	k     ctrl
}

// guardLoop wraps a loop whose body breaks or continues from inside an
// expression: the loop then recovers those signals.
func (c *compiler) guardLoop(l *loopCtx, run stmtFn) stmtFn {
	if !l.escapes {
		return run
	}
	return func(fr *frame) ctrl {
		for {
			k, again := c.runGuarded(fr, run)
			if !again {
				return k
			}
		}
	}
}

// runGuarded runs a loop; a continue signal restarts it (the loop state
// lives in the frame, so running it again continues it for while and loop;
// for loops do not escape this way because their bodies are compiled with
// their own guard).
func (c *compiler) runGuarded(fr *frame, run stmtFn) (k ctrl, again bool) {
	depth := fr.th.depth
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(*loopSignal); ok && s.depth == depth {
				k, again = ctrlNone, s.k == ctrlContinue
				return
			}
			panic(r)
		}
	}()
	return run(fr), false
}

// exprBlock compiles a block used as a plain expression: control flow
// leaving it unwinds.
func (c *compiler) exprBlock(b *syntax.Block) exprFn {
	c.exprDepth++
	body := c.block(b, valueRetain)
	c.exprDepth--
	return func(fr *frame) Value {
		v, k := body(fr)
		if k != ctrlNone {
			unwind(fr, k)
		}
		return v
	}
}

func unwind(fr *frame, k ctrl) {
	if k == ctrlReturn {
		panic(&earlyReturn{depth: fr.th.depth, v: fr.ret})
	}
	panic(&loopSignal{depth: fr.th.depth, k: k})
}

// ---- for loops ----

// forStmt compiles a for loop: the pattern binds each element (a map's
// elements are (key, value) pairs, a string's one-character strings), the
// index, when written, the element's position.
func (c *compiler) forStmt(s *syntax.ForStmt, w int64) stmtFn {
	bind := c.forBinder(s.Pattern)
	var bindIndex func(fr *frame, v Value)
	if s.Index != nil {
		bindIndex = c.forBinder(s.Index)
	}
	// for i in range(...) counts without building a list.
	if call, ok := s.Iter.(*syntax.CallExpr); ok {
		if id, ok := call.Fn.(*syntax.Ident); ok {
			if b := binding(id); b.Scope == resolve.Builtin && b.Index == rangeBuiltin && len(call.Args) >= 1 && len(call.Args) <= 3 && call.Args[0].Name == "" {
				set := bind
				if bp, ok := s.Pattern.(*syntax.BindPat); ok {
					set = c.binder(bp.Ident) // ints: nothing to share
				}
				return c.rangeLoop(s, call, set, bindIndex, w)
			}
		}
	}
	// for (k, v) in m binds a map's keys and values without making pairs.
	var bindKey, bindVal func(fr *frame, v Value)
	if t, ok := s.Pattern.(*syntax.TuplePat); ok && len(t.Elems) == 2 {
		bindKey, bindVal = c.forBinder(t.Elems[0]), c.forBinder(t.Elems[1])
	}
	iter := c.borrow(s.Iter)
	body, l := c.loopBody(s.Body)
	body = c.guardIteration(l, body)
	pos := s.Iter.Span()
	return func(fr *frame) ctrl {
		th := fr.th
		th.step(w)
		v := iter(fr)
		v.share() // the body may change the variable it came from
		each := func(e Value, i int) (stop bool, k ctrl) {
			th.step(1)
			bind(fr, e)
			if bindIndex != nil {
				bindIndex(fr, Int(int64(i)))
			}
			_, k = body(fr)
			switch k {
			case ctrlBreak:
				return true, ctrlNone
			case ctrlReturn:
				return true, k
			}
			return false, ctrlNone
		}
		switch v.k {
		case KList, KTuple:
			var elems []Value
			if v.k == KList {
				elems = v.List().elems
			} else {
				elems = v.Tuple()
			}
			for i, e := range elems {
				if stop, k := each(e, i); stop {
					return k
				}
			}
		case KObject:
			o := v.Object()
			keys, vals := o.keys, o.vals
			for i, key := range keys {
				if bindKey != nil {
					th.step(1)
					bindKey(fr, Str(key))
					bindVal(fr, vals[i])
					if bindIndex != nil {
						bindIndex(fr, Int(int64(i)))
					}
					_, k := body(fr)
					switch k {
					case ctrlBreak:
						return ctrlNone
					case ctrlReturn:
						return k
					}
					continue
				}
				if stop, k := each(NewTuple([]Value{Str(key), vals[i]}), i); stop {
					return k
				}
			}
		case KStr:
			s := v.Str()
			i := 0
			for off := 0; off < len(s); {
				_, size := decodeRune(s[off:])
				if stop, k := each(Str(s[off:off+size]), i); stop {
					return k
				}
				off += size
				i++
			}
		default:
			th.Fail(pos, "cannot iterate over %s: a for loop goes over a list, tuple, map or str", v.typeName())
		}
		return ctrlNone
	}
}

// forBinder compiles what binds an element (or the position) in a for
// loop: a name, _, or a tuple pattern. Elements are shared: the loop's
// variable and the container both hold them.
func (c *compiler) forBinder(p syntax.Pattern) func(fr *frame, v Value) {
	switch p := p.(type) {
	case *syntax.BindPat:
		set := c.binder(p.Ident)
		return func(fr *frame, v Value) {
			v.share()
			set(fr, v)
		}
	case *syntax.WildcardPat:
		return func(*frame, Value) {}
	}
	m := c.pattern(p)
	pos := p.Span()
	return func(fr *frame, v Value) {
		if !m(fr, v) {
			fr.th.Fail(pos, "for pattern does not match %s", fr.th.display(v))
		}
	}
}

// guardIteration makes a for body that breaks or continues from inside an
// expression recover the signal per iteration.
func (c *compiler) guardIteration(l *loopCtx, body blockFn) blockFn {
	if !l.escapes {
		return body
	}
	return func(fr *frame) (v Value, k ctrl) {
		depth := fr.th.depth
		defer func() {
			if r := recover(); r != nil {
				if s, ok := r.(*loopSignal); ok && s.depth == depth {
					v, k = Unit, s.k
					return
				}
				panic(r)
			}
		}()
		return body(fr)
	}
}

func (c *compiler) rangeLoop(s *syntax.ForStmt, call *syntax.CallExpr, set, setIndex func(*frame, Value), w int64) stmtFn {
	args := make([]exprFn, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.borrow(a.Value)
	}
	body, l := c.loopBody(s.Body)
	body = c.guardIteration(l, body)
	pos := call.Lparen
	return func(fr *frame) ctrl {
		th := fr.th
		th.step(w)
		var vals [3]Value
		for i, a := range args {
			vals[i] = a(fr)
		}
		th.callPos = pos
		start, stop, step := rangeArgs(th, vals[:len(args)])
		n := int64(0)
		for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
			th.step(1)
			set(fr, Int(i))
			if setIndex != nil {
				setIndex(fr, Int(n))
				n++
			}
			if _, k := body(fr); k == ctrlBreak {
				return ctrlNone
			} else if k == ctrlReturn {
				return k
			}
		}
		return ctrlNone
	}
}

// binder returns a function that binds a loop variable.
func (c *compiler) binder(id *syntax.Ident) func(fr *frame, v Value) {
	b := binding(id)
	i := b.Index
	if b.Scope == resolve.Cell {
		return func(fr *frame, v Value) {
			cell := new(Value)
			*cell = v
			fr.slots[i] = cellValue(cell)
		}
	}
	return func(fr *frame, v Value) { fr.slots[i] = v }
}

// ---- assignment ----

func (c *compiler) assign(s *syntax.AssignStmt, w int64) stmtFn {
	var rhs exprFn
	if call, ok := s.RHS.(*syntax.CallExpr); ok && isMethodOn(call, s.LHS) {
		// x = x.push(1) stores back the list push changed: nothing is
		// shared.
		rhs = c.callMode(call, callMode{})
	} else {
		rhs = c.expr(s.RHS)
	}
	op := syntax.ILLEGAL
	switch s.Op {
	case syntax.PLUS_EQ:
		op = syntax.PLUS
	case syntax.MINUS_EQ:
		op = syntax.MINUS
	case syntax.STAR_EQ:
		op = syntax.STAR
	case syntax.SLASH_EQ:
		op = syntax.SLASH
	}
	pos := s.Pos
	combine := func(fr *frame, old, v Value) Value {
		if op == syntax.ILLEGAL {
			return v
		}
		return fr.th.arith(pos, op, old, v)
	}
	switch lhs := s.LHS.(type) {
	case *syntax.Ident:
		b := binding(lhs)
		i := b.Index
		switch b.Scope {
		case resolve.Local:
			if op == syntax.ILLEGAL {
				return func(fr *frame) ctrl {
					fr.th.step(w)
					fr.slots[i] = rhs(fr)
					return ctrlNone
				}
			}
			return func(fr *frame) ctrl {
				fr.th.step(w)
				v := rhs(fr)
				old := fr.slots[i]
				if old.k == KInt && v.k == KInt && op == syntax.PLUS {
					a, b := int64(old.n), int64(v.n)
					if s := a + b; (a^s)&(b^s) >= 0 {
						fr.slots[i] = Int(s)
						return ctrlNone
					}
				}
				fr.slots[i] = combine(fr, old, v)
				return ctrlNone
			}
		case resolve.Cell:
			return func(fr *frame) ctrl {
				fr.th.step(w)
				v := rhs(fr)
				cell := fr.slots[i].cell()
				*cell = combine(fr, *cell, v)
				return ctrlNone
			}
		case resolve.Free:
			return func(fr *frame) ctrl {
				fr.th.step(w)
				v := rhs(fr)
				cell := fr.free[i]
				*cell = combine(fr, *cell, v)
				return ctrlNone
			}
		case resolve.Undefined:
			name := lhs.Name
			return func(fr *frame) ctrl {
				fr.th.Fail(pos, "undefined: %s", name)
				return ctrlNone
			}
		default:
			what := b.Scope.String() + " " + lhs.Name
			return func(fr *frame) ctrl {
				fr.th.Fail(pos, "cannot assign to %s", what)
				return ctrlNone
			}
		}
	case *syntax.IndexExpr, *syntax.DotExpr:
		// An element or a field of a variable: its list or map (and
		// every one on the path) is made unique, then changed.
		pl := c.place(lhs)
		if pl == nil {
			what := "an element of a value that is not a variable: assign to a variable's element or field"
			if k := constRoot(lhs); k != "" {
				what = "constant " + k
			}
			return func(fr *frame) ctrl {
				fr.th.Fail(pos, "cannot assign to %s", what)
				return ctrlNone
			}
		}
		return func(fr *frame) ctrl {
			th := fr.th
			th.step(w)
			var kb [maxKeys]Value
			keys := pl.keys(fr, &kb)
			v := rhs(fr)
			if op != syntax.ILLEGAL {
				v = combine(fr, pl.get(fr, keys), v)
			}
			pl.set(fr, keys, v)
			return ctrlNone
		}
	}
	panic("eval: bad assignment target")
}

// isMethodOn reports whether call is a method call on the place target
// (x = x.push(1)).
func isMethodOn(call *syntax.CallExpr, target syntax.Expr) bool {
	d, ok := call.Fn.(*syntax.DotExpr)
	return ok && samePlace(d.X, target)
}

// ---- patterns ----

func (c *compiler) pattern(p syntax.Pattern) matchFn {
	switch p := p.(type) {
	case *syntax.WildcardPat:
		return func(*frame, Value) bool { return true }
	case *syntax.BindPat:
		// The bound value is also where it came from: it is shared.
		b := binding(p.Ident)
		i := b.Index
		switch b.Scope {
		case resolve.Local:
			return func(fr *frame, v Value) bool { v.share(); fr.slots[i] = v; return true }
		case resolve.Cell:
			return func(fr *frame, v Value) bool {
				v.share()
				cell := new(Value)
				*cell = v
				fr.slots[i] = cellValue(cell)
				return true
			}
		case resolve.Ctor:
			return c.ctorMatch(i, nil, p.Ident.NamePos)
		}
	case *syntax.LiteralPat:
		lit := literalValue(p.Lit)
		return func(fr *frame, v Value) bool { return fr.th.equal(v, lit) }
	case *syntax.CtorPat:
		b := binding(p.Name)
		if b.Scope != resolve.Ctor {
			name, pos := p.Name.Name, p.Name.NamePos
			return func(fr *frame, v Value) bool {
				fr.th.Fail(pos, "%s is not a constructor", name)
				return false
			}
		}
		args := make([]matchFn, len(p.Args))
		for i, a := range p.Args {
			args[i] = c.pattern(a)
		}
		return c.ctorMatch(b.Index, args, p.Name.NamePos)
	case *syntax.TuplePat:
		elems := make([]matchFn, len(p.Elems))
		for i, e := range p.Elems {
			elems[i] = c.pattern(e)
		}
		return func(fr *frame, v Value) bool {
			var vs []Value
			switch v.k {
			case KTuple:
				vs = v.Tuple()
			case KList:
				vs = v.List().elems
			default:
				return false
			}
			if len(vs) != len(elems) {
				return false
			}
			for i, m := range elems {
				if !m(fr, vs[i]) {
					return false
				}
			}
			return true
		}
	}
	return func(*frame, Value) bool { return false }
}

func (c *compiler) ctorMatch(tag int, args []matchFn, pos syntax.Pos) matchFn {
	ctor := c.p.mod.Ctors[tag]
	if len(args) != len(ctor.Fields) {
		name, want, got := ctor.Name, len(ctor.Fields), len(args)
		return func(fr *frame, v Value) bool {
			fr.th.Fail(pos, "pattern %s has %d field(s), the constructor has %d", name, got, want)
			return false
		}
	}
	switch tag {
	case resolve.CtorNone:
		return func(_ *frame, v Value) bool { return v.k == KNone || v.k == KNull }
	case resolve.CtorSome, resolve.CtorOk, resolve.CtorErr:
		k := map[int]Kind{resolve.CtorSome: KSome, resolve.CtorOk: KOk, resolve.CtorErr: KErr}[tag]
		inner := args[0]
		return func(fr *frame, v Value) bool { return v.k == k && inner(fr, v.Inner()) }
	}
	return func(fr *frame, v Value) bool {
		if v.k != KTagged {
			return false
		}
		t := v.tagged()
		if t.ctor != ctor {
			return false
		}
		for i, m := range args {
			if !m(fr, t.fields[i]) {
				return false
			}
		}
		return true
	}
}

func literalValue(l *syntax.Literal) Value {
	switch l.Tok {
	case syntax.INT:
		return Int(l.Int)
	case syntax.FLOAT:
		return Float(l.Float)
	case syntax.DEC:
		v, _ := ParseDecimal(l.Str) // the scanner checked that it fits
		return v
	case syntax.STRING:
		return Str(l.Str)
	case syntax.TRUE:
		return True
	}
	return False
}

// ctorValue is the value a constructor name denotes: the value itself for
// a nullary constructor, else a function that builds values.
func ctorValue(ctor *resolve.Constructor) Value {
	if ctor.Tag == resolve.CtorNone {
		return None
	}
	if len(ctor.Fields) == 0 {
		return taggedValue(&Tagged{ctor: ctor})
	}
	return builtinValue(&Builtin{name: ctor.Name, fn: func(th *Thread, _ *Builtin, args []Value, names []string) Value {
		return th.construct(ctor, args, names)
	}})
}

// coreCtors holds the values of the core constructors (None, Some, Ok,
// Err), which resolve shares between modules: they are made once, not per
// module.
var coreCtors struct {
	sync.Mutex
	ctors [resolve.NumCoreCtors]*resolve.Constructor
	vals  [resolve.NumCoreCtors]Value
}

func coreCtorValue(c *resolve.Constructor) Value {
	coreCtors.Lock()
	defer coreCtors.Unlock()
	if coreCtors.ctors[c.Tag] != c {
		coreCtors.ctors[c.Tag] = c
		coreCtors.vals[c.Tag] = ctorValue(c)
	}
	return coreCtors.vals[c.Tag]
}

// construct builds a constructor value from positional or named fields.
func (th *Thread) construct(ctor *resolve.Constructor, args []Value, names []string) Value {
	if len(args) != len(ctor.Fields) {
		th.Failf("%s takes %d argument(s), got %d", ctor.Name, len(ctor.Fields), len(args))
	}
	switch ctor.Tag {
	case resolve.CtorSome:
		return Some(args[0])
	case resolve.CtorOk:
		return OkVal(args[0])
	case resolve.CtorErr:
		return ErrVal(args[0])
	}
	fields := make([]Value, len(ctor.Fields))
	set := make([]bool, len(fields))
	pos := 0
	for i, a := range args {
		j := pos
		if names != nil && names[i] != "" {
			j = -1
			for k, f := range ctor.Fields {
				if f == names[i] {
					j = k
				}
			}
			if j < 0 {
				th.Failf("%s has no field %s", ctor.Name, names[i])
			}
		} else {
			pos++
		}
		if set[j] {
			th.Failf("%s: field %s given twice", ctor.Name, ctor.Fields[j])
		}
		fields[j], set[j] = a, true
	}
	return taggedValue(&Tagged{ctor: ctor, fields: fields})
}

// ---- expressions ----

func (c *compiler) expr(e syntax.Expr) exprFn {
	c.enter()
	defer func() { c.nest-- }()
	switch e := e.(type) {
	case *syntax.Literal:
		v := literalValue(e)
		return func(*frame) Value { return v }
	case *syntax.Ident:
		return c.ident(e)
	case *syntax.TemplateLit:
		return c.template(e)
	case *syntax.ListExpr:
		elems := c.exprs(e.Elems)
		return func(fr *frame) Value {
			out := make([]Value, len(elems))
			var size int64
			for i, x := range elems {
				out[i] = x(fr)
				size += out[i].size()
			}
			size += 16 * int64(len(out))
			fr.th.checkSize(size)
			return listValue(&List{elems: out, size: size})
		}
	case *syntax.TupleExpr:
		if len(e.Elems) == 0 {
			return func(*frame) Value { return Unit }
		}
		elems := c.exprs(e.Elems)
		return func(fr *frame) Value {
			out := make([]Value, len(elems))
			for i, x := range elems {
				out[i] = x(fr)
			}
			t := NewTuple(out)
			fr.th.checkSize(t.size())
			return t
		}
	case *syntax.ObjectExpr:
		keys := e.Keys
		vals := c.exprs(e.Values)
		return func(fr *frame) Value {
			o := &Object{keys: make([]string, 0, len(keys)), vals: make([]Value, 0, len(keys))}
			for i, x := range vals {
				o.Set(keys[i], x(fr))
			}
			fr.th.checkSize(o.size)
			return NewObject(o)
		}
	case *syntax.Block:
		return c.exprBlock(e)
	case *syntax.IfExpr:
		cond := c.cond(e.Cond)
		then := c.exprBlock(e.Then)
		var els exprFn
		switch x := e.Else.(type) {
		case nil:
			els = func(*frame) Value { return Unit }
		case *syntax.Block:
			els = c.exprBlock(x)
		default:
			els = c.expr(x)
		}
		return func(fr *frame) Value {
			if cond(fr) {
				return then(fr)
			}
			return els(fr)
		}
	case *syntax.MatchExpr:
		x := c.borrow(e.X)
		c.exprDepth++
		pats, bodies := c.arms(e, func(body syntax.Expr) blockFn { return c.tail(body, 0, valueRetain) })
		c.exprDepth--
		pos := e.Pos
		return func(fr *frame) Value {
			v := x(fr)
			for i, m := range pats {
				if m(fr, v) {
					r, k := bodies[i](fr)
					if k != ctrlNone {
						unwind(fr, k)
					}
					return r
				}
			}
			fr.th.Fail(pos, "no match arm matches %s", fr.th.display(v))
			return Unit
		}
	case *syntax.FuncLit:
		return c.lambda(e)
	case *syntax.CallExpr:
		return c.call(e)
	case *syntax.DotExpr:
		return c.field(e, true)
	case *syntax.IndexExpr:
		return c.index(e, true)
	case *syntax.TryExpr:
		x := c.borrow(e.X)
		c.code.recover = true
		pos := e.QPos
		return func(fr *frame) Value {
			v := x(fr)
			switch v.k {
			case KOk, KSome:
				in := v.Inner()
				in.share()
				return in
			case KErr, KNone:
				panic(&earlyReturn{depth: fr.th.depth, v: v})
			}
			fr.th.Fail(pos, "? needs a Result or an Option, got %s", v.typeName())
			return Unit
		}
	case *syntax.UnaryExpr:
		x := c.borrow(e.X)
		pos := e.Pos
		if e.Op == syntax.NOT {
			return func(fr *frame) Value {
				v := x(fr)
				if v.k != KBool {
					fr.th.Fail(pos, "not needs a bool, got %s", v.typeName())
				}
				return Bool(v.n == 0)
			}
		}
		return func(fr *frame) Value {
			v := x(fr)
			switch v.k {
			case KInt:
				if int64(v.n) == -1<<63 {
					fr.th.Fail(pos, "integer overflow: -(%d)", int64(v.n))
				}
				return Int(-int64(v.n))
			case KFloat:
				return Float(-v.Float())
			case KDec:
				return decNeg(v.dec())
			}
			fr.th.Fail(pos, "unary - needs a number, got %s", v.typeName())
			return Unit
		}
	case *syntax.BinaryExpr:
		return c.binary(e)
	case *syntax.ForStmt, *syntax.WhileStmt, *syntax.LoopStmt:
		// A loop where a value is wanted: it runs, and its value is
		// Unit. Control flow leaving it (a return) unwinds.
		c.exprDepth++
		st := c.stmt(e.(syntax.Stmt))
		c.exprDepth--
		return func(fr *frame) Value {
			if k := st(fr); k != ctrlNone {
				unwind(fr, k)
			}
			return Unit
		}
	case *syntax.RecordLit:
		return c.recordLit(e)
	case *syntax.WithExpr:
		return c.with(e)
	}
	panic("eval: unknown expression")
}

// recordLit compiles a record literal: a map whose keys are the record's
// fields in their declared order; an Option field left out is None.
func (c *compiler) recordLit(e *syntax.RecordLit) exprFn {
	d, ok := e.Record.(*syntax.RecordDecl)
	if !ok {
		name, pos := e.Type.Name, e.Type.NamePos
		return failing(pos, "%s is not a record type", name)
	}
	keys := make([]string, len(d.Fields))
	vals := make([]exprFn, len(d.Fields))
	for i, f := range d.Fields {
		keys[i] = f.Name
		vals[i] = func(*frame) Value { return None }
		for _, fi := range e.Fields {
			if fi.Name == f.Name {
				vals[i] = c.expr(fi.Value)
			}
		}
	}
	return func(fr *frame) Value {
		o := &Object{keys: make([]string, 0, len(keys)), vals: make([]Value, 0, len(keys))}
		for i, x := range vals {
			o.Set(keys[i], x(fr))
		}
		fr.th.checkSize(o.size)
		return NewObject(o)
	}
}

// with compiles x with options: the options are evaluated and checked
// (a map of known options of the right types), then ignored; the value
// is x's.
func (c *compiler) with(e *syntax.WithExpr) exprFn {
	x := c.expr(e.X)
	opts := c.borrow(e.Options)
	pos := e.WithPos
	return func(fr *frame) Value {
		v := x(fr)
		o := opts(fr)
		th := fr.th
		if o.k != KObject {
			th.Fail(pos, "with needs a map of options, got %s", o.typeName())
		}
		ob := o.Object()
		for i, k := range ob.keys {
			want := ""
			for _, w := range syntax.WithOptions {
				if w.Name == k {
					want = w.Type
				}
			}
			switch got := ob.vals[i]; {
			case want == "":
				th.Fail(pos, "unknown with option %s", k)
			case want == "int" && got.k != KInt, want == "str" && got.k != KStr:
				th.Fail(pos, "with option %s must be %s, got %s", k, want, got.typeName())
			}
		}
		return v
	}
}

func (c *compiler) exprs(es []syntax.Expr) []exprFn {
	out := make([]exprFn, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

// ident compiles a use of a name in retain mode: a list or map read from
// a variable or a constant into something that keeps it is shared
// (cow.go).
func (c *compiler) ident(id *syntax.Ident) exprFn {
	b := binding(id)
	i := b.Index
	switch b.Scope {
	case resolve.Local:
		return func(fr *frame) Value {
			v := fr.slots[i]
			v.share()
			return v
		}
	case resolve.Cell:
		return func(fr *frame) Value {
			v := *fr.slots[i].cell()
			v.share()
			return v
		}
	case resolve.Free:
		return func(fr *frame) Value {
			v := *fr.free[i]
			v.share()
			return v
		}
	case resolve.Const:
		pos := id.NamePos
		return func(fr *frame) Value {
			v := fr.th.constant(i, pos)
			v.share()
			return v
		}
	}
	return c.identRaw(id)
}

// identRaw compiles a use of a name in borrow mode: the value as it is.
func (c *compiler) identRaw(id *syntax.Ident) exprFn {
	b := binding(id)
	i := b.Index
	switch b.Scope {
	case resolve.Local:
		return func(fr *frame) Value { return fr.slots[i] }
	case resolve.Cell:
		return func(fr *frame) Value { return *fr.slots[i].cell() }
	case resolve.Free:
		return func(fr *frame) Value { return *fr.free[i] }
	case resolve.Global:
		v := c.p.funcVals[i]
		return func(*frame) Value { return v }
	case resolve.Const:
		pos := id.NamePos
		return func(fr *frame) Value { return fr.th.constant(i, pos) }
	case resolve.Ctor:
		v := c.p.ctorVals[i]
		return func(*frame) Value { return v }
	case resolve.Builtin:
		v := builtins[i].val
		return func(*frame) Value { return v }
	case resolve.Namespace:
		v := namespaceValue(id.Name)
		return func(*frame) Value { return v }
	}
	name, pos := id.Name, id.NamePos
	return func(fr *frame) Value {
		fr.th.Fail(pos, "undefined: %s", name)
		return Unit
	}
}

// borrow compiles an expression whose value is used without being kept
// (an operand, a receiver, an argument of a builtin): names, elements and
// fields are read as they are, shared by nothing (cow.go).
func (c *compiler) borrow(e syntax.Expr) exprFn {
	switch e := e.(type) {
	case *syntax.Ident:
		c.enter()
		defer func() { c.nest-- }()
		return c.identRaw(e)
	case *syntax.IndexExpr:
		c.enter()
		defer func() { c.nest-- }()
		return c.index(e, false)
	case *syntax.DotExpr:
		c.enter()
		defer func() { c.nest-- }()
		return c.field(e, false)
	case *syntax.CallExpr:
		if _, ok := e.Fn.(*syntax.DotExpr); ok {
			c.enter()
			defer func() { c.nest-- }()
			return c.callMode(e, callMode{})
		}
	}
	return c.expr(e)
}

func (c *compiler) template(e *syntax.TemplateLit) exprFn {
	parts := e.Parts
	vars := make([]exprFn, len(e.Vars))
	for i, v := range e.Vars {
		vars[i] = c.identRaw(v)
	}
	return func(fr *frame) Value {
		th := fr.th
		var b strings.Builder
		for i, part := range parts {
			b.WriteString(part)
			if i < len(vars) {
				b.WriteString(th.display(vars[i](fr)))
				th.checkSize(int64(b.Len()))
			}
		}
		th.allocate(int64(b.Len()))
		return Str(b.String())
	}
}

func (c *compiler) lambda(e *syntax.FuncLit) exprFn {
	rf := e.Function.(*resolve.Function)
	f := c.p.funcSlab.Make(Func{name: "lambda", prog: c.p}) // under p.mu
	c.p.setup(f, rf)
	// Where each captured variable lives in the enclosing frame.
	type src struct {
		free bool
		i    int
	}
	srcs := make([]src, len(rf.FreeVars))
	for i, b := range rf.FreeVars {
		srcs[i] = src{free: b.Scope == resolve.Free, i: b.Index}
	}
	return func(fr *frame) Value {
		free := make([]*Value, len(srcs))
		var size int64
		for i, s := range srcs {
			if s.free {
				free[i] = fr.free[s.i]
			} else {
				free[i] = fr.slots[s.i].cell()
			}
			size += 16 + free[i].size()
		}
		return closureValue(&Closure{fn: f, free: free, size: size})
	}
}

// field compiles x.name; retain shares the value taken out.
func (c *compiler) field(e *syntax.DotExpr, retain bool) exprFn {
	x := c.borrow(e.X)
	name, pos := e.Name, e.NamePos
	return func(fr *frame) Value {
		v := fr.th.getField(pos, x(fr), name)
		if retain {
			v.share()
		}
		return v
	}
}

// getField returns field name of a map or a constructor value.
func (th *Thread) getField(pos syntax.Pos, v Value, name string) Value {
	switch v.k {
	case KObject:
		if r, ok := v.Object().Get(name); ok {
			return r
		}
		th.Fail(pos, "key %q not found", name)
	case KTagged:
		t := v.tagged()
		for i, f := range t.ctor.Fields {
			if f == name {
				return t.fields[i]
			}
		}
	case KNamespace:
		if ns, ok := th.opts.Namespaces[v.Str()].(NamespaceFields); ok {
			if r, ok := ns.Field(th, name); ok {
				return r
			}
		}
		th.Fail(pos, "undefined: %s.%s", v.Str(), name)
	}
	th.Fail(pos, "%s has no field %s", v.typeName(), name)
	return Unit
}

// index compiles x[index]; retain shares the value taken out.
func (c *compiler) index(e *syntax.IndexExpr, retain bool) exprFn {
	x := c.borrow(e.X)
	idx := c.borrow(e.Index)
	pos := e.Lbrack
	return func(fr *frame) Value {
		v := fr.th.getIndex(pos, x(fr), idx(fr))
		if retain {
			v.share()
		}
		return v
	}
}

// ---- conditions and binary operators ----

func isComparison(op syntax.Token) bool {
	switch op {
	case syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		return true
	}
	return false
}

// cond compiles an expression used as a condition: comparisons and logic
// produce Go booleans directly, anything else must evaluate to a bool.
func (c *compiler) cond(e syntax.Expr) condFn {
	switch e := e.(type) {
	case *syntax.BinaryExpr:
		switch op := e.Op; {
		case isComparison(op):
			x, y := c.borrow(e.X), c.borrow(e.Y)
			pos := e.OpPos
			if lit, ok := e.Y.(*syntax.Literal); ok && lit.Tok == syntax.INT {
				k := lit.Int
				return func(fr *frame) bool {
					a := x(fr)
					if a.k == KInt {
						switch op {
						case syntax.LT:
							return int64(a.n) < k
						case syntax.GT:
							return int64(a.n) > k
						case syntax.LE:
							return int64(a.n) <= k
						default:
							return int64(a.n) >= k
						}
					}
					return cmpResult(op, fr.th.compare(pos, op, a, Int(k)))
				}
			}
			return func(fr *frame) bool {
				a, b := x(fr), y(fr)
				if a.k == KInt && b.k == KInt {
					switch op {
					case syntax.LT:
						return int64(a.n) < int64(b.n)
					case syntax.GT:
						return int64(a.n) > int64(b.n)
					case syntax.LE:
						return int64(a.n) <= int64(b.n)
					default:
						return int64(a.n) >= int64(b.n)
					}
				}
				return cmpResult(op, fr.th.compare(pos, op, a, b))
			}
		case op == syntax.EQL || op == syntax.IS || op == syntax.NEQ || op == syntax.ISNT:
			x, y := c.borrow(e.X), c.borrow(e.Y)
			neg := op == syntax.NEQ || op == syntax.ISNT
			return func(fr *frame) bool {
				a, b := x(fr), y(fr)
				if a.k == KInt && b.k == KInt {
					return (a.n == b.n) != neg
				}
				return fr.th.equal(a, b) != neg
			}
		case op == syntax.AND:
			x, y := c.cond(e.X), c.cond(e.Y)
			return func(fr *frame) bool { return x(fr) && y(fr) }
		case op == syntax.OR:
			x, y := c.cond(e.X), c.cond(e.Y)
			return func(fr *frame) bool { return x(fr) || y(fr) }
		}
	case *syntax.UnaryExpr:
		if e.Op == syntax.NOT {
			x := c.cond(e.X)
			return func(fr *frame) bool { return !x(fr) }
		}
	case *syntax.Literal:
		if e.Tok == syntax.TRUE || e.Tok == syntax.FALSE {
			b := e.Tok == syntax.TRUE
			return func(*frame) bool { return b }
		}
	}
	x := c.borrow(e)
	pos := e.Span()
	return func(fr *frame) bool {
		v := x(fr)
		if v.k != KBool {
			fr.th.Fail(pos, "condition must be a bool, got %s", v.typeName())
		}
		return v.n != 0
	}
}

func (c *compiler) binary(e *syntax.BinaryExpr) exprFn {
	op, pos := e.Op, e.OpPos
	switch op {
	case syntax.AND, syntax.OR, syntax.EQL, syntax.NEQ, syntax.IS, syntax.ISNT, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		if op == syntax.AND || op == syntax.OR {
			x, y := c.borrow(e.X), c.borrow(e.Y)
			isAnd := op == syntax.AND
			return func(fr *frame) Value {
				a := x(fr)
				if a.k != KBool {
					fr.th.Fail(pos, "%s needs bools, got %s", op, a.typeName())
				}
				if (a.n != 0) != isAnd {
					return a
				}
				b := y(fr)
				if b.k != KBool {
					fr.th.Fail(pos, "%s needs bools, got %s", op, b.typeName())
				}
				return b
			}
		}
		cond := c.cond(e)
		return func(fr *frame) Value { return Bool(cond(fr)) }
	case syntax.IN, syntax.NOT_IN:
		x, y := c.borrow(e.X), c.borrow(e.Y)
		neg := op == syntax.NOT_IN
		return func(fr *frame) Value { return Bool(fr.th.contains(pos, y(fr), x(fr)) != neg) }
	case syntax.PIPE:
		call := &syntax.CallExpr{Fn: e.Y, Lparen: pos, Args: []*syntax.Arg{{Value: e.X}}}
		if inner, ok := e.Y.(*syntax.CallExpr); ok {
			call = &syntax.CallExpr{Fn: inner.Fn, Lparen: inner.Lparen, Args: append([]*syntax.Arg{{Value: e.X}}, inner.Args...)}
		}
		return c.call(call)
	}
	x, y := c.borrow(e.X), c.borrow(e.Y)
	if lit, ok := e.Y.(*syntax.Literal); ok && lit.Tok == syntax.INT && (op == syntax.PLUS || op == syntax.MINUS) {
		k := lit.Int
		if op == syntax.MINUS {
			if k == -1<<63 {
				goto generic
			}
			k = -k
		}
		return func(fr *frame) Value {
			a := x(fr)
			if a.k == KInt {
				s := int64(a.n) + k
				if (int64(a.n)^s)&(k^s) >= 0 {
					return Int(s)
				}
			}
			return fr.th.arith(pos, op, a, Int(lit.Int))
		}
	}
generic:
	switch op {
	case syntax.PLUS:
		return func(fr *frame) Value {
			a, b := x(fr), y(fr)
			if a.k == KInt && b.k == KInt {
				s := int64(a.n) + int64(b.n)
				if (int64(a.n)^s)&(int64(b.n)^s) >= 0 {
					return Int(s)
				}
			}
			return fr.th.arith(pos, op, a, b)
		}
	case syntax.MINUS:
		return func(fr *frame) Value {
			a, b := x(fr), y(fr)
			if a.k == KInt && b.k == KInt {
				s := int64(a.n) - int64(b.n)
				if (int64(a.n)^int64(b.n))&(int64(a.n)^s) >= 0 {
					return Int(s)
				}
			}
			return fr.th.arith(pos, op, a, b)
		}
	}
	return func(fr *frame) Value { return fr.th.arith(pos, op, x(fr), y(fr)) }
}
