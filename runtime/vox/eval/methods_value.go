package eval

import (
	"math"
	"strconv"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// The method tables of numbers, options, results and unit, and the
// methods of any value.

var numberMethods = []*Method{
	{Name: "abs", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.absValue(r) }},
	{Name: "min", fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], -1) }},
	{Name: "max", fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], 1) }},
	{Name: "floor", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("floor", []Value{r}, math.Floor) }},
	{Name: "ceil", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("ceil", []Value{r}, math.Ceil) }},
	{Name: "round", fn: func(th *Thread, r Value, a [3]Value) Value {
		if a[0].k != kAbsent {
			return th.roundDigits(r, a[0])
		}
		return th.roundWith("round", []Value{r}, math.Round)
	}},
	{Name: "sqrt", fn: func(th *Thread, r Value, _ [3]Value) Value { return biSqrt(th, []Value{r}) }},
}

// pick implements min and max of numbers: other when it compares before
// (sign -1) or after (sign 1) recv.
func (th *Thread) pick(recv, other Value, sign int) Value {
	if th.compare(th.callPos, syntax.LT, other, recv)*sign > 0 {
		return other
	}
	return recv
}

var optionMethods = []*Method{
	{Name: "is_some", fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KSome) }},
	{Name: "is_none", fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNone) }},
	{Name: "unwrap", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "expect", fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "filter", fn: func(th *Thread, r Value, a [3]Value) Value {
		if r.k == KSome && th.predicate(a[0], r.Inner()) {
			return r
		}
		return None
	}},
}

var resultMethods = []*Method{
	{Name: "is_ok", fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KOk) }},
	{Name: "is_err", fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KErr) }},
	{Name: "ok", fn: func(th *Thread, r Value, _ [3]Value) Value { return resultToOption(r) }},
	{Name: "err", fn: func(th *Thread, r Value, _ [3]Value) Value {
		if r.k == KErr {
			return Some(r.Inner())
		}
		return None
	}},
	{Name: "unwrap", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "unwrap_err", fn: func(th *Thread, r Value, _ [3]Value) Value {
		if r.k != KErr {
			th.Failf("unwrap_err of %s", th.display(r))
		}
		return r.Inner()
	}},
	{Name: "expect", fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "map_err", fn: func(th *Thread, r Value, a [3]Value) Value {
		if r.k != KErr {
			return r
		}
		return ErrVal(th.call1(a[0], r.Inner()))
	}},
}

// unitMethods are the reference's JSON helpers on null, so that code
// walking a parsed document need not test for null first.
var unitMethods = []*Method{
	{Name: "has", fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("has", a[0]); return False }},
	{Name: "get", fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("get", a[0]); return None }},
	{Name: "at", fn: func(th *Thread, r Value, a [3]Value) Value { return th.jsonAt(r, a[0]) }},
	{Name: "pointer", fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "length", fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(0) }},
	{Name: "keys", fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
}

// holds reports whether an Option or Result holds a value (Some or Ok).
func holds(v Value) bool { return v.k == KSome || v.k == KOk }

// anyMethods apply to every receiver that has no method of the name.
var anyMethods = []*Method{
	{Name: "to_str",
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "to_string", fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "is_null", fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNull) }},
	{Name: "as_str", fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KStr) }},
	{Name: "as_int", fn: func(th *Thread, r Value, _ [3]Value) Value { return asInt(r) }},
	{Name: "as_float", fn: func(th *Thread, r Value, _ [3]Value) Value {
		if r.k == KInt || r.k == KFloat {
			return Some(Float(toFloat(r)))
		}
		return None
	}},
	{Name: "as_bool", fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KBool) }},
	{Name: "as_array", fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KList) }},
	{Name: "as_object", fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KObject) }},
	{Name: "get_str", fn: func(th *Thread, r Value, a [3]Value) Value {
		return th.jsonGet(r, a[0], "get_str", "a string", func(v Value) bool { return v.k == KStr })
	}},
	{Name: "get_int", fn: func(th *Thread, r Value, a [3]Value) Value {
		return th.jsonGet(r, a[0], "get_int", "an integer", func(v Value) bool { return v.k == KInt })
	}},
	{Name: "get_float", fn: func(th *Thread, r Value, a [3]Value) Value {
		v := th.jsonGet(r, a[0], "get_float", "a number", func(v Value) bool { return v.k == KFloat || v.k == KInt })
		if v.k == KOk && v.Inner().k == KInt {
			return OkVal(Float(float64(v.Inner().Int())))
		}
		return v
	}},
	{Name: "get_bool", fn: func(th *Thread, r Value, a [3]Value) Value {
		return th.jsonGet(r, a[0], "get_bool", "a bool", func(v Value) bool { return v.k == KBool })
	}},
	{Name: "get_object", fn: func(th *Thread, r Value, a [3]Value) Value {
		return th.jsonGet(r, a[0], "get_object", "an object", func(v Value) bool { return v.k == KObject })
	}},
	{Name: "get_array", fn: func(th *Thread, r Value, a [3]Value) Value {
		return th.jsonGet(r, a[0], "get_array", "an array", func(v Value) bool { return v.k == KList })
	}},
}

// jsonGet is the reference's Json.get_<kind>(key): Ok(member key of the
// object r) when ok holds of it, else Err naming what went wrong, with
// the reference's texts.
func (th *Thread) jsonGet(r, key Value, method, what string, ok func(Value) bool) Value {
	k := th.strArg(method, key)
	if r.k != KObject {
		return ErrVal(Str("json: receiver is not an object"))
	}
	v, found := r.Object().Get(k)
	switch {
	case !found:
		return ErrVal(Str("json: missing key '" + k + "'"))
	case !ok(v):
		return ErrVal(Str("json: key '" + k + "' is not " + what))
	}
	return OkVal(v)
}

// jsonAt is the reference's Json.at(i): Ok(element i) of a list, else Err
// with the reference's texts.
func (th *Thread) jsonAt(r, idx Value) Value {
	i := th.intArg("at", idx)
	if r.k != KList {
		return ErrVal(Str("json: receiver is not an array"))
	}
	elems := r.List().elems
	switch {
	case i < 0:
		return ErrVal(Str("json: negative array index " + strconv.FormatInt(i, 10)))
	case i >= int64(len(elems)):
		return ErrVal(Str("json: index " + strconv.FormatInt(i, 10) + " out of bounds (len=" + strconv.Itoa(len(elems)) + ")"))
	}
	return OkVal(elems[i])
}
