package eval

import (
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

func biPrint(th *Thread, args []Value) Value {
	if w := th.opts.Stdout; w != nil {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = th.display(a)
		}
		io.WriteString(w, strings.Join(parts, " ")+"\n")
		return Unit
	}
	th.Log(slog.LevelInfo, args)
	return Unit
}

// maxProgressReports bounds the progress notifications of one call, so
// that a loop reporting every step cannot flood its client.
const maxProgressReports = 10000

func biProgress(th *Thread, args []Value) Value {
	var nums [2]float64
	for i, name := range []string{"done", "total"} {
		v := args[i]
		if v.k != KInt && v.k != KFloat {
			th.Failf("progress: %s must be an int or float, got %s", name, v.typeName())
		}
		nums[i] = toFloat(v)
		if math.IsNaN(nums[i]) || math.IsInf(nums[i], 0) || nums[i] < 0 {
			th.Failf("progress: %s must be a finite number of at least 0, got %s", name, th.display(v))
		}
	}
	msg := ""
	if len(args) == 3 {
		if args[2].k != KStr {
			th.Failf("progress: message must be a str, got %s", args[2].typeName())
		}
		msg = args[2].Str()
	}
	report := th.opts.Progress
	if report == nil || th.progressReports >= maxProgressReports || th.progressReports > 0 && nums[0] <= th.lastProgress {
		return Unit
	}
	th.progressReports++
	th.lastProgress = nums[0]
	report(nums[0], nums[1], msg)
	return Unit
}

func biAssert(th *Thread, args []Value) Value {
	if args[0].k != KBool {
		th.Failf("assert needs a bool, got %s", args[0].typeName())
	}
	if args[0].n == 0 {
		if len(args) == 2 {
			th.Failf("assertion failed: %s", th.display(args[1]))
		}
		th.Failf("assertion failed")
	}
	return Unit
}

func biLen(th *Thread, args []Value) Value {
	return Int(int64(th.length(args[0])))
}

func (th *Thread) length(v Value) int {
	switch v.k {
	case KStr:
		th.charge(int64(v.n))
		return utf8.RuneCountInString(v.Str())
	case KList:
		return len(v.List().elems)
	case KTuple:
		return len(v.Tuple())
	case KObject:
		return v.Object().Len()
	}
	th.Failf("len of %s", v.typeName())
	return 0
}

func biStr(th *Thread, args []Value) Value {
	if args[0].k == KStr {
		return args[0]
	}
	return Str(th.display(args[0]))
}

func biInt(th *Thread, args []Value) Value {
	v := args[0]
	switch v.k {
	case KInt:
		return v
	case KFloat:
		return th.floatToInt("int", math.Trunc(v.Float()))
	case KDec:
		return th.decToInt(v.dec())
	case KBool:
		return Int(int64(v.n))
	case KStr:
		s := strings.TrimSpace(v.Str())
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			th.Failf("int: invalid literal %q", v.Str())
		}
		return Int(i)
	}
	th.Failf("int of %s", v.typeName())
	return Unit
}

func (th *Thread) floatToInt(name string, f float64) Value {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		th.Failf("%s: %s does not fit an int", name, displayFloat(f))
	}
	return Int(int64(f))
}

func biFloat(th *Thread, args []Value) Value {
	v := args[0]
	switch v.k {
	case KFloat:
		return v
	case KInt:
		return Float(float64(int64(v.n)))
	case KDec:
		return Float(v.dec().float())
	case KBool:
		return Float(float64(v.n))
	case KStr:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
		if err != nil {
			th.Failf("float: invalid literal %q", v.Str())
		}
		return Float(f)
	}
	th.Failf("float of %s", v.typeName())
	return Unit
}

func biDec(th *Thread, args []Value) Value {
	v := args[0]
	switch v.k {
	case KDec:
		return v
	case KInt:
		return decValue(decFromInt(int64(v.n)))
	case KFloat:
		return th.decFromFloat(v.Float())
	case KStr:
		if d, ok := ParseDecimal(v.Str()); ok {
			return d
		}
		th.Failf("dec: invalid decimal %q: digits with an optional sign and fraction, at most 28 after the point", v.Str())
	}
	th.Failf("dec of %s", v.typeName())
	return Unit
}

func biBool(th *Thread, args []Value) Value {
	return Bool(truthy(args[0]))
}

// truthy is what bool() returns: false for false, 0, 0.0, "", empty
// collections, None and Unit.
func truthy(v Value) bool {
	switch v.k {
	case KNull, KNone:
		return false
	case KBool, KInt:
		return v.n != 0
	case KFloat:
		return v.Float() != 0
	case KDec:
		return v.dec().coef.Sign() != 0
	case KStr:
		return v.n != 0
	case KList:
		return len(v.List().elems) > 0
	case KTuple:
		return len(v.Tuple()) > 0
	case KObject:
		return v.Object().Len() > 0
	}
	return true
}

func rangeArgs(th *Thread, args []Value) (start, stop, step int64) {
	for _, a := range args {
		if a.k != KInt {
			th.Failf("range needs ints, got %s", a.typeName())
		}
	}
	step = 1
	switch len(args) {
	case 1:
		stop = int64(args[0].n)
	case 2:
		start, stop = int64(args[0].n), int64(args[1].n)
	case 3:
		start, stop, step = int64(args[0].n), int64(args[1].n), int64(args[2].n)
		if step == 0 {
			th.Failf("range step must not be zero")
		}
	}
	return start, stop, step
}

func biRange(th *Thread, args []Value) Value {
	start, stop, step := rangeArgs(th, args)
	var n int64
	switch {
	case step > 0 && stop > start:
		n = (stop - start + step - 1) / step
	case step < 0 && stop < start:
		n = (start - stop - step - 1) / -step
	}
	if n < 0 || n > math.MaxInt64/16 {
		th.limit(LimitValueSize, th.opts.MaxValueBytes)
	}
	th.checkSize(16 * n)
	th.allocate(16 * n)
	elems := make([]Value, n)
	for i := range elems {
		elems[i] = Int(start + int64(i)*step)
	}
	return listValue(&List{elems: elems, size: 16 * n})
}

func biTypeOf(th *Thread, args []Value) Value {
	return Str(args[0].typeName())
}

func biAbs(th *Thread, args []Value) Value {
	return th.absValue(args[0])
}

func (th *Thread) absValue(v Value) Value {
	switch v.k {
	case KInt:
		i := int64(v.n)
		if i == math.MinInt64 {
			th.Failf("integer overflow: abs(%d)", i)
		}
		if i < 0 {
			return Int(-i)
		}
		return v
	case KFloat:
		return Float(math.Abs(v.Float()))
	}
	th.Failf("abs of %s", v.typeName())
	return Unit
}

// extremum implements min and max: of a list, or of the arguments.
func (th *Thread) extremum(name string, args []Value, sign int) Value {
	vals := args
	if len(args) == 1 {
		switch args[0].k {
		case KList:
			vals = args[0].List().elems
		case KTuple:
			vals = args[0].Tuple()
		}
	}
	if len(vals) == 0 {
		th.Failf("%s of an empty list", name)
	}
	return th.best(vals, sign)
}

// best is the smallest (sign -1) or largest (sign 1) of vals, the first
// on a tie; vals is not empty.
func (th *Thread) best(vals []Value, sign int) Value {
	best := vals[0]
	for _, v := range vals[1:] {
		if th.compare(th.callPos, syntax.LT, v, best)*sign > 0 {
			best = v
		}
	}
	return best
}

func biMin(th *Thread, args []Value) Value {
	return th.extremum("min", args, -1)
}
func biMax(th *Thread, args []Value) Value { return th.extremum("max", args, 1) }

func biSum(th *Thread, args []Value) Value {
	return th.sum("sum", th.listArg("sum", args[0]))
}

// sum adds numbers: ints with checked arithmetic, a float once any
// element is one.
func (th *Thread) sum(name string, elems []Value) Value {
	total := Int(0)
	for _, e := range elems {
		if e.k != KInt && e.k != KFloat {
			th.Failf("%s needs numbers, got %s", name, e.typeName())
		}
		total = th.arith(th.callPos, syntax.PLUS, total, e)
	}
	return total
}

func (th *Thread) listArg(name string, v Value) []Value {
	switch v.k {
	case KList:
		return v.List().elems
	case KTuple:
		return v.Tuple()
	}
	th.Failf("%s needs a list, got %s", name, v.typeName())
	return nil
}

func biSorted(th *Thread, args []Value) Value {
	return th.sortedList(th.listArg("sorted", args[0]))
}

func (th *Thread) sortedList(elems []Value) Value {
	th.allocate(16 * int64(len(elems)))
	if allInts(elems) {
		return listValue(&List{elems: th.sortedInts(elems, nil), size: 16 * int64(len(elems))})
	}
	out := slices.Clone(elems)
	if out == nil {
		out = []Value{}
	}
	th.sortValues(out)
	return NewList(out)
}

// sortedInts sorts the values of a list of ints into out (a new slice
// when nil). Equal ints cannot be told apart, so sorting their values
// (much faster than a stable sort of Values) is as good.
func (th *Thread) sortedInts(elems, out []Value) []Value {
	keys := make([]int64, len(elems))
	th.allocate(8 * int64(len(keys)))
	for i, v := range elems {
		keys[i] = int64(v.n)
	}
	slices.Sort(keys)
	if out == nil {
		out = make([]Value, len(keys))
	}
	for i, k := range keys {
		out[i] = Int(k)
	}
	return out
}

// sortValues sorts values in place, stably: numbers and strings compare.
func (th *Thread) sortValues(out []Value) {
	if allInts(out) {
		th.sortedInts(out, out)
		return
	}
	pos := th.callPos
	slices.SortStableFunc(out, func(a, b Value) int {
		if a.k == KInt && b.k == KInt {
			switch {
			case int64(a.n) < int64(b.n):
				return -1
			case int64(a.n) > int64(b.n):
				return 1
			}
			return 0
		}
		c := th.compare(pos, syntax.LT, a, b)
		if c == 2 {
			return 0
		}
		return c
	})
}

func allInts(vs []Value) bool {
	for _, v := range vs {
		if v.k != KInt {
			return false
		}
	}
	return true
}

func (th *Thread) roundWith(name string, args []Value, f func(float64) float64) Value {
	switch v := args[0]; v.k {
	case KInt:
		return v
	case KFloat:
		return th.floatToInt(name, f(v.Float()))
	}
	th.Failf("%s of %s", name, args[0].typeName())
	return Unit
}

func biFloor(th *Thread, args []Value) Value {
	return th.roundWith("floor", args, math.Floor)
}
func biCeil(th *Thread, args []Value) Value {
	return th.roundWith("ceil", args, math.Ceil)
}
func biRound(th *Thread, args []Value) Value {
	if len(args) == 2 {
		return th.roundDigits(args[0], args[1])
	}
	return th.roundWith("round", args, math.Round)
}

func biSqrt(th *Thread, args []Value) Value {
	switch v := args[0]; v.k {
	case KInt, KFloat:
		return Float(math.Sqrt(toFloat(v)))
	}
	th.Failf("sqrt of %s", args[0].typeName())
	return Unit
}
