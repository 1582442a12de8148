package eval

import (
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Expressions: each compiles to an exprFn; names are read shared or
// borrowed (cow.go), and fields and indexes are taken out of their
// containers.

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
	case *syntax.ViewExpr:
		// Parsed so that the function around it stays available (spec 22
		// §4.3); vox-mcp renders no views.
		return failing(e.NamePos, "view elements are not supported: vox-mcp does not render %s(...) { ... }", e.Name)
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
			th.callPos = pos // where a denied member (std.args) fails
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
