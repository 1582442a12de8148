package eval

import (
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// For loops: the binding of each element and of its index, the guard of
// an iteration whose body breaks or continues from inside an expression,
// and for i in range(...), which counts without building a list.

// forStmt compiles a for loop: the pattern binds each element (a map's
// elements are (key, value) pairs, a string's one-character strings), the
// index, when written, the element's position.
func (c *compiler) forStmt(s *syntax.ForStmt, w int64) stmtFn {
	sp := s.Span()
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
		fr.step(w, sp)
		v := iter(fr)
		v.share() // the body may change the variable it came from
		each := func(e Value, i int) (stop bool, k ctrl) {
			fr.step(1, sp)
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
					fr.step(1, sp)
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
	sp := s.Span()
	args := make([]exprFn, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.borrow(a.Value)
	}
	body, l := c.loopBody(s.Body)
	body = c.guardIteration(l, body)
	pos := call.Lparen
	return func(fr *frame) ctrl {
		th := fr.th
		fr.step(w, sp)
		var vals [3]Value
		for i, a := range args {
			vals[i] = a(fr)
		}
		th.callPos = pos
		start, stop, step := rangeArgs(th, vals[:len(args)])
		n := int64(0)
		for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
			fr.step(1, sp)
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
