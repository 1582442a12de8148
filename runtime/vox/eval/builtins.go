package eval

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// builtinFn implements a builtin function; names gives argument names
// (nil when all are positional).
type builtinFn func(th *Thread, args []Value, names []string) Value

// builtinFns is aligned with builtinNames; nil entries are values (Unit).
var builtinFns []builtinFn

// builtinValues are the builtins as first-class values.
var builtinValues []Value

func init() {
	table := map[string]builtinFn{
		"print": biPrint, "assert": biAssert, "len": biLen, "str": biStr, "int": biInt,
		"float": biFloat, "bool": biBool, "range": biRange, "type_of": biTypeOf, "abs": biAbs,
		"min": biMin, "max": biMax, "sum": biSum, "sorted": biSorted, "floor": biFloor,
		"ceil": biCeil, "round": biRound, "sqrt": biSqrt,
	}
	builtinFns = make([]builtinFn, len(builtinNames))
	builtinValues = make([]Value, len(builtinNames))
	for i, name := range builtinNames {
		f := table[name]
		builtinFns[i] = f
		if f == nil {
			continue // Unit
		}
		builtinValues[i] = builtinValue(&Builtin{name: name, fn: func(th *Thread, _ *Builtin, args []Value, names []string) Value {
			return f(th, args, names)
		}})
	}
}

// want checks the number of arguments of a builtin.
func (th *Thread) want(name string, args []Value, names []string, min, max int) {
	for _, n := range names {
		if n != "" {
			th.Failf("%s: unknown argument %s", name, n)
		}
	}
	switch {
	case len(args) < min && min == max:
		th.Failf("%s takes %d argument(s), got %d", name, min, len(args))
	case len(args) < min:
		th.Failf("%s takes at least %d argument(s), got %d", name, min, len(args))
	case len(args) > max:
		th.Failf("%s takes at most %d argument(s), got %d", name, max, len(args))
	}
}

func biPrint(th *Thread, args []Value, names []string) Value {
	th.want("print", args, names, 0, math.MaxInt)
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = th.display(a)
	}
	if log := th.opts.Log; log != nil {
		log.LogAttrs(context.Background(), slog.LevelInfo, strings.Join(parts, " "), slog.String("vox_path", th.prog.path))
	}
	return Unit
}

func biAssert(th *Thread, args []Value, names []string) Value {
	th.want("assert", args, names, 1, 2)
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

func biLen(th *Thread, args []Value, names []string) Value {
	th.want("len", args, names, 1, 1)
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

func biStr(th *Thread, args []Value, names []string) Value {
	th.want("str", args, names, 1, 1)
	if args[0].k == KStr {
		return args[0]
	}
	return Str(th.display(args[0]))
}

func biInt(th *Thread, args []Value, names []string) Value {
	th.want("int", args, names, 1, 1)
	v := args[0]
	switch v.k {
	case KInt:
		return v
	case KFloat:
		return th.floatToInt("int", math.Trunc(v.Float()))
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

func biFloat(th *Thread, args []Value, names []string) Value {
	th.want("float", args, names, 1, 1)
	v := args[0]
	switch v.k {
	case KFloat:
		return v
	case KInt:
		return Float(float64(int64(v.n)))
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

func biBool(th *Thread, args []Value, names []string) Value {
	th.want("bool", args, names, 1, 1)
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

func biRange(th *Thread, args []Value, names []string) Value {
	th.want("range", args, names, 1, 3)
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
	th.charge(16 * n)
	elems := make([]Value, n)
	for i := range elems {
		elems[i] = Int(start + int64(i)*step)
	}
	return listValue(&List{elems: elems, size: 16 * n})
}

func biTypeOf(th *Thread, args []Value, names []string) Value {
	th.want("type_of", args, names, 1, 1)
	return Str(args[0].typeName())
}

func biAbs(th *Thread, args []Value, names []string) Value {
	th.want("abs", args, names, 1, 1)
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
func (th *Thread) extremum(name string, args []Value, names []string, sign int) Value {
	th.want(name, args, names, 1, math.MaxInt)
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
	best := vals[0]
	for _, v := range vals[1:] {
		if th.compare(th.callPos, syntax.LT, v, best)*sign > 0 {
			best = v
		}
	}
	return best
}

func biMin(th *Thread, args []Value, names []string) Value {
	return th.extremum("min", args, names, -1)
}
func biMax(th *Thread, args []Value, names []string) Value { return th.extremum("max", args, names, 1) }

func biSum(th *Thread, args []Value, names []string) Value {
	th.want("sum", args, names, 1, 1)
	elems := th.listArg("sum", args[0])
	total := Int(0)
	for _, e := range elems {
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

func biSorted(th *Thread, args []Value, names []string) Value {
	th.want("sorted", args, names, 1, 1)
	return th.sortedList(th.listArg("sorted", args[0]))
}

func (th *Thread) sortedList(elems []Value) Value {
	out := slices.Clone(elems)
	th.charge(16 * int64(len(out)))
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
	return NewList(out)
}

func (th *Thread) roundWith(name string, args []Value, names []string, f func(float64) float64) Value {
	th.want(name, args, names, 1, 1)
	switch v := args[0]; v.k {
	case KInt:
		return v
	case KFloat:
		return th.floatToInt(name, f(v.Float()))
	}
	th.Failf("%s of %s", name, args[0].typeName())
	return Unit
}

func biFloor(th *Thread, args []Value, names []string) Value {
	return th.roundWith("floor", args, names, math.Floor)
}
func biCeil(th *Thread, args []Value, names []string) Value {
	return th.roundWith("ceil", args, names, math.Ceil)
}
func biRound(th *Thread, args []Value, names []string) Value {
	return th.roundWith("round", args, names, math.Round)
}

func biSqrt(th *Thread, args []Value, names []string) Value {
	th.want("sqrt", args, names, 1, 1)
	switch v := args[0]; v.k {
	case KInt, KFloat:
		return Float(math.Sqrt(toFloat(v)))
	}
	th.Failf("sqrt of %s", args[0].typeName())
	return Unit
}
