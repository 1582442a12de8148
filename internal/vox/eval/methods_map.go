package eval

import "slices"

// The methods of maps, with the in-place updates of the methods that
// change their receiver: each function is named by the impl or update of
// its row in the library contract (methodTables, library.gen.go, binds it).

func mapKeys(th *Thread, r Value, _ [3]Value) Value { return th.strList(r.Object().keys, 0) }

func mapValues(th *Thread, r Value, _ [3]Value) Value {
	o := r.Object()
	th.allocate(16 * int64(len(o.vals)))
	return NewList(slices.Clone(o.vals))
}

func mapItems(th *Thread, r Value, _ [3]Value) Value { return th.items(r.Object()) }

func mapHas(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has", r, a[0]) }

func mapContainsKey(th *Thread, r Value, a [3]Value) Value { return th.hasKey("contains_key", r, a[0]) }

func mapHasKey(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has_key", r, a[0]) }

func mapGet(th *Thread, r Value, a [3]Value) Value {
	v, ok := r.Object().Get(th.strArg("get", a[0]))
	switch {
	case a[1].k != kAbsent && ok:
		return v
	case a[1].k != kAbsent:
		return a[1]
	case ok:
		return Some(v)
	}
	return None
}

func mapGetOr(th *Thread, r Value, a [3]Value) Value {
	if v, ok := r.Object().Get(th.strArg("get_or", a[0])); ok {
		return v
	}
	return a[1]
}

func mapLen(th *Thread, r Value, _ [3]Value) Value { return Int(int64(r.Object().Len())) }

func mapIsEmpty(th *Thread, r Value, _ [3]Value) Value { return Bool(r.Object().Len() == 0) }

func mapLength(th *Thread, r Value, _ [3]Value) Value { return Int(0) }

func mapAt(th *Thread, r Value, a [3]Value) Value { return th.jsonAt(r, a[0]) }

func mapPointer(th *Thread, r Value, a [3]Value) Value {
	return th.pointer(r, th.strArg("pointer", a[0]))
}

func mapInsert(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", th.fresh(r), a) }

func mapInsertInPlace(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", r, a) }

func mapSet(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", th.fresh(r), a) }

func mapSetInPlace(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", r, a) }

func mapRemove(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", th.fresh(r), a) }

func mapRemoveInPlace(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", r, a) }

func mapDelete(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", th.fresh(r), a) }

func mapDeleteInPlace(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", r, a) }

func mapUpdate(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(th.fresh(r), a) }

func mapUpdateInPlace(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(r, a) }

// mapSet sets a key of the unique map r.
func (th *Thread) mapSet(name string, r Value, a [3]Value) Value {
	o := r.Object()
	a[1].share()
	o.Set(th.strArg(name, a[0]), a[1])
	th.checkSize(o.size)
	return r
}

// mapDelete removes a key from the unique map r.
func (th *Thread) mapDelete(name string, r Value, a [3]Value) Value {
	r.Object().Delete(th.strArg(name, a[0]))
	return r
}

// mapUpdate sets every key of a[0] in the unique map r.
func (th *Thread) mapUpdate(r Value, a [3]Value) Value {
	if a[0].k != KObject {
		th.Failf("update needs a map, got %s", a[0].typeName())
	}
	o, other := r.Object(), a[0].Object()
	for i, k := range other.keys {
		other.vals[i].share()
		o.Set(k, other.vals[i])
	}
	th.checkSize(o.size)
	return r
}
