package eval

import (
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Calls: module functions are called directly with their arguments mapped
// to parameter slots at compile time; constructors, builtins, methods and
// namespace functions get their arguments in a slice of the slot stack;
// anything else is called through callValue.

func (c *compiler) call(e *syntax.CallExpr) exprFn { return c.callMode(e, callMode{retain: true}) }

// callMode says how the result of a call is used.
type callMode struct {
	stmt   bool // the call is an expression statement: the write-back rule applies
	retain bool // the result is kept (not moved out, not borrowed): share what has two holders
}

func (c *compiler) callMode(e *syntax.CallExpr, mode callMode) exprFn {
	switch fn := e.Fn.(type) {
	case *syntax.Ident:
		b := binding(fn)
		switch b.Scope {
		case resolve.Global:
			return c.callGlobal(c.p.funcs[b.Index], e)
		case resolve.Builtin:
			if spec := builtins[b.Index]; !spec.Value {
				return c.callBuiltin(spec, e)
			}
		case resolve.Undefined:
			if syntax.IsSelfClosingView(e) {
				// A view element without children (spec 22 §4.3).
				return failing(fn.NamePos, "view elements are not supported: vox-mcp does not render %s(...)", fn.Name)
			}
		}
	case *syntax.DotExpr:
		if id, ok := fn.X.(*syntax.Ident); ok {
			if b := binding(id); b.Scope == resolve.Namespace {
				return c.callNamespace(id.Name, fn.Name, e)
			}
		}
		return c.callMethod(fn, e, mode)
	}
	return c.callDynamic(e)
}

// argList compiles the arguments of a call into evaluators and names
// (names is nil when all arguments are positional). retain: see cow.go;
// the arguments of builtins, methods and capability functions are
// borrowed, those of Vox functions kept.
func (c *compiler) argList(e *syntax.CallExpr, retain bool) ([]exprFn, []string) {
	args := make([]exprFn, len(e.Args))
	var names []string
	for i, a := range e.Args {
		if retain {
			args[i] = c.expr(a.Value)
		} else {
			args[i] = c.borrow(a.Value)
		}
		if a.Name != "" {
			if names == nil {
				names = make([]string, len(e.Args))
			}
			names[i] = a.Name
		}
	}
	return args, names
}

func failing(pos syntax.Pos, format string, args ...any) exprFn {
	return func(fr *frame) Value {
		fr.th.Fail(pos, format, args...)
		return Unit
	}
}

func (c *compiler) callGlobal(f *Func, e *syntax.CallExpr) exprFn {
	pos := e.Lparen
	if f.unavailable != nil {
		return failing(pos, "%s is unavailable: %s at line %d:%d", f.name, f.unavailable.Reason, f.unavailable.Pos.Line, f.unavailable.Pos.Col)
	}
	params := f.params
	slots := make([]exprFn, len(params))
	positional := 0
	for _, a := range e.Args {
		j := positional
		if a.Name != "" {
			j = -1
			for k, p := range params {
				if p.Name == a.Name {
					j = k
				}
			}
			if j < 0 {
				return failing(pos, "%s: unknown argument %s", f.name, a.Name)
			}
		} else {
			positional++
			if j >= len(params) {
				return failing(pos, "%s: too many arguments: want at most %d, got %d", f.name, len(params), len(e.Args))
			}
		}
		if slots[j] != nil {
			return failing(pos, "%s: argument %s given twice", f.name, params[j].Name)
		}
		slots[j] = c.expr(a.Value)
	}
	for j, p := range params {
		if slots[j] == nil && p.Default == nil {
			return failing(pos, "%s: missing argument %s", f.name, p.Name)
		}
	}
	if len(slots) == 1 && slots[0] != nil {
		a0 := slots[0]
		return func(fr *frame) Value {
			th := fr.th
			m := th.mark()
			s := th.alloc(f.nlocals)
			s[0] = a0(fr)
			v := th.invoke(f, s, nil)
			th.release(m)
			return v
		}
	}
	return func(fr *frame) Value {
		th := fr.th
		m := th.mark()
		s := th.alloc(f.nlocals)
		for j, a := range slots {
			if a != nil {
				s[j] = a(fr)
			} else {
				s[j] = th.callDefault(f, j)
			}
		}
		v := th.invoke(f, s, nil)
		th.release(m)
		return v
	}
}

// callDefault evaluates the default of parameter j of f in the module
// scope.
//
// The default of an Option[T] parameter that is not already an Option
// binds Some(default).
func (th *Thread) callDefault(f *Func, j int) Value {
	d := f.defaults[j]
	m := th.mark()
	v := th.invoke(d, th.alloc(d.nlocals), nil)
	th.release(m)
	if isOption(f.params[j].Type) && v.k != KSome && v.k != KNone && v.k != KNull {
		v = Some(v)
	}
	return v
}

// callBuiltin compiles a call of a builtin by name. The number of
// arguments is known here, so a call that does not fit the signature
// fails without evaluating them, and one that fits is not checked again.
func (c *compiler) callBuiltin(spec *BuiltinSpec, e *syntax.CallExpr) exprFn {
	args, names := c.argList(e, false)
	pos := e.Lparen
	for i, n := range names {
		if n != "" {
			return failing(e.Args[i].NamePos, "%s: unknown argument %s", spec.Name, n)
		}
	}
	switch n := len(args); {
	case n < spec.min && spec.min == spec.max:
		return failing(pos, "%s takes %d argument(s), got %d", spec.Name, spec.min, n)
	case n < spec.min:
		return failing(pos, "%s takes at least %d argument(s), got %d", spec.Name, spec.min, n)
	case n > spec.max:
		return failing(pos, "%s takes at most %d argument(s), got %d", spec.Name, spec.max, n)
	}
	impl := spec.fn
	return func(fr *frame) Value {
		th := fr.th
		m := th.mark()
		vals := th.alloc(len(args))
		for i, a := range args {
			vals[i] = a(fr)
		}
		th.callPos = pos
		v := impl(th, vals)
		shareResult(v, Unit, vals)
		th.release(m)
		return v
	}
}

// callMethod compiles a method call. The method of each kind of receiver
// is looked up here, once, so a call indexes by the receiver's kind.
//
// On a place (a variable, or a field or index path from one) a mutating
// method (push, pop, sort) changes the place's value in place, made
// unique first (cow.go); as a statement, any other method whose result
// has the kind of the receiver (list, str, map) writes it back to the
// place (docs/vox-language.md, Values), in place when the method has an
// update form. Elsewhere a mutating method changes a copy.
func (c *compiler) callMethod(d *syntax.DotExpr, e *syntax.CallExpr, mode callMode) exprFn {
	args, names := c.argList(e, false)
	name, pos := d.Name, d.NamePos
	var byKind [kindCount]*Method
	for k := range byKind {
		byKind[k] = lookupMethod(Kind(k), name)
	}
	pl := c.place(d.X)
	if pl == nil {
		recv := c.borrow(d.X)
		konst := constRoot(d.X)
		return func(fr *frame) Value {
			th := fr.th
			r := recv(fr)
			m := th.mark()
			vals := th.alloc(len(args))
			for i, a := range args {
				vals[i] = a(fr)
			}
			th.callPos = pos
			var v Value
			meth := byKind[r.k%kindCount]
			switch {
			case meth == nil || r.k >= kindCount:
				v = th.method(r, name, vals, names)
			case meth.Mutates:
				if konst != "" {
					th.Failf("cannot change constant %s: %s changes its receiver; copy it into a variable first", konst, name)
				}
				v = th.callUpdate(meth, th.fresh(r), vals, names)
			default:
				v = th.callMethod(meth, r, vals, names)
				shareResult(v, r, vals)
			}
			th.release(m)
			return v
		}
	}
	return func(fr *frame) Value {
		th := fr.th
		var kb [maxKeys]Value
		keys := pl.keys(fr, &kb)
		m := th.mark()
		vals := th.alloc(len(args))
		for i, a := range args {
			vals[i] = a(fr)
		}
		r := pl.get(fr, keys)
		th.callPos = pos
		var v Value
		meth := byKind[r.k%kindCount]
		switch {
		case meth == nil || r.k >= kindCount:
			v = th.method(r, name, vals, names)
		case meth.Mutates || mode.stmt && meth.update != nil:
			// What the method stores is shared before the place is made
			// unique: xs.push(xs) appends a copy of xs, not xs itself.
			for _, v := range vals {
				v.share()
			}
			u := th.unique(pl.ptr(fr, keys))
			v = th.callUpdate(meth, u, vals, names)
			if mode.retain && v.p == u.p {
				v.share() // the place holds it too
			}
		default:
			v = th.callMethod(meth, r, vals, names)
			shareResult(v, r, vals)
			if mode.stmt && v.k == r.k && (r.k == KList || r.k == KStr || r.k == KObject) {
				pl.set(fr, keys, v)
				if mode.retain {
					v.share()
				}
			}
		}
		th.release(m)
		return v
	}
}

// placeCall reports whether e is a method call on a place, which a
// statement writes back (callMethod).
func (c *compiler) placeCall(e syntax.Expr) bool {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return false
	}
	d, ok := call.Fn.(*syntax.DotExpr)
	return ok && c.place(d.X) != nil
}

func (c *compiler) callNamespace(ns, method string, e *syntax.CallExpr) exprFn {
	args, names := c.argList(e, false)
	pos := e.Lparen
	return func(fr *frame) Value {
		th := fr.th
		m := th.mark()
		vals := th.alloc(len(args))
		for i, a := range args {
			vals[i] = a(fr)
		}
		th.callPos = pos
		v := th.callNS(ns, method, vals, names)
		shareResult(v, Unit, vals)
		th.release(m)
		return v
	}
}

// callNS calls a capability namespace function.
func (th *Thread) callNS(ns, method string, args []Value, names []string) Value {
	impl := th.opts.Namespaces[ns]
	if impl != nil {
		if v, ok := impl.Call(th, method, args, names); ok {
			return v
		}
	}
	th.Failf("capability denied: %s.%s", ns, method)
	return Unit
}

func (c *compiler) callDynamic(e *syntax.CallExpr) exprFn {
	fn := c.borrow(e.Fn)
	args, names := c.argList(e, true)
	pos := e.Lparen
	return func(fr *frame) Value {
		th := fr.th
		f := fn(fr)
		m := th.mark()
		vals := th.alloc(len(args))
		for i, a := range args {
			vals[i] = a(fr)
		}
		th.callPos = pos
		v := th.callValue(f, vals, names)
		th.release(m)
		return v
	}
}

// Call calls a function value with positional arguments (names may be nil
// or give the names of the arguments). The arguments are shared, as those
// of call1 and call2: a builtin passes elements of its containers.
func (th *Thread) Call(f Value, args []Value, names []string) Value {
	for _, a := range args {
		a.share()
	}
	return th.callValue(f, args, names)
}

func (th *Thread) callValue(f Value, args []Value, names []string) Value {
	switch f.k {
	case KFunc:
		cl := f.closure()
		fn := cl.fn
		if fn.unavailable != nil {
			th.Failf("%s is unavailable: %s at line %d:%d", fn.name, fn.unavailable.Reason, fn.unavailable.Pos.Line, fn.unavailable.Pos.Col)
		}
		pos := th.callPos
		m := th.mark()
		slots := th.alloc(fn.nlocals)
		th.bindArgs(fn, slots, args, names)
		th.callPos = pos
		v := th.invoke(fn, slots, cl.free)
		th.release(m)
		return v
	case KBuiltin:
		b := f.builtin()
		v := b.fn(th, b, args, names)
		shareResult(v, Unit, args)
		return v
	}
	th.Failf("%s is not callable", f.typeName())
	return Unit
}

// bindArgs maps arguments to the parameter slots of fn, checking arity.
func (th *Thread) bindArgs(fn *Func, slots []Value, args []Value, names []string) {
	params := fn.params
	var set [8]bool
	var isSet []bool
	if len(params) <= len(set) {
		isSet = set[:len(params)]
	} else {
		isSet = make([]bool, len(params))
	}
	positional := 0
	for i, a := range args {
		j := positional
		if names != nil && names[i] != "" {
			j = -1
			for k, p := range params {
				if p.Name == names[i] {
					j = k
				}
			}
			if j < 0 {
				th.Failf("%s: unknown argument %s", fn.name, names[i])
			}
		} else {
			positional++
			if j >= len(params) {
				th.Failf("%s: too many arguments: want at most %d, got %d", fn.name, len(params), len(args))
			}
		}
		if isSet[j] {
			th.Failf("%s: argument %s given twice", fn.name, params[j].Name)
		}
		slots[j], isSet[j] = a, true
	}
	for j, p := range params {
		if !isSet[j] {
			if p.Default == nil {
				th.Failf("%s: missing argument %s", fn.name, p.Name)
			}
			slots[j] = th.callDefault(fn, j)
		}
	}
}

// call1 and call2 call a function value from a builtin (map, filter,
// fold, ...). Their arguments are elements of containers, which the
// function's parameters now hold too: they are shared (cow.go).
func (th *Thread) call1(f Value, a Value) Value {
	a.share()
	if f.k == KFunc {
		cl := f.closure()
		fn := cl.fn
		if fn.unavailable == nil && len(fn.params) == 1 {
			m := th.mark()
			slots := th.alloc(fn.nlocals)
			slots[0] = a
			v := th.invoke(fn, slots, cl.free)
			th.release(m)
			return v
		}
	}
	m := th.mark()
	args := th.alloc(1)
	args[0] = a
	v := th.callValue(f, args, nil)
	th.release(m)
	return v
}

func (th *Thread) call2(f Value, a, b Value) Value {
	a.share()
	return th.callAcc(f, a, b)
}

// callAcc is call2 for fold, whose first argument is the accumulator the
// function returned last (or the initial value, which fold shares): it
// passes from call to call with one holder, so that a function that
// changes it changes it in place.
func (th *Thread) callAcc(f Value, a, b Value) Value {
	b.share()
	if f.k == KFunc {
		cl := f.closure()
		fn := cl.fn
		if fn.unavailable == nil && len(fn.params) == 2 {
			m := th.mark()
			slots := th.alloc(fn.nlocals)
			slots[0], slots[1] = a, b
			v := th.invoke(fn, slots, cl.free)
			th.release(m)
			return v
		}
	}
	m := th.mark()
	args := th.alloc(2)
	args[0], args[1] = a, b
	v := th.callValue(f, args, nil)
	th.release(m)
	return v
}

// ---- indexing ----

// index checks an index against a length; negative indices count from the
// end.
func (th *Thread) index(pos syntax.Pos, key Value, n int) int {
	if key.k != KInt {
		th.Fail(pos, "index must be an int, got %s", key.typeName())
	}
	i := int64(key.n)
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		th.Fail(pos, "index %d out of range (length %d)", int64(key.n), n)
	}
	return int(i)
}

func (th *Thread) getIndex(pos syntax.Pos, x, key Value) Value {
	switch x.k {
	case KList:
		elems := x.List().elems
		return elems[th.index(pos, key, len(elems))]
	case KTuple:
		elems := x.Tuple()
		return elems[th.index(pos, key, len(elems))]
	case KStr:
		s := x.Str()
		th.charge(int64(len(s)))
		if key.k != KInt {
			th.Fail(pos, "index must be an int, got %s", key.typeName())
		}
		if isASCII(s) {
			i := th.index(pos, key, len(s))
			return Str(s[i : i+1])
		}
		i := th.index(pos, key, utf8.RuneCountInString(s))
		off := 0
		for ; i > 0; i-- {
			_, size := decodeRune(s[off:])
			off += size
		}
		_, size := decodeRune(s[off:])
		return Str(s[off : off+size])
	case KObject:
		if key.k != KStr {
			th.Fail(pos, "object keys are strings, not %s", key.typeName())
		}
		if v, ok := x.Object().Get(key.Str()); ok {
			return v
		}
		th.Fail(pos, "key %q not found", key.Str())
	}
	th.Fail(pos, "cannot index %s", x.typeName())
	return Unit
}

func decodeRune(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
