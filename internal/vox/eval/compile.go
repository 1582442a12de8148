package eval

import (
	"sync"
	"sync/atomic"

	"github.com/vox-lang/vox-mcp/internal/vox/internal/slab"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
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
