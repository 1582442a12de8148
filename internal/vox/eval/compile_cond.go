package eval

import "github.com/vox-lang/vox-mcp/internal/vox/syntax"

// Conditions and binary operators: an expression used as a condition
// compiles to a condFn, where comparisons and logic produce Go booleans
// directly; binary compiles every binary operator used as a value.

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
