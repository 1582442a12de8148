package check

import (
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Statements: blocks and how they finish (flow), conditions, let (whose
// declared type may name the type parameters of the function around it),
// return, assignment and for loops.

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
		// The reference unifies a condition with bool and drops a failure
		// (spec 22 §1.3): a warning, never an error.
		c.warnf(x.Span(), "vox/type/condition", help, "the condition of %s is %s, not bool", what, t)
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
				// The reference unifies an assignment's target and value
				// silently: a warning.
				c.warnf(s.RHS.Span(), "vox/type/mismatch", mismatchHelp(l.t, rt), "%s is declared %s, but this value is %s", id.Name, l.t, rt)
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
		// The reference types anything else's element as a fresh
		// variable: a warning (the loop fails here at run time).
		c.warnf(s.Iter.Span(), "vox/for/not-iterable", help, "cannot iterate over %s", it)
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
