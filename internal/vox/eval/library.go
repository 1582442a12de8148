package eval

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// The helpers of the everyday methods, whose functions (methods_*.go) the
// method tables generated from the library contract bind (library.gen.go;
// docs/vox-language.md, Builtins, methods and capability functions). Each
// one counts what it allocates (allocate) and fails with the method's name
// on an argument of the wrong kind.

// mapCase converts the case of a string; the result is a new string of
// about the same size.
func (th *Thread) mapCase(r Value, f func(string) string) Value {
	th.allocate(int64(r.n))
	out := f(r.Str())
	th.checkSize(int64(len(out)))
	return Str(out)
}

// toUpper and toLower use the full Unicode case mappings, as the
// reference's Rust strings do ("ß" upper-cases to "SS"); ASCII text takes
// the fast path.
func toUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func toLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

// allRunes reports whether s is not empty and f holds for each character.
func allRunes(s string, f func(rune) bool) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !f(c) {
			return false
		}
	}
	return true
}

func isASCIIDigit(c rune) bool { return '0' <= c && c <= '9' }

// isCase reports whether s has a letter of case is and none of case not.
func isCase(s string, is, not func(rune) bool) bool {
	found := false
	for _, c := range s {
		switch {
		case not(c):
			return false
		case is(c):
			found = true
		}
	}
	return found
}

// resultToOption turns Ok(v) into Some(v) and Err into None.
func resultToOption(r Value) Value {
	if r.k == KOk {
		return Some(r.Inner())
	}
	return None
}

func (th *Thread) reversed(l *List) Value {
	th.allocate(16 * int64(len(l.elems)))
	out := slices.Clone(l.elems)
	slices.Reverse(out)
	return listValue(&List{elems: out, size: l.size})
}

func (th *Thread) sliceList(l *List, start, end Value) Value {
	lo, hi := sliceBounds(start, end, len(l.elems))
	th.allocate(16 * int64(hi-lo))
	return NewList(slices.Clone(l.elems[lo:hi]))
}

// indexOf is the position of the first element equal to v, or -1.
func (th *Thread) indexOf(elems []Value, v Value) int {
	for i, e := range elems {
		if th.equal(e, v) {
			return i
		}
	}
	return -1
}

func (th *Thread) countOf(elems []Value, v Value) int {
	n := 0
	for _, e := range elems {
		if th.equal(e, v) {
			n++
		}
	}
	return n
}

func (th *Thread) find(elems []Value, f Value) Value {
	for _, e := range elems {
		if th.predicate(f, e) {
			return Some(e)
		}
	}
	return None
}

// pairList makes the list of two-element lists that zip, enumerate and
// items return, counting every list it allocates.
func (th *Thread) pairList(n int, pair func(i int) (Value, Value)) Value {
	size := 16*int64(n) + int64(n)*(32+listHeader)
	th.checkSize(size)
	th.allocate(size)
	out := make([]Value, n)
	for i := range out {
		a, b := pair(i)
		out[i] = NewList([]Value{a, b})
	}
	return NewList(out)
}

// listHeader is what a list counts for itself against the allocation
// budget besides its elements.
const listHeader = 48

func (th *Thread) zip(a, b []Value) Value {
	return th.pairList(min(len(a), len(b)), func(i int) (Value, Value) { return a[i], b[i] })
}

func (th *Thread) enumerate(elems []Value) Value {
	return th.pairList(len(elems), func(i int) (Value, Value) { return Int(int64(i)), elems[i] })
}

func (th *Thread) items(o *Object) Value {
	return th.pairList(len(o.keys), func(i int) (Value, Value) { return Str(o.keys[i]), o.vals[i] })
}

// extremumOption is list.min() and list.max(): None when empty.
func (th *Thread) extremumOption(name string, elems []Value, sign int) Value {
	if len(elems) == 0 {
		return None
	}
	return Some(th.best(elems, sign))
}

// flatMap implements flatten (f is the zero Value) and flat_map: the
// elements of each list joined; an Option is a list of none or one.
func (th *Thread) flatMap(name string, elems []Value, f Value) Value {
	out := []Value{}
	var size int64
	for _, e := range elems {
		if f.k != KNull {
			e = th.call1(f, e)
		}
		switch e.k {
		case KList:
			inner := e.List()
			out = append(out, inner.elems...)
			size += inner.size
		case KNone:
		case KSome:
			out = append(out, e.Inner())
			size += 16 + e.Inner().size()
		default:
			if f.k != KNull {
				th.Failf("flat_map: f must return a list or an Option, got %s", e.typeName())
			}
			out = append(out, e)
			size += 16 + e.size()
		}
		th.checkSize(size)
	}
	th.allocate(16 * int64(len(out)))
	return listValue(&List{elems: out, size: size})
}

func (th *Thread) hasKey(name string, r, key Value) Value {
	_, ok := r.Object().Get(th.strArg(name, key))
	return Bool(ok)
}

// pointer looks up a JSON Pointer (RFC 6901): "" is the value itself,
// "/a/0" member a, then element 0; "~1" stands for "/" and "~0" for "~"
// in a reference token. A pointer that does not start with "/" or leads
// nowhere is None.
func (th *Thread) pointer(v Value, p string) Value {
	if p == "" {
		return Some(v)
	}
	if p[0] != '/' {
		return None
	}
	for _, tok := range strings.Split(p[1:], "/") {
		th.step(1)
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v.k {
		case KObject:
			next, ok := v.Object().Get(tok)
			if !ok {
				return None
			}
			v = next
		case KList, KTuple:
			elems := th.listArg("pointer", v)
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(elems) || (len(tok) > 1 && tok[0] == '0') || tok[0] == '+' {
				return None
			}
			v = elems[i]
		default:
			return None
		}
	}
	return Some(v)
}

// unwrap is the value of Some or Ok; it fails on None and Err.
func (th *Thread) unwrap(r Value) Value {
	if !holds(r) {
		th.Failf("unwrap of %s", th.display(r))
	}
	return r.Inner()
}

// expect is unwrap with the caller's message: "message" for None,
// "message: e" for Err(e).
func (th *Thread) expect(r, msg Value) Value {
	m := th.strArg("expect", msg)
	switch r.k {
	case KNone:
		th.Failf("%s", m)
	case KErr:
		th.Failf("%s: %s", m, th.display(r.Inner()))
	}
	return r.Inner()
}

func unwrapOr(r, d Value) Value {
	if !holds(r) {
		return d
	}
	return r.Inner()
}

func (th *Thread) mapInner(r, f Value) Value {
	if !holds(r) {
		return r
	}
	return boxed(r.k, th.call1(f, r.Inner()))
}

func (th *Thread) andThen(r, f Value) Value {
	if !holds(r) {
		return r
	}
	return th.call1(f, r.Inner())
}

// toStr is the display form as a new string, counted.
func (th *Thread) toStr(r Value) Value {
	if r.k == KStr {
		return r
	}
	s := th.display(r)
	th.allocate(int64(len(s)))
	return Str(s)
}

func someIf(v Value, ok bool) Value {
	if ok {
		return Some(v)
	}
	return None
}

// asInt is the reference's as_int: ints as they are, floats truncated
// toward zero when they fit, None for anything else.
func asInt(v Value) Value {
	switch v.k {
	case KInt:
		return Some(v)
	case KFloat:
		f := math.Trunc(v.Float())
		if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
			return None
		}
		return Some(Int(int64(f)))
	}
	return None
}
