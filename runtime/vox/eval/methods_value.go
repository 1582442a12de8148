package eval

import (
	"math"

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
	{Name: "at", fn: func(th *Thread, r Value, a [3]Value) Value { th.intArg("at", a[0]); return None }},
	{Name: "pointer", fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "length", fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
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
}
