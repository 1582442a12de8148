package eval

import "slices"

// The method table of maps, with the in-place updates of the methods
// that change their receiver.

var mapMethods = []*Method{
	{Name: "keys", Sig: Signature{Result: "list[str]", Notes: "in insertion order"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.strList(r.Object().keys, 0) }},
	{Name: "values", Sig: Signature{Result: "list[V]", Notes: "in insertion order"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			o := r.Object()
			th.allocate(16 * int64(len(o.vals)))
			return NewList(slices.Clone(o.vals))
		}},
	{Name: "items", Sig: Signature{Result: "list[list[str | V]]", Notes: "[key, value] pairs in insertion order; also entries"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.items(r.Object()) }},
	{Name: "entries", Sig: Signature{Result: "list[list[str | V]]", Notes: "as items"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.items(r.Object()) }},
	{Name: "has", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "also contains_key, has_key"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has", r, a[0]) }},
	{Name: "contains_key", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "as has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("contains_key", r, a[0]) }},
	{Name: "has_key", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "as has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has_key", r, a[0]) }},
	{Name: "get", Sig: Signature{Params: pStr("key"), Result: "Option[V]",
		Overloads: []Signature{{Params: pKeyDefault, Result: "V", Notes: "the value, or default when the key is missing"}}},
		fn: func(th *Thread, r Value, a [3]Value) Value {
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
		}},
	{Name: "get_or", Sig: Signature{Params: pKeyDefault, Result: "V", Notes: "as get(key, default)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if v, ok := r.Object().Get(th.strArg("get_or", a[0])); ok {
				return v
			}
			return a[1]
		}},
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(r.Object().Len())) }},
	{Name: "is_empty", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.Object().Len() == 0) }},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "Some(len): the reference's JSON helper"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Some(Int(int64(r.Object().Len()))) }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[V]", Notes: "None: a map has no positions (the reference's JSON helper)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.intArg("at", a[0]); return None }},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "the value at a JSON Pointer (RFC 6901) such as `/items/0/name`; None when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "insert", Sig: Signature{Params: pKV, Result: "map[str, V]", Notes: "the map with key set to value (a key it has keeps its place)"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", r, a) }},
	{Name: "set", Sig: Signature{Params: pKV, Result: "map[str, V]", Notes: "as insert"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", r, a) }},
	{Name: "remove", Sig: Signature{Params: pStr("key"), Result: "map[str, V]", Notes: "the map without key (unchanged when it lacks it)"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", r, a) }},
	{Name: "delete", Sig: Signature{Params: pStr("key"), Result: "map[str, V]", Notes: "as remove"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", r, a) }},
	{Name: "update", Sig: Signature{Params: []Param{{Name: "other", Type: "map[str, V]"}}, Result: "map[str, V]", Notes: "the map with every key of other set to other's value"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(r, a) }},
}

var pKV = []Param{{Name: "key", Type: "str"}, {Name: "value", Type: "V"}}

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
