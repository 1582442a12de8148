package eval

import (
	"sync"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Patterns and constructors: the match functions of patterns, the values
// of literals and constructors, and the construction of a constructor
// value from its fields.

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
