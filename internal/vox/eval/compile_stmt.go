package eval

import (
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Blocks and statements: the value of a block and what becomes of it
// (valueUse), the static weight by which steps are counted, the guards
// that turn a break, continue or return escaping from inside an
// expression back into control flow, and assignment.

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
		sp := es.X.Span()
		last = func(fr *frame) (Value, ctrl) {
			fr.step(w, sp)
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
	sp := e.Span() // where the frame is while it runs (frame.pos)
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
			fr.step(w, sp)
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
			fr.step(w, sp)
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
		fr.step(w, sp)
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
	sp := s.Span() // where the frame is while it runs (frame.pos)
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
					fr.step(w, sp)
					fr.slots[i] = val(fr)
					return ctrlNone
				}
			case resolve.Cell:
				return func(fr *frame) ctrl {
					fr.step(w, sp)
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
			fr.step(w, sp)
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
			fr.step(w, sp)
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
			fr.step(w, sp)
			return k
		}
	case *syntax.WhileStmt:
		cond := c.cond(s.Cond)
		body, l := c.loopBody(s.Body)
		wc := weight(s.Cond)
		run := func(fr *frame) ctrl {
			for {
				fr.step(wc, sp)
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
				fr.step(1, sp)
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
				fr.step(w, sp)
				call(fr)
				return ctrlNone
			}
		}
		x := c.borrow(s.X)
		return func(fr *frame) ctrl {
			fr.step(w, sp)
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

// ---- assignment ----

func (c *compiler) assign(s *syntax.AssignStmt, w int64) stmtFn {
	sp := s.Span() // where the frame is while it runs (frame.pos)
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
					fr.step(w, sp)
					fr.slots[i] = rhs(fr)
					return ctrlNone
				}
			}
			return func(fr *frame) ctrl {
				fr.step(w, sp)
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
				fr.step(w, sp)
				v := rhs(fr)
				cell := fr.slots[i].cell()
				*cell = combine(fr, *cell, v)
				return ctrlNone
			}
		case resolve.Free:
			return func(fr *frame) ctrl {
				fr.step(w, sp)
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
			fr.step(w, sp)
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
