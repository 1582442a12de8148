package eval

import (
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The methods of lists and tuples, with the sorting and the in-place
// updates of the list methods that change their receiver: each function is
// named by the impl or update of its row in the library contract
// (methodTables, library.gen.go, binds it).

func listLen(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.List().elems))) }

func listIsEmpty(th *Thread, r Value, _ [3]Value) Value { return Bool(len(r.List().elems) == 0) }

func listPop(th *Thread, r Value, _ [3]Value) Value {
	l := r.List()
	if len(l.elems) == 0 {
		return Unit
	}
	v := l.elems[len(l.elems)-1]
	l.elems[len(l.elems)-1] = Unit
	l.elems = l.elems[:len(l.elems)-1]
	l.size -= 16 + v.size()
	return v
}

func listSort(th *Thread, r Value, _ [3]Value) Value {
	th.sortValues(r.List().elems)
	return r
}

func listExtend(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "extend", th.fresh(r), a)
}

func listExtendInPlace(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "extend", r, a)
}

func listRemove(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "remove", th.fresh(r), a)
}

func listRemoveInPlace(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "remove", r, a)
}

func listRemoveAt(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "remove_at", th.fresh(r), a)
}

func listRemoveAtInPlace(th *Thread, r Value, a [3]Value) Value {
	return listMethodsUpdate(th, "remove_at", r, a)
}

func listFirst(th *Thread, r Value, _ [3]Value) Value {
	if l := r.List(); len(l.elems) > 0 {
		return Some(l.elems[0])
	}
	return None
}

func listLast(th *Thread, r Value, _ [3]Value) Value {
	if l := r.List(); len(l.elems) > 0 {
		return Some(l.elems[len(l.elems)-1])
	}
	return None
}

func listGet(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.List().elems, a[0]) }

func listContains(th *Thread, r Value, a [3]Value) Value {
	return Bool(th.indexOf(r.List().elems, a[0]) >= 0)
}

func listJoin(th *Thread, r Value, a [3]Value) Value {
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
}

func listReverse(th *Thread, r Value, _ [3]Value) Value { return th.reversed(r.List()) }

func listReverseInPlace(th *Thread, r Value, _ [3]Value) Value {
	slices.Reverse(r.List().elems)
	return r
}

func listSorted(th *Thread, r Value, _ [3]Value) Value { return th.sortedList(r.List().elems) }

func listSortedInPlace(th *Thread, r Value, _ [3]Value) Value {
	th.sortValues(r.List().elems)
	return r
}

func listSlice(th *Thread, r Value, a [3]Value) Value { return th.sliceList(r.List(), a[0], a[1]) }

func listMap(th *Thread, r Value, a [3]Value) Value {
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
}

func listFilter(th *Thread, r Value, a [3]Value) Value {
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
}

func listAny(th *Thread, r Value, a [3]Value) Value {
	for _, e := range r.List().elems {
		if th.predicate(a[0], e) {
			return True
		}
	}
	return False
}

func listAll(th *Thread, r Value, a [3]Value) Value {
	for _, e := range r.List().elems {
		if !th.predicate(a[0], e) {
			return False
		}
	}
	return True
}

func listFold(th *Thread, r Value, a [3]Value) Value {
	acc := a[0]
	acc.share()
	for _, e := range r.List().elems {
		acc = th.callAcc(a[1], acc, e)
	}
	return acc
}

func listSortByKey(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(th.fresh(r), a[0]) }

func listSortByKeyInPlace(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(r, a[0]) }

func listSortBy(th *Thread, r Value, a [3]Value) Value { return th.sortBy(th.fresh(r), a[0]) }

func listSortByInPlace(th *Thread, r Value, a [3]Value) Value { return th.sortBy(r, a[0]) }

func listIndex(th *Thread, r Value, a [3]Value) Value {
	return Int(int64(th.indexOf(r.List().elems, a[0])))
}

func listCount(th *Thread, r Value, a [3]Value) Value {
	return Int(int64(th.countOf(r.List().elems, a[0])))
}

func listFind(th *Thread, r Value, a [3]Value) Value { return th.find(r.List().elems, a[0]) }

func listZip(th *Thread, r Value, a [3]Value) Value {
	return th.zip(r.List().elems, th.listArg("zip", a[0]))
}

func listEnumerate(th *Thread, r Value, _ [3]Value) Value { return th.enumerate(r.List().elems) }

func listSum(th *Thread, r Value, _ [3]Value) Value { return th.sum("sum", r.List().elems) }

func listMin(th *Thread, r Value, _ [3]Value) Value {
	return th.extremumOption("min", r.List().elems, -1)
}

func listMax(th *Thread, r Value, _ [3]Value) Value {
	return th.extremumOption("max", r.List().elems, 1)
}

func listFlatten(th *Thread, r Value, _ [3]Value) Value {
	return th.flatMap("flatten", r.List().elems, Value{})
}

func listFlatMap(th *Thread, r Value, a [3]Value) Value {
	return th.flatMap("flat_map", r.List().elems, a[0])
}

func listForEach(th *Thread, r Value, a [3]Value) Value {
	for _, e := range r.List().elems {
		th.call1(a[0], e)
	}
	return Unit
}

func listAt(th *Thread, r Value, a [3]Value) Value { return th.jsonAt(r, a[0]) }

func listPointer(th *Thread, r Value, a [3]Value) Value {
	return th.pointer(r, th.strArg("pointer", a[0]))
}

// listPush is push and append: v added at the end of the list r.
func listPush(th *Thread, r Value, a [3]Value) Value {
	l := r.List()
	size := l.size + 16 + a[0].size()
	th.checkSize(size)
	a[0].share()
	l.elems = appendValue(l.elems, a[0])
	l.size = size
	return r
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

func tupleLen(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.Tuple()))) }

func tupleGet(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.Tuple(), a[0]) }
