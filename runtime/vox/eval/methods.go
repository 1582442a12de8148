package eval

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// kAbsent marks an optional method argument that was not given.
const kAbsent Kind = 254

var absent = Value{k: kAbsent}

// margs normalises the arguments of a method to its parameters: named
// arguments go to their parameter, missing ones are absent, and the first
// required parameters must be present.
//
// It returns an array, not a slice, so that a method call allocates
// nothing for its arguments; methods have at most three parameters.
func (th *Thread) margs(recv Value, method string, args []Value, names []string, required int, params ...string) [3]Value {
	out := [3]Value{absent, absent, absent}
	pos := 0
	for i, a := range args {
		j := pos
		if names != nil && names[i] != "" {
			j = slices.Index(params, names[i])
			if j < 0 {
				th.Failf("%s.%s: unknown argument %s", recv.typeName(), method, names[i])
			}
		} else {
			pos++
			if j >= len(params) {
				th.Failf("%s.%s takes at most %d argument(s), got %d", recv.typeName(), method, len(params), len(args))
			}
		}
		out[j] = a
	}
	for j := 0; j < required; j++ {
		if out[j].k == kAbsent {
			th.Failf("%s.%s: missing argument %s", recv.typeName(), method, params[j])
		}
	}
	return out
}

func (th *Thread) strArg(method string, v Value) string {
	if v.k != KStr {
		th.Failf("%s needs a str, got %s", method, v.typeName())
	}
	return v.Str()
}

func (th *Thread) intArg(method string, v Value) int64 {
	if v.k != KInt {
		th.Failf("%s needs an int, got %s", method, v.typeName())
	}
	return int64(v.n)
}

func (th *Thread) method(recv Value, name string, args []Value, names []string) Value {
	switch recv.k {
	case KStr:
		return th.strMethod(recv, name, args, names)
	case KList:
		return th.listMethod(recv, name, args, names)
	case KObject:
		return th.objectMethod(recv, name, args, names)
	case KInt, KFloat:
		return th.numberMethod(recv, name, args, names)
	case KSome, KNone, KOk, KErr:
		return th.optionMethod(recv, name, args, names)
	case KTuple:
		switch name {
		case "len":
			th.margs(recv, name, args, names, 0)
			return Int(int64(len(recv.Tuple())))
		case "get":
			a := th.margs(recv, name, args, names, 1, "index")
			return th.getOption(recv.Tuple(), a[0])
		}
	case KNamespace:
		return th.callNS(namespaceNames[recv.n], name, args, names)
	}
	if name == "to_str" {
		th.margs(recv, name, args, names, 0)
		return Str(th.display(recv))
	}
	th.Failf("%s has no method %s", recv.typeName(), name)
	return Unit
}

// sliceBounds clamps a..b (negative counting from the end) to 0..n.
func sliceBounds(a, b Value, n int) (int, int) {
	clamp := func(v Value, def int) int {
		if v.k != KInt {
			return def
		}
		i := int64(v.n)
		if i < 0 {
			i += int64(n)
		}
		return int(max(0, min(i, int64(n))))
	}
	lo, hi := clamp(a, 0), clamp(b, n)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func (th *Thread) strMethod(recv Value, name string, args []Value, names []string) Value {
	s := recv.Str()
	th.charge(int64(len(s))) // string methods scan their receiver
	switch name {
	case "len":
		th.margs(recv, name, args, names, 0)
		return Int(int64(utf8.RuneCountInString(s)))
	case "is_empty":
		th.margs(recv, name, args, names, 0)
		return Bool(s == "")
	case "to_upper":
		th.margs(recv, name, args, names, 0)
		return Str(strings.ToUpper(s))
	case "to_lower":
		th.margs(recv, name, args, names, 0)
		return Str(strings.ToLower(s))
	case "trim":
		th.margs(recv, name, args, names, 0)
		return Str(strings.TrimSpace(s))
	case "trim_start":
		th.margs(recv, name, args, names, 0)
		return Str(strings.TrimLeft(s, " \t\r\n\f\v"))
	case "trim_end":
		th.margs(recv, name, args, names, 0)
		return Str(strings.TrimRight(s, " \t\r\n\f\v"))
	case "contains":
		a := th.margs(recv, name, args, names, 1, "s")
		return Bool(strings.Contains(s, th.strArg(name, a[0])))
	case "starts_with":
		a := th.margs(recv, name, args, names, 1, "prefix")
		return Bool(strings.HasPrefix(s, th.strArg(name, a[0])))
	case "ends_with":
		a := th.margs(recv, name, args, names, 1, "suffix")
		return Bool(strings.HasSuffix(s, th.strArg(name, a[0])))
	case "split":
		a := th.margs(recv, name, args, names, 0, "sep")
		sep := " "
		if a[0].k != kAbsent {
			sep = th.strArg(name, a[0])
		}
		parts := strings.Split(s, sep)
		return th.strList(parts, int64(len(s)))
	case "lines":
		th.margs(recv, name, args, names, 0)
		text := strings.TrimSuffix(s, "\n")
		if text == "" {
			return NewList([]Value{})
		}
		parts := strings.Split(text, "\n")
		for i, p := range parts {
			parts[i] = strings.TrimSuffix(p, "\r")
		}
		return th.strList(parts, int64(len(s)))
	case "replace":
		a := th.margs(recv, name, args, names, 2, "old", "new")
		old, nw := th.strArg(name, a[0]), th.strArg(name, a[1])
		if n := int64(strings.Count(s, old)); n > 0 {
			th.checkSize(int64(len(s)) + n*(int64(len(nw))-int64(len(old))))
		}
		th.charge(int64(len(s)))
		return Str(strings.ReplaceAll(s, old, nw))
	case "repeat":
		a := th.margs(recv, name, args, names, 1, "n")
		n := th.intArg(name, a[0])
		if n < 0 {
			th.Failf("repeat count must not be negative, got %d", n)
		}
		if len(s) > 0 && n > math.MaxInt64/int64(len(s)) {
			th.limit(LimitValueSize, th.opts.MaxValueBytes)
		}
		th.checkSize(int64(len(s)) * n)
		th.charge(int64(len(s)) * n)
		return Str(strings.Repeat(s, int(n)))
	case "slice":
		a := th.margs(recv, name, args, names, 1, "start", "end")
		if isASCII(s) {
			lo, hi := sliceBounds(a[0], a[1], len(s))
			return Str(s[lo:hi])
		}
		runes := []rune(s)
		lo, hi := sliceBounds(a[0], a[1], len(runes))
		return Str(string(runes[lo:hi]))
	case "index_of":
		a := th.margs(recv, name, args, names, 1, "s")
		i := strings.Index(s, th.strArg(name, a[0]))
		if i < 0 {
			return None
		}
		return Some(Int(int64(utf8.RuneCountInString(s[:i]))))
	case "char_at":
		a := th.margs(recv, name, args, names, 1, "index")
		i := th.intArg(name, a[0])
		n := int64(utf8.RuneCountInString(s))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return None
		}
		for off := 0; off < len(s); {
			_, size := decodeRune(s[off:])
			if i == 0 {
				return Some(Str(s[off : off+size]))
			}
			i--
			off += size
		}
		return None
	case "to_str":
		th.margs(recv, name, args, names, 0)
		return recv
	}
	th.Failf("str has no method %s", name)
	return Unit
}

// strList makes a list of strings whose characters total about n bytes.
func (th *Thread) strList(parts []string, n int64) Value {
	size := 16*int64(len(parts)) + n
	th.checkSize(size)
	th.charge(size)
	elems := make([]Value, len(parts))
	for i, p := range parts {
		elems[i] = Str(p)
	}
	return listValue(&List{elems: elems, size: size})
}

func (th *Thread) getOption(elems []Value, idx Value) Value {
	if idx.k != KInt {
		th.Failf("get needs an int index, got %s", idx.typeName())
	}
	i := int64(idx.n)
	if i < 0 {
		i += int64(len(elems))
	}
	if i < 0 || i >= int64(len(elems)) {
		return None
	}
	return Some(elems[i])
}

func (th *Thread) listMethod(recv Value, name string, args []Value, names []string) Value {
	l := recv.List()
	switch name {
	case "len":
		th.margs(recv, name, args, names, 0)
		return Int(int64(len(l.elems)))
	case "is_empty":
		th.margs(recv, name, args, names, 0)
		return Bool(len(l.elems) == 0)
	case "push":
		a := th.margs(recv, name, args, names, 1, "value")
		size := l.size + 16 + a[0].size()
		th.checkSize(size)
		l.elems = append(l.elems, a[0])
		l.size = size
		return Unit
	case "pop":
		th.margs(recv, name, args, names, 0)
		if len(l.elems) == 0 {
			return None
		}
		v := l.elems[len(l.elems)-1]
		l.elems[len(l.elems)-1] = Unit
		l.elems = l.elems[:len(l.elems)-1]
		l.size -= 16 + v.size()
		return Some(v)
	case "first":
		th.margs(recv, name, args, names, 0)
		if len(l.elems) == 0 {
			return None
		}
		return Some(l.elems[0])
	case "last":
		th.margs(recv, name, args, names, 0)
		if len(l.elems) == 0 {
			return None
		}
		return Some(l.elems[len(l.elems)-1])
	case "get":
		a := th.margs(recv, name, args, names, 1, "index")
		return th.getOption(l.elems, a[0])
	case "contains":
		a := th.margs(recv, name, args, names, 1, "value")
		for _, e := range l.elems {
			if th.equal(e, a[0]) {
				return True
			}
		}
		return False
	case "join":
		a := th.margs(recv, name, args, names, 0, "sep")
		sep := ""
		if a[0].k != kAbsent {
			sep = th.strArg(name, a[0])
		}
		var b strings.Builder
		for i, e := range l.elems {
			if i > 0 {
				b.WriteString(sep)
			}
			if e.k == KStr {
				b.WriteString(e.Str())
			} else {
				b.WriteString(th.display(e))
			}
			if i&1023 == 0 {
				th.checkSize(int64(b.Len()))
			}
		}
		th.checkSize(int64(b.Len()))
		th.charge(int64(b.Len()))
		return Str(b.String())
	case "reverse":
		th.margs(recv, name, args, names, 0)
		th.charge(16 * int64(len(l.elems)))
		out := slices.Clone(l.elems)
		slices.Reverse(out)
		return listValue(&List{elems: out, size: l.size})
	case "sorted":
		th.margs(recv, name, args, names, 0)
		return th.sortedList(l.elems)
	case "slice":
		a := th.margs(recv, name, args, names, 1, "start", "end")
		lo, hi := sliceBounds(a[0], a[1], len(l.elems))
		th.charge(16 * int64(hi-lo))
		return NewList(slices.Clone(l.elems[lo:hi]))
	case "map":
		a := th.margs(recv, name, args, names, 1, "f")
		elems := l.elems
		out := make([]Value, len(elems))
		size := 16 * int64(len(elems))
		th.checkSize(size)
		th.charge(size)
		for i, e := range elems {
			out[i] = th.call1(a[0], e)
			size += out[i].size()
		}
		th.checkSize(size)
		return listValue(&List{elems: out, size: size})
	case "filter":
		a := th.margs(recv, name, args, names, 1, "f")
		var out []Value
		var size int64
		for _, e := range l.elems {
			if th.predicate(a[0], e) {
				out = append(out, e)
				size += 16 + e.size()
			}
		}
		if out == nil {
			out = []Value{}
		}
		return listValue(&List{elems: out, size: size})
	case "any", "all":
		a := th.margs(recv, name, args, names, 1, "f")
		want := name == "any"
		for _, e := range l.elems {
			if th.predicate(a[0], e) == want {
				return Bool(want)
			}
		}
		return Bool(!want)
	case "fold":
		a := th.margs(recv, name, args, names, 2, "init", "f")
		acc := a[0]
		for _, e := range l.elems {
			acc = th.call2(a[1], acc, e)
		}
		return acc
	case "sort_by_key":
		a := th.margs(recv, name, args, names, 1, "f")
		type pair struct{ key, v Value }
		pairs := make([]pair, len(l.elems))
		for i, e := range l.elems {
			pairs[i] = pair{th.call1(a[0], e), e}
		}
		pos := th.callPos
		slices.SortStableFunc(pairs, func(x, y pair) int {
			c := th.compare(pos, syntax.LT, x.key, y.key)
			if c == 2 {
				return 0
			}
			return c
		})
		out := make([]Value, len(pairs))
		for i, p := range pairs {
			out[i] = p.v
		}
		return listValue(&List{elems: out, size: l.size})
	case "to_str":
		th.margs(recv, name, args, names, 0)
		return Str(th.display(recv))
	}
	th.Failf("list has no method %s", name)
	return Unit
}

func (th *Thread) predicate(f, v Value) bool {
	r := th.call1(f, v)
	if r.k != KBool {
		th.Failf("the function must return a bool, got %s", r.typeName())
	}
	return r.n != 0
}

func (th *Thread) objectMethod(recv Value, name string, args []Value, names []string) Value {
	o := recv.Object()
	switch name {
	case "keys":
		th.margs(recv, name, args, names, 0)
		return th.strList(o.keys, 0)
	case "values":
		th.margs(recv, name, args, names, 0)
		th.charge(16 * int64(len(o.vals)))
		return NewList(slices.Clone(o.vals))
	case "has":
		a := th.margs(recv, name, args, names, 1, "key")
		_, ok := o.Get(th.strArg(name, a[0]))
		return Bool(ok)
	case "get":
		a := th.margs(recv, name, args, names, 1, "key")
		if v, ok := o.Get(th.strArg(name, a[0])); ok {
			return Some(v)
		}
		return None
	case "len":
		th.margs(recv, name, args, names, 0)
		return Int(int64(o.Len()))
	case "is_empty":
		th.margs(recv, name, args, names, 0)
		return Bool(o.Len() == 0)
	case "to_str":
		th.margs(recv, name, args, names, 0)
		return Str(th.display(recv))
	}
	th.Failf("map has no method %s", name)
	return Unit
}

func (th *Thread) numberMethod(recv Value, name string, args []Value, names []string) Value {
	switch name {
	case "to_str":
		th.margs(recv, name, args, names, 0)
		return Str(th.display(recv))
	case "abs":
		th.margs(recv, name, args, names, 0)
		return th.absValue(recv)
	case "min", "max":
		a := th.margs(recv, name, args, names, 1, "other")
		sign := -1
		if name == "max" {
			sign = 1
		}
		if th.compare(th.callPos, syntax.LT, a[0], recv)*sign > 0 {
			return a[0]
		}
		return recv
	case "floor":
		return biFloor(th, []Value{recv}, nil)
	case "ceil":
		return biCeil(th, []Value{recv}, nil)
	case "round":
		return biRound(th, []Value{recv}, nil)
	case "sqrt":
		return biSqrt(th, []Value{recv}, nil)
	}
	th.Failf("%s has no method %s", recv.typeName(), name)
	return Unit
}

func (th *Thread) optionMethod(recv Value, name string, args []Value, names []string) Value {
	ok := recv.k == KSome || recv.k == KOk
	switch name {
	case "is_some":
		th.margs(recv, name, args, names, 0)
		return Bool(recv.k == KSome)
	case "is_none":
		th.margs(recv, name, args, names, 0)
		return Bool(recv.k == KNone)
	case "is_ok":
		th.margs(recv, name, args, names, 0)
		return Bool(recv.k == KOk)
	case "is_err":
		th.margs(recv, name, args, names, 0)
		return Bool(recv.k == KErr)
	case "unwrap":
		th.margs(recv, name, args, names, 0)
		if !ok {
			th.Failf("unwrap of %s", th.display(recv))
		}
		return recv.Inner()
	case "unwrap_or":
		a := th.margs(recv, name, args, names, 1, "default")
		if !ok {
			return a[0]
		}
		return recv.Inner()
	case "map":
		a := th.margs(recv, name, args, names, 1, "f")
		if !ok {
			return recv
		}
		return boxed(recv.k, th.call1(a[0], recv.Inner()))
	case "and_then":
		a := th.margs(recv, name, args, names, 1, "f")
		if !ok {
			return recv
		}
		return th.call1(a[0], recv.Inner())
	case "map_err":
		a := th.margs(recv, name, args, names, 1, "f")
		if recv.k != KErr {
			return recv
		}
		return ErrVal(th.call1(a[0], recv.Inner()))
	case "to_str":
		th.margs(recv, name, args, names, 0)
		return Str(th.display(recv))
	}
	th.Failf("%s has no method %s", recv.typeName(), name)
	return Unit
}
