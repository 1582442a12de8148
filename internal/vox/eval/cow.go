package eval

import (
	"slices"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Value semantics by copy-on-write (docs/vox-language.md, Values): lists
// and maps are values, so that after let b = a, a change through a is
// not seen through b; yet a list is not copied on every assignment, and
// one that a single variable holds is changed in place (xs.push(x) in a
// loop appends, it does not copy).
//
// The rule: a list or map carries a shared bit, set whenever a second
// holder may come to have it, and never cleared. A change through a
// place (a variable, or a field or index path from one: xs, o.items,
// grid[i]) first makes every container on the path unique, copying the
// shared ones (a copy is unshared, and it shares its elements, which now
// have two holders); then it changes the container in place. So nothing
// shared is ever changed, and nothing unshared has a second holder.
//
// A second holder comes from:
//   - reading a variable into something that keeps it (let, an argument
//     of a Vox function, an element of a literal, a captured variable):
//     the compiler reads in "retain" mode there, which shares (reads that
//     do not keep the value, such as a method's receiver or an operand,
//     are "borrow" reads and share nothing);
//   - taking an element out of a container (indexing, a field, a pattern,
//     a for loop's variable, '?'), which shares the element;
//   - a builtin, method or capability function whose result is or holds
//     a list or map: it may be, or hold parts of, its inputs, so the
//     result and the inputs are shared (shareResult);
//   - a function value called by a builtin (map, filter, ...) with
//     elements of a container as arguments (call1, call2);
//   - a for loop, which shares what it iterates, since its body may
//     change the variable it came from.
// A value a function returns from one of its own plain locals is moved,
// not shared: the frame that held it ends.

// share marks v as having a second holder when it is a list or a map.
func (v Value) share() {
	switch v.k {
	case KList:
		v.List().shared = true
	case KObject:
		v.Object().shared = true
	}
}

// holdsContainer reports whether v is, or (through Some, Ok, Err, tuples
// and constructor values) holds, a list or a map.
func holdsContainer(v Value, depth int) bool {
	switch v.k {
	case KList, KObject:
		return true
	case KSome, KOk, KErr:
		return depth > 8 || holdsContainer(v.Inner(), depth+1)
	case KTuple:
		for _, e := range v.Tuple() {
			if depth > 8 || holdsContainer(e, depth+1) {
				return true
			}
		}
	case KTagged:
		for _, e := range v.tagged().fields {
			if depth > 8 || holdsContainer(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// shareResult applies the rule for builtins, methods and capability
// functions: when the result is or holds a list or map, it and the
// inputs (receiver and arguments) are shared.
func shareResult(v Value, recv Value, args []Value) {
	if v.k < KList || !holdsContainer(v, 0) {
		return
	}
	v.share()
	recv.share()
	for _, a := range args {
		a.share()
	}
}

// copyList returns an unshared copy of l whose elements are shared.
func (th *Thread) copyList(l *List) *List {
	th.allocate(16 * int64(len(l.elems)))
	elems := slices.Clone(l.elems)
	for _, e := range elems {
		e.share()
	}
	if elems == nil {
		elems = []Value{}
	}
	return &List{elems: elems, size: l.size}
}

// copyObject returns an unshared copy of o whose values are shared.
func (th *Thread) copyObject(o *Object) *Object {
	th.allocate(16 * int64(len(o.keys)))
	c := &Object{keys: slices.Clone(o.keys), vals: slices.Clone(o.vals), size: o.size}
	for _, v := range c.vals {
		v.share()
	}
	if o.index != nil {
		c.index = make(map[string]int, len(c.keys))
		for i, k := range c.keys {
			c.index[k] = i
		}
	}
	return c
}

// unique makes the list or map *p unshared, copying it when shared, and
// returns it; anything else is returned as it is.
func (th *Thread) unique(p *Value) Value {
	switch p.k {
	case KList:
		if l := p.List(); l.shared {
			*p = listValue(th.copyList(l))
		}
	case KObject:
		if o := p.Object(); o.shared {
			*p = NewObject(th.copyObject(o))
		}
	}
	return *p
}

// slot returns a pointer to the value of key in o, or nil.
func (o *Object) slot(key string) *Value {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return &o.vals[i]
		}
		return nil
	}
	for i, k := range o.keys {
		if k == key {
			return &o.vals[i]
		}
	}
	return nil
}

// ---- places ----

// place is a compiled place: a variable, or a path of fields and indices
// from one (o.items, grid[i][j]). Its index expressions are evaluated
// once per use (keys), then the place is read (get) or reached for a
// change (ptr).
type place struct {
	root  func(fr *frame) *Value
	steps []placeStep
}

type placeStep struct {
	name  string // a field, when index is nil
	index exprFn
	pos   syntax.Pos
}

// maxKeys is the number of index keys of a place kept on the stack.
const maxKeys = 4

// place compiles e as a place, or returns nil when e is not one: its root
// must be a local variable or a captured one (not a constant, a function
// or a call).
func (c *compiler) place(e syntax.Expr) *place {
	switch e := e.(type) {
	case *syntax.Ident:
		b := binding(e)
		i := b.Index
		switch b.Scope {
		case resolve.Local:
			return &place{root: func(fr *frame) *Value { return &fr.slots[i] }}
		case resolve.Cell:
			return &place{root: func(fr *frame) *Value { return fr.slots[i].cell() }}
		case resolve.Free:
			return &place{root: func(fr *frame) *Value { return fr.free[i] }}
		}
	case *syntax.DotExpr:
		if pl := c.place(e.X); pl != nil {
			pl.steps = append(pl.steps, placeStep{name: e.Name, pos: e.NamePos})
			return pl
		}
	case *syntax.IndexExpr:
		if pl := c.place(e.X); pl != nil {
			pl.steps = append(pl.steps, placeStep{index: c.borrow(e.Index), pos: e.Lbrack})
			return pl
		}
	}
	return nil
}

// constRoot returns the name of the module constant a path starts from,
// or "".
func constRoot(e syntax.Expr) string {
	for {
		switch x := e.(type) {
		case *syntax.Ident:
			if binding(x).Scope == resolve.Const {
				return x.Name
			}
			return ""
		case *syntax.DotExpr:
			e = x.X
		case *syntax.IndexExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// keys evaluates the index keys of the place, in order.
func (pl *place) keys(fr *frame, buf *[maxKeys]Value) []Value {
	ks := buf[:0]
	for _, s := range pl.steps {
		if s.index != nil {
			ks = append(ks, s.index(fr))
		}
	}
	return ks
}

// get returns the value at the place, changing nothing.
func (pl *place) get(fr *frame, keys []Value) Value {
	v := *pl.root(fr)
	for _, s := range pl.steps {
		if s.index != nil {
			v = fr.th.getIndex(s.pos, v, keys[0])
			keys = keys[1:]
			continue
		}
		v = fr.th.getField(s.pos, v, s.name)
	}
	return v
}

// ptr returns a pointer to the value at the place, having made every
// list and map on the way to it unique. The pointer is valid until that
// container next changes.
func (pl *place) ptr(fr *frame, keys []Value) *Value {
	th := fr.th
	p := pl.root(fr)
	for _, s := range pl.steps {
		v := th.unique(p)
		if s.index != nil {
			p = th.elemPtr(s.pos, v, keys[0])
			keys = keys[1:]
			continue
		}
		if v.k != KObject {
			if v.k == KTagged {
				th.Fail(s.pos, "cannot change field %s of a %s value: constructor values are immutable", s.name, v.typeName())
			}
			th.getField(s.pos, v, s.name) // fails, saying why
			th.Fail(s.pos, "cannot change field %s of %s", s.name, v.typeName())
		}
		p = v.Object().slot(s.name)
		if p == nil {
			th.Fail(s.pos, "key %q not found", s.name)
		}
	}
	return p
}

// elemPtr returns a pointer to element key of the list or map v.
func (th *Thread) elemPtr(pos syntax.Pos, v, key Value) *Value {
	switch v.k {
	case KList:
		l := v.List()
		return &l.elems[th.index(pos, key, len(l.elems))]
	case KObject:
		if key.k != KStr {
			th.Fail(pos, "object keys are strings, not %s", key.typeName())
		}
		if p := v.Object().slot(key.Str()); p != nil {
			return p
		}
		th.Fail(pos, "key %q not found", key.Str())
	case KTuple, KStr:
		th.Fail(pos, "cannot change an element of a %s value: it is immutable", v.typeName())
	}
	th.Fail(pos, "cannot index %s", v.typeName())
	return nil
}

// set stores v at the place: a variable is assigned; the last field or
// index of a path is set in its container (made unique), a map gaining
// the key when it lacks it.
func (pl *place) set(fr *frame, keys []Value, v Value) {
	th := fr.th
	if len(pl.steps) == 0 {
		*pl.root(fr) = v
		return
	}
	parent := (&place{root: pl.root, steps: pl.steps[:len(pl.steps)-1]})
	last := pl.steps[len(pl.steps)-1]
	var key Value
	if last.index != nil {
		key = keys[len(keys)-1]
		keys = keys[:len(keys)-1]
	} else {
		key = Str(last.name)
	}
	c := th.unique(parent.ptr(fr, keys))
	th.setElem(last.pos, c, key, v)
}

// setElem sets element key of the unique list or map c to v.
func (th *Thread) setElem(pos syntax.Pos, c, key, v Value) {
	switch c.k {
	case KList:
		l := c.List()
		i := th.index(pos, key, len(l.elems))
		l.size += v.size() - l.elems[i].size()
		l.elems[i] = v
		th.checkSize(l.size)
	case KObject:
		if key.k != KStr {
			th.Fail(pos, "object keys are strings, not %s", key.typeName())
		}
		o := c.Object()
		o.Set(key.Str(), v)
		th.checkSize(o.size)
	case KTuple, KStr, KTagged:
		th.Fail(pos, "cannot change an element of a %s value: it is immutable", c.typeName())
	default:
		th.Fail(pos, "cannot assign to an element of %s", c.typeName())
	}
}

// samePlace reports whether a and b are the same place, written the
// same way (x and x, o.items and o.items, xs[0] and xs[0], xs[i] and
// xs[i]): x = x.push(1) then stores back the list it changed.
func samePlace(a, b syntax.Expr) bool {
	switch a := a.(type) {
	case *syntax.Ident:
		b, ok := b.(*syntax.Ident)
		return ok && a.Binding != nil && a.Binding == b.Binding
	case *syntax.DotExpr:
		b, ok := b.(*syntax.DotExpr)
		return ok && a.Name == b.Name && samePlace(a.X, b.X)
	case *syntax.IndexExpr:
		b, ok := b.(*syntax.IndexExpr)
		if !ok || !samePlace(a.X, b.X) {
			return false
		}
		switch ai := a.Index.(type) {
		case *syntax.Literal:
			bi, ok := b.Index.(*syntax.Literal)
			return ok && ai.Tok == bi.Tok && ai.Int == bi.Int && ai.Str == bi.Str
		case *syntax.Ident:
			return samePlace(ai, b.Index)
		}
	}
	return false
}
