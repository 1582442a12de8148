package eval

import (
	"math"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// The method tables of numbers, options, results and unit, and the
// methods of any value.

var numberMethods = []*Method{
	{Name: "abs", Sig: Signature{Result: "N"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.absValue(r) }},
	{Name: "min", Sig: Signature{Params: []Param{{Name: "other", Type: "int | float"}}, Result: "int | float", Notes: "the smaller of the two, the receiver on a tie"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], -1) }},
	{Name: "max", Sig: Signature{Params: []Param{{Name: "other", Type: "int | float"}}, Result: "int | float", Notes: "the larger of the two, the receiver on a tie"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], 1) }},
	{Name: "floor", Sig: Signature{Result: "int", Notes: "differs: the reference returns a float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("floor", []Value{r}, math.Floor) }},
	{Name: "ceil", Sig: Signature{Result: "int", Notes: "differs: the reference returns a float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("ceil", []Value{r}, math.Ceil) }},
	{Name: "round", Sig: Signature{Result: "int", Notes: "half away from zero (differs: the reference returns a float)",
		Overloads: []Signature{{Params: []Param{{Name: "digits", Type: "int"}}, Result: "float", Notes: "as round(x, digits)"}}},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if a[0].k != kAbsent {
				return th.roundDigits(r, a[0])
			}
			return th.roundWith("round", []Value{r}, math.Round)
		}},
	{Name: "sqrt", Sig: Signature{Result: "float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return biSqrt(th, []Value{r}) }},
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
	{Name: "is_some", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KSome) }},
	{Name: "is_none", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNone) }},
	{Name: "unwrap", Sig: Signature{Result: "T", Notes: "fails on None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "expect", Sig: Signature{Params: pStr("message"), Result: "T", Notes: "fails on None with message"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", Sig: Signature{Params: []Param{{Name: "default", Type: "T"}}, Result: "T"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", Sig: Signature{Result: "T | Unit", Notes: "Unit for None, as in the reference"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "Option[U]", Notes: "None passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to Option[U]"}}, Result: "Option[U]", Notes: "None passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "filter", Sig: Signature{Params: pPred, Result: "Option[T]", Notes: "None unless f is true of the value"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if r.k == KSome && th.predicate(a[0], r.Inner()) {
				return r
			}
			return None
		}},
}

var resultMethods = []*Method{
	{Name: "is_ok", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KOk) }},
	{Name: "is_err", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KErr) }},
	{Name: "ok", Sig: Signature{Result: "Option[T]", Notes: "Some(v) for Ok(v), None for Err"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return resultToOption(r) }},
	{Name: "err", Sig: Signature{Result: "Option[E]", Notes: "Some(e) for Err(e), None for Ok"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k == KErr {
				return Some(r.Inner())
			}
			return None
		}},
	{Name: "unwrap", Sig: Signature{Result: "T", Notes: "fails on Err, naming the error"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "unwrap_err", Sig: Signature{Result: "E", Notes: "fails on Ok, naming the value"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k != KErr {
				th.Failf("unwrap_err of %s", th.display(r))
			}
			return r.Inner()
		}},
	{Name: "expect", Sig: Signature{Params: pStr("message"), Result: "T", Notes: "fails on Err(e) with `message: e`"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", Sig: Signature{Params: []Param{{Name: "default", Type: "T"}}, Result: "T"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", Sig: Signature{Result: "T | Unit", Notes: "Unit for Err, as in the reference"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "Result[U, E]", Notes: "Err passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to Result[U, E]"}}, Result: "Result[U, E]", Notes: "Err passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "map_err", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(E) to F"}}, Result: "Result[T, F]", Notes: "Ok passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if r.k != KErr {
				return r
			}
			return ErrVal(th.call1(a[0], r.Inner()))
		}},
}

// unitMethods are the reference's JSON helpers on null, so that code
// walking a parsed document need not test for null first.
var unitMethods = []*Method{
	{Name: "has", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "false"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("has", a[0]); return False }},
	{Name: "get", Sig: Signature{Params: pStr("key"), Result: "Option[any]", Notes: "None"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("get", a[0]); return None }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[any]", Notes: "None"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.intArg("at", a[0]); return None }},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "None, except Some(Unit) for the whole document (\"\")"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
	{Name: "keys", Sig: Signature{Result: "Option[list[str]]", Notes: "None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
}

// holds reports whether an Option or Result holds a value (Some or Ok).
func holds(v Value) bool { return v.k == KSome || v.k == KOk }

// anyMethods apply to every receiver that has no method of the name.
var anyMethods = []*Method{
	{Name: "to_str", Sig: toStrSig,
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "to_string", Sig: Signature{Result: "str", Notes: "as to_str: lists and maps display as compact JSON, as the reference's to_string writes them"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "is_null", Sig: Signature{Result: "bool", Notes: "true for Unit only"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNull) }},
	{Name: "as_str", Sig: Signature{Result: "Option[str]", Notes: "Some for a str, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KStr) }},
	{Name: "as_int", Sig: Signature{Result: "Option[int]", Notes: "Some for an int, and for a float truncated toward zero when it fits; None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return asInt(r) }},
	{Name: "as_float", Sig: Signature{Result: "Option[float]", Notes: "Some for a float or an int; None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k == KInt || r.k == KFloat {
				return Some(Float(toFloat(r)))
			}
			return None
		}},
	{Name: "as_bool", Sig: Signature{Result: "Option[bool]", Notes: "Some for a bool, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KBool) }},
	{Name: "as_array", Sig: Signature{Result: "Option[list[any]]", Notes: "Some for a list, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KList) }},
	{Name: "as_object", Sig: Signature{Result: "Option[map[str, any]]", Notes: "Some for a map, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KObject) }},
}
