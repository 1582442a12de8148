package eval

import (
	"math"
	"strconv"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The methods of numbers, options, results and unit, and the methods of
// any value: each function is named by the impl of its row in the library
// contract (methodTables, library.gen.go, binds it).

func numAbs(th *Thread, r Value, _ [3]Value) Value { return th.absValue(r) }

func numMin(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], -1) }

func numMax(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], 1) }

func numFloor(th *Thread, r Value, _ [3]Value) Value {
	return th.roundWith("floor", []Value{r}, math.Floor)
}

func numCeil(th *Thread, r Value, _ [3]Value) Value {
	return th.roundWith("ceil", []Value{r}, math.Ceil)
}

func numRound(th *Thread, r Value, a [3]Value) Value {
	if a[0].k != kAbsent {
		return th.roundDigits(r, a[0])
	}
	return th.roundWith("round", []Value{r}, math.Round)
}

func numSqrt(th *Thread, r Value, _ [3]Value) Value { return biSqrt(th, []Value{r}) }

// pick implements min and max of numbers: other when it compares before
// (sign -1) or after (sign 1) recv.
func (th *Thread) pick(recv, other Value, sign int) Value {
	if th.compare(th.callPos, syntax.LT, other, recv)*sign > 0 {
		return other
	}
	return recv
}

func optionIsSome(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KSome) }

func optionIsNone(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNone) }

func optionUnwrap(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }

func optionExpect(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }

func optionUnwrapOr(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }

func optionUnwrapOrDefault(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }

func optionMap(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }

func optionAndThen(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }

func optionFilter(th *Thread, r Value, a [3]Value) Value {
	if r.k == KSome && th.predicate(a[0], r.Inner()) {
		return r
	}
	return None
}

func resultIsOk(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KOk) }

func resultIsErr(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KErr) }

func resultOk(th *Thread, r Value, _ [3]Value) Value { return resultToOption(r) }

func resultErr(th *Thread, r Value, _ [3]Value) Value {
	if r.k == KErr {
		return Some(r.Inner())
	}
	return None
}

func resultUnwrap(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }

func resultUnwrapErr(th *Thread, r Value, _ [3]Value) Value {
	if r.k != KErr {
		th.Failf("unwrap_err of %s", th.display(r))
	}
	return r.Inner()
}

func resultExpect(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }

func resultUnwrapOr(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }

func resultUnwrapOrDefault(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }

func resultMap(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }

func resultAndThen(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }

func resultMapErr(th *Thread, r Value, a [3]Value) Value {
	if r.k != KErr {
		return r
	}
	return ErrVal(th.call1(a[0], r.Inner()))
}

// The methods of Unit are the reference's JSON helpers on null, so that
// code walking a parsed document need not test for null first.
func unitHas(th *Thread, r Value, a [3]Value) Value { th.strArg("has", a[0]); return False }

func unitGet(th *Thread, r Value, a [3]Value) Value { th.strArg("get", a[0]); return None }

func unitAt(th *Thread, r Value, a [3]Value) Value { return th.jsonAt(r, a[0]) }

func unitPointer(th *Thread, r Value, a [3]Value) Value {
	return th.pointer(r, th.strArg("pointer", a[0]))
}

func unitLength(th *Thread, r Value, _ [3]Value) Value { return Int(0) }

func unitKeys(th *Thread, r Value, _ [3]Value) Value { return None }

// holds reports whether an Option or Result holds a value (Some or Ok).
func holds(v Value) bool { return v.k == KSome || v.k == KOk }

// The methods of any apply to every receiver that has no method of the
// name.
func anyToStr(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }

func anyIsNull(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNull) }

func anyAsStr(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KStr) }

func anyAsInt(th *Thread, r Value, _ [3]Value) Value { return asInt(r) }

func anyAsFloat(th *Thread, r Value, _ [3]Value) Value {
	if r.k == KInt || r.k == KFloat {
		return Some(Float(toFloat(r)))
	}
	return None
}

func anyAsBool(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KBool) }

func anyAsArray(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KList) }

func anyAsObject(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KObject) }

func anyGetStr(th *Thread, r Value, a [3]Value) Value {
	return th.jsonGet(r, a[0], "get_str", "a string", func(v Value) bool { return v.k == KStr })
}

func anyGetInt(th *Thread, r Value, a [3]Value) Value {
	return th.jsonGet(r, a[0], "get_int", "an integer", func(v Value) bool { return v.k == KInt })
}

func anyGetFloat(th *Thread, r Value, a [3]Value) Value {
	v := th.jsonGet(r, a[0], "get_float", "a number", func(v Value) bool { return v.k == KFloat || v.k == KInt })
	if v.k == KOk && v.Inner().k == KInt {
		return OkVal(Float(float64(v.Inner().Int())))
	}
	return v
}

func anyGetBool(th *Thread, r Value, a [3]Value) Value {
	return th.jsonGet(r, a[0], "get_bool", "a bool", func(v Value) bool { return v.k == KBool })
}

func anyGetObject(th *Thread, r Value, a [3]Value) Value {
	return th.jsonGet(r, a[0], "get_object", "an object", func(v Value) bool { return v.k == KObject })
}

func anyGetArray(th *Thread, r Value, a [3]Value) Value {
	return th.jsonGet(r, a[0], "get_array", "an array", func(v Value) bool { return v.k == KList })
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
