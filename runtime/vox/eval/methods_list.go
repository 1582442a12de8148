package eval

import (
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// The method tables of lists and tuples, with the sorting and the
// in-place updates of the list methods that change their receiver.

var listMethods = []*Method{
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.List().elems))) }},
	{Name: "is_empty", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(len(r.List().elems) == 0) }},
	{Name: "push", Mutates: true, Sig: Signature{Params: []Param{{Name: "value", Type: "T"}}, Result: "list[T]", Notes: "appends value and returns the list; called on a variable (or a field or element of one), it changes it"},
		update: func(th *Thread, r Value, a [3]Value) Value {
			l := r.List()
			size := l.size + 16 + a[0].size()
			th.checkSize(size)
			a[0].share()
			l.elems = appendValue(l.elems, a[0])
			l.size = size
			return r
		}},
	{Name: "pop", Mutates: true, Sig: Signature{Result: "T | Unit", Notes: "removes the last element and returns it, Unit (which equals None) when the list is empty; on a variable, it changes it"},
		update: func(th *Thread, r Value, _ [3]Value) Value {
			l := r.List()
			if len(l.elems) == 0 {
				return Unit
			}
			v := l.elems[len(l.elems)-1]
			l.elems[len(l.elems)-1] = Unit
			l.elems = l.elems[:len(l.elems)-1]
			l.size -= 16 + v.size()
			return v
		}},
	{Name: "sort", Mutates: true, Sig: Signature{Result: "list[T]", Notes: "sorts the list as sorted(xs) does and returns it; on a variable, it changes it (extension)"},
		update: func(th *Thread, r Value, _ [3]Value) Value {
			th.sortValues(r.List().elems)
			return r
		}},
	{Name: "extend", Sig: Signature{Params: []Param{{Name: "other", Type: "list[T]"}}, Result: "list[T]", Notes: "the list followed by the elements of other"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "extend", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "extend", r, a) }},
	{Name: "remove", Sig: Signature{Params: []Param{{Name: "value", Type: "T"}}, Result: "list[T]", Notes: "the list without the first element equal to value (unchanged when there is none)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "remove", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "remove", r, a) }},
	{Name: "remove_at", Sig: Signature{Params: pIndex, Result: "list[T]", Notes: "the list without the element at index (negative counts from the end; unchanged when out of range)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "remove_at", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "remove_at", r, a) }},
	{Name: "first", Sig: Signature{Result: "Option[T]"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if l := r.List(); len(l.elems) > 0 {
				return Some(l.elems[0])
			}
			return None
		}},
	{Name: "last", Sig: Signature{Result: "Option[T]"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if l := r.List(); len(l.elems) > 0 {
				return Some(l.elems[len(l.elems)-1])
			}
			return None
		}},
	{Name: "get", Sig: Signature{Params: pIndex, Result: "Option[T]", Notes: "negative indices count from the end"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.List().elems, a[0]) }},
	{Name: "contains", Sig: Signature{Params: pValue, Result: "bool", Notes: "compares with =="},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Bool(th.indexOf(r.List().elems, a[0]) >= 0) }},
	{Name: "join", Sig: Signature{Params: []Param{{Name: "sep", Type: "str", Optional: true, Default: `""`}}, Result: "str", Notes: "elements that are not strings in display form"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			sep := ""
			if a[0].k != kAbsent {
				sep = th.strArg("join", a[0])
			}
			var b strings.Builder
			for i, e := range r.List().elems {
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
			th.allocate(int64(b.Len()))
			return Str(b.String())
		}},
	{Name: "reverse", Sig: Signature{Result: "list[T]", Notes: "the list reversed"},
		fn:     func(th *Thread, r Value, _ [3]Value) Value { return th.reversed(r.List()) },
		update: func(th *Thread, r Value, _ [3]Value) Value { slices.Reverse(r.List().elems); return r }},
	{Name: "reversed", Sig: Signature{Result: "list[T]", Notes: "as reverse"},
		fn:     func(th *Thread, r Value, _ [3]Value) Value { return th.reversed(r.List()) },
		update: func(th *Thread, r Value, _ [3]Value) Value { slices.Reverse(r.List().elems); return r }},
	{Name: "sorted", Sig: Signature{Result: "list[T]", Notes: "the list sorted, as sorted(xs)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.sortedList(r.List().elems) },
		update: func(th *Thread, r Value, _ [3]Value) Value {
			th.sortValues(r.List().elems)
			return r
		}},
	{Name: "slice", Sig: Signature{Params: pSlice, Result: "list[T]", Notes: "a new list; negative bounds count from the end; out-of-range bounds are clamped"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.sliceList(r.List(), a[0], a[1]) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "list[U]"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			elems := r.List().elems
			out := make([]Value, len(elems))
			size := 16 * int64(len(elems))
			th.checkSize(size)
			th.allocate(size)
			for i, e := range elems {
				out[i] = th.call1(a[0], e)
				size += out[i].size()
			}
			th.checkSize(size)
			return listValue(&List{elems: out, size: size})
		}},
	{Name: "filter", Sig: Signature{Params: pPred, Result: "list[T]", Notes: "f must return a bool"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			// Room for every element, so that the kept ones are never
			// copied as the list grows; a result under half of it is
			// copied once to its size, so as not to keep the room.
			elems := r.List().elems
			th.allocate(16 * int64(len(elems)))
			out := make([]Value, 0, len(elems))
			var size int64
			for _, e := range elems {
				if th.predicate(a[0], e) {
					out = append(out, e)
					size += 16 + e.size()
				}
			}
			if len(out) < cap(out)/2 {
				out = slices.Clip(slices.Clone(out))
			}
			if out == nil {
				out = []Value{}
			}
			return listValue(&List{elems: out, size: size})
		}},
	{Name: "any", Sig: Signature{Params: pPred, Result: "bool", Notes: "stops at the first true"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				if th.predicate(a[0], e) {
					return True
				}
			}
			return False
		}},
	{Name: "all", Sig: Signature{Params: pPred, Result: "bool", Notes: "stops at the first false"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				if !th.predicate(a[0], e) {
					return False
				}
			}
			return True
		}},
	{Name: "fold", Sig: Signature{Params: []Param{{Name: "init", Type: "A"}, {Name: "f", Type: "fn(A, T) to A"}}, Result: "A"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			acc := a[0]
			acc.share()
			for _, e := range r.List().elems {
				acc = th.callAcc(a[1], acc, e)
			}
			return acc
		}},
	{Name: "sort_by_key", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to K"}}, Result: "list[T]", Notes: "the list ordered by f's results, stable"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(r, a[0]) }},
	{Name: "sorted_by_key", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to K"}}, Result: "list[T]", Notes: "as sort_by_key"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(r, a[0]) }},
	{Name: "sort_by", Sig: Signature{Params: []Param{{Name: "cmp", Type: "fn(T, T) to int"}}, Result: "list[T]", Notes: "the list ordered by cmp, stable: cmp(a, b) is negative when a goes first, positive when b does"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(r, a[0]) }},
	{Name: "sorted_by", Sig: Signature{Params: []Param{{Name: "cmp", Type: "fn(T, T) to int"}}, Result: "list[T]", Notes: "as sort_by"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(r, a[0]) }},
	{Name: "slice_list", Sig: Signature{Params: pSlice, Result: "list[T]", Notes: "the reference's name of slice"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.sliceList(r.List(), a[0], a[1]) }},
	{Name: "index", Sig: Signature{Params: pValue, Result: "int", Notes: "the position of the first element == value; -1 when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.indexOf(r.List().elems, a[0]))) }},
	{Name: "find_index", Sig: Signature{Params: pValue, Result: "int", Notes: "as index"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.indexOf(r.List().elems, a[0]))) }},
	{Name: "count", Sig: Signature{Params: pValue, Result: "int", Notes: "the elements == value"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.countOf(r.List().elems, a[0]))) }},
	{Name: "find", Sig: Signature{Params: pPred, Result: "Option[T]", Notes: "the first element for which f is true (extension)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.find(r.List().elems, a[0]) }},
	{Name: "zip", Sig: Signature{Params: []Param{{Name: "other", Type: "list[U]"}}, Result: "list[list[T | U]]", Notes: "[x, y] pairs, as many as the shorter list has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.zip(r.List().elems, th.listArg("zip", a[0])) }},
	{Name: "enumerate", Sig: Signature{Result: "list[list[int | T]]", Notes: "[index, element] pairs"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.enumerate(r.List().elems) }},
	{Name: "sum", Sig: Signature{Result: "T", Notes: "of a list of numbers, as sum(xs)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.sum("sum", r.List().elems) }},
	{Name: "min", Sig: Signature{Result: "Option[T]", Notes: "the smallest element; None when empty"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.extremumOption("min", r.List().elems, -1) }},
	{Name: "max", Sig: Signature{Result: "Option[T]", Notes: "the largest element; None when empty"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.extremumOption("max", r.List().elems, 1) }},
	{Name: "flatten", Sig: Signature{Result: "list[U]", Notes: "of a list[list[U]]: the elements of the inner lists, one level deep; an element that is not a list stays as it is"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.flatMap("flatten", r.List().elems, Value{}) }},
	{Name: "flat_map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to list[U] | Option[U]"}}, Result: "list[U]", Notes: "the lists f returns, joined; an Option counts as a list of none or one"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.flatMap("flat_map", r.List().elems, a[0]) }},
	{Name: "for_each", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to any"}}, Result: "Unit", Notes: "calls f on each element"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				th.call1(a[0], e)
			}
			return Unit
		}},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "Some(len): the reference's JSON helper"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Some(Int(int64(len(r.List().elems)))) }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[T]", Notes: "as get, but a negative index is None (the reference's JSON helper)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if th.intArg("at", a[0]) < 0 {
				return None
			}
			return th.getOption(r.List().elems, a[0])
		}},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "the value at a JSON Pointer (RFC 6901) such as `/items/0/name`; None when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
}

// appendValue appends v to elems, doubling the capacity when it is full:
// append grows a large slice by a quarter, which for a list built by
// push copies its elements about four times over instead of once.
func appendValue(elems []Value, v Value) []Value {
	if len(elems) == cap(elems) && len(elems) >= 256 {
		grown := make([]Value, len(elems), 2*len(elems))
		copy(grown, elems)
		elems = grown
	}
	return append(elems, v)
}

// sortByKey sorts the unique list r by f's results, in place, stably.
func (th *Thread) sortByKey(r Value, f Value) Value {
	l := r.List()
	type pair struct{ key, v Value }
	pairs := make([]pair, len(l.elems))
	th.allocate(32 * int64(len(pairs)))
	for i, e := range l.elems {
		pairs[i] = pair{th.call1(f, e), e}
	}
	pos := th.callPos
	slices.SortStableFunc(pairs, func(x, y pair) int {
		c := th.compare(pos, syntax.LT, x.key, y.key)
		if c == 2 {
			return 0
		}
		return c
	})
	for i, p := range pairs {
		l.elems[i] = p.v
	}
	return r
}

// sortBy sorts the unique list r by the comparator cmp, in place, stably.
func (th *Thread) sortBy(r Value, cmp Value) Value {
	l := r.List()
	slices.SortStableFunc(l.elems, func(x, y Value) int {
		c := th.call2(cmp, x, y)
		if c.k != KInt {
			th.Failf("sort_by: the comparator must return an int, got %s", c.typeName())
		}
		switch n := int64(c.n); {
		case n < 0:
			return -1
		case n > 0:
			return 1
		}
		return 0
	})
	return r
}

// listMethodsUpdate changes the unique list r as the method name does.
func listMethodsUpdate(th *Thread, name string, r Value, a [3]Value) Value {
	l := r.List()
	switch name {
	case "extend":
		var more []Value
		switch a[0].k {
		case KList:
			more = a[0].List().elems
		case KTuple:
			more = a[0].Tuple()
		default:
			th.Failf("extend needs a list, got %s", a[0].typeName())
		}
		size := l.size + a[0].size()
		th.checkSize(size)
		th.allocate(16 * int64(len(more)))
		for _, e := range more {
			e.share()
		}
		l.elems = append(l.elems, more...)
		l.size = size
	case "remove":
		for i, e := range l.elems {
			if th.equal(e, a[0]) {
				l.size -= 16 + e.size()
				l.elems = slices.Delete(l.elems, i, i+1)
				break
			}
		}
	case "remove_at":
		i := th.intArg("remove_at", a[0])
		if i < 0 {
			i += int64(len(l.elems))
		}
		if i >= 0 && i < int64(len(l.elems)) {
			l.size -= 16 + l.elems[i].size()
			l.elems = slices.Delete(l.elems, int(i), int(i)+1)
		}
	}
	return r
}

var tupleMethods = []*Method{
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.Tuple()))) }},
	{Name: "get", Sig: Signature{Params: pIndex, Result: "Option[any]", Notes: "negative indices count from the end"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.Tuple(), a[0]) }},
}
