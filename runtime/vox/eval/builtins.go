package eval

import (
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// The builtins, one entry each: name, signature and implementation. The
// resolver's universe, the interpreter's dispatch, the arity checks and
// the reference table in docs/vox-language.md all come from this table;
// adding a builtin is an entry here, its test and a sentence in the doc.
//
// A builtin's arguments are positional; the interpreter checks their
// number against the signature before the function runs, so an
// implementation indexes args without checking.
var builtins = []*BuiltinSpec{
	{Name: "print", fn: biPrint, Sig: Signature{
		Params: []Param{{Name: "values", Type: "any", Variadic: true}}, Result: "Unit",
		Notes: "writes the display forms, separated by spaces, to the server's log (stderr), never to stdout (differs: the reference prints to stdout); in a script run by `vox run FILE`, a line on stdout"}},
	{Name: "progress", fn: biProgress, Sig: Signature{
		Params: []Param{{Name: "done", Type: "int | float"}, {Name: "total", Type: "int | float"}, {Name: "message", Type: "str", Optional: true, Default: `""`}}, Result: "Unit",
		Notes: "tells the client that called the tool how far it is (MCP `notifications/progress`, when the client sent a progress token; total 0 when unknown); a report whose done does not exceed the last one's is dropped, and so is every one after the 10,000th of a call; nothing elsewhere (`vox run`, resources) (extension)"}},
	{Name: "elicit", fn: biElicit, Sig: Signature{
		Params: []Param{{Name: "message", Type: "str"}, {Name: "schema", Type: "map[str, any]"}, {Name: "key", Type: "str", Optional: true, Default: `""`}}, Result: "map[str, any]",
		Notes: "asks the user of the client that called the tool (MCP `elicitation/create`): schema is a flat object of primitive properties as MCP allows, checked before it is sent; the result is `{action, content}`, action `\"accept\"`, `\"decline\"` or `\"cancel\"` and content the answer checked against the schema (`{}` unless accepted); the client must have declared elicitation; the call's limits pause while it waits, up to wait_ms; key names the request in the inputRequests of protocol 2026-07-28 (default `vox-<n>`, n counting the call's questions) (extension)"}},
	{Name: "sample", fn: biSample, Sig: Signature{
		Params: []Param{{Name: "messages", Type: "str | list[any]"}, {Name: "max_tokens", Type: "int"}, {Name: "system", Type: "str", Optional: true, Default: `""`}, {Name: "key", Type: "str", Optional: true, Default: `""`}}, Result: "map[str, any]",
		Notes: "asks the client's model (MCP `sampling/createMessage`): messages is a str (the user's) or a list of str and `{role, content}` maps, content a str or content.text/image/audio; the result is `{role, content, text, model, stop_reason}`, text the reply's text (`\"\"` when it is not text); the client must have declared sampling; waits and takes a key as elicit (extension)"}},
	{Name: "roots", fn: biRoots, Sig: Signature{
		Params: []Param{{Name: "key", Type: "str", Optional: true, Default: `""`}}, Result: "list[map[str, str]]",
		Notes: "asks the client for its roots (MCP `roots/list`): a list of `{uri, name}` (name `\"\"` when it has none); the client must have declared roots; waits and takes a key as elicit (extension)"}},
	{Name: "ask_all", fn: biAskAll, Sig: Signature{
		Params: []Param{{Name: "requests", Type: "map[str, map[str, any]]"}}, Result: "map[str, any]",
		Notes: "asks several questions at once, by key: `{elicit: message, schema: {...}}`, `{sample: messages, max_tokens: n, system?: str}` or `{roots: true}`; the result maps each key to what elicit, sample or roots would return; under protocol 2026-07-28 they go out in one input_required result under their keys, before it one after another (extension)"}},
	{Name: "client_has", fn: biClientHas, Sig: Signature{
		Params: []Param{{Name: "capability", Type: "str"}}, Result: "bool",
		Notes: "whether the client that called the tool or prompt declared the capability `\"elicitation\"`, `\"sampling\"` or `\"roots\"` (at initialize, or in the request's _meta under protocol 2026-07-28), so a tool asks only what it may; false elsewhere (`vox run`, resources) (extension)"}},
	{Name: "close_stream", fn: biCloseStream, Sig: Signature{
		Result: "bool",
		Notes:  "ends the event stream that answers the call while the call goes on (SSE polling, SEP-1699): the client, primed with an event id and a retry delay, resumes the stream with `Last-Event-ID` and receives the rest of the call — its notifications and its result — there; true when it did, false where the client cannot resume: stdio, `vox run`, protocol 2026-07-28, a session that negotiated a version before 2025-11-25, or a response that is no event stream yet (call it after the call sent something, such as a `print`) (extension)"}},
	{Name: "assert", fn: biAssert, Sig: Signature{
		Params: []Param{{Name: "cond", Type: "bool"}, {Name: "message", Type: "any", Optional: true}}, Result: "Unit",
		Notes: "fails the call with `assertion failed: <message>` when cond is false"}},
	{Name: "len", fn: biLen, Sig: Signature{
		Params: []Param{{Name: "x", Type: "str | list[T] | tuple | map[str, V]"}}, Result: "int",
		Notes: "characters of a string (differs: the reference counts bytes), elements of a list or tuple, keys of a map"}},
	{Name: "str", fn: biStr, Sig: Signature{
		Params: []Param{{Name: "x", Type: "any"}}, Result: "str",
		Notes: "the display form"}},
	{Name: "int", fn: biInt, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float | dec | bool | str"}}, Result: "int",
		Notes: "truncates a float or a dec toward zero; parses a decimal string and fails on anything else (differs: the reference gives 0 for `int(\"x\")`; parse_int returns a Result)"}},
	{Name: "float", fn: biFloat, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float | dec | bool | str"}}, Result: "float",
		Notes: "parses a string and fails when it is not a number (differs: the reference gives 0.0)"}},
	{Name: "dec", fn: biDec, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float | dec | str"}}, Result: "dec",
		Notes: "exact from an int or a string of digits (`dec(\"19.99\")`); a float by its shortest form (`dec(0.1)` is `0.1dec`)"}},
	{Name: "bool", fn: biBool, Sig: Signature{
		Params: []Param{{Name: "x", Type: "any"}}, Result: "bool",
		Notes: "false for `false 0 0.0 \"\" [] {} None Unit`, true otherwise (differs: the reference makes `{}`, `None` and `Err` true)"}},
	{Name: "range", fn: biRange, Sig: Signature{
		Params: []Param{{Name: "a", Type: "int"}, {Name: "b", Type: "int", Optional: true}, {Name: "step", Type: "int", Optional: true}}, Result: "list[int]",
		Notes: "`range(n)` is 0..n-1, `range(a, b)` a..b-1, `range(a, b, step)` by step (not 0; extension); a `for` over it builds no list"}},
	{Name: "type_of", fn: biTypeOf, Sig: Signature{
		Params: []Param{{Name: "x", Type: "any"}}, Result: "str",
		Notes: "`int float dec str bool Unit list tuple map Option Result fn` or the name of the value's declared type (differs: the reference says `List Object Tuple null`)"}},
	{Name: "abs", fn: biAbs, Sig: Signature{
		Params: []Param{{Name: "x", Type: "N: int | float"}}, Result: "N",
		Notes: "fails on the int overflow of `abs` of the smallest int"}},
	{Name: "min", fn: biMin, Sig: Signature{
		Params: []Param{{Name: "values", Type: "T", Variadic: true, Min: 1}}, Result: "T",
		Notes: "of one list or tuple argument, or of several arguments; fails when empty (differs: the reference gives null); numbers and strings compare"}},
	{Name: "max", fn: biMax, Sig: Signature{
		Params: []Param{{Name: "values", Type: "T", Variadic: true, Min: 1}}, Result: "T",
		Notes: "as min"}},
	{Name: "sum", fn: biSum, Sig: Signature{
		Params: []Param{{Name: "xs", Type: "list[N: int | float]"}}, Result: "N",
		Notes: "0 for an empty list; a float when any element is one; fails on an element that is not a number (the reference skips it)"}},
	{Name: "sorted", fn: biSorted, Sig: Signature{
		Params: []Param{{Name: "xs", Type: "list[T]"}}, Result: "list[T]",
		Notes: "a new list, stable; numbers (ints with floats too) and strings (byte order) compare, other pairs fail (differs: the reference treats them as equal)"}},
	{Name: "floor", fn: biFloor, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float"}}, Result: "int",
		Notes: "differs: the reference returns a float"}},
	{Name: "ceil", fn: biCeil, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float"}}, Result: "int",
		Notes: "differs: the reference returns a float"}},
	{Name: "round", fn: biRound, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float"}}, Result: "int",
		Notes: "half away from zero (differs: the reference returns a float)",
		Overloads: []Signature{{
			Params: []Param{{Name: "x", Type: "int | float"}, {Name: "digits", Type: "int"}}, Result: "float",
			Notes: "to digits decimals (negative: to tens, hundreds, ...), half away from zero on the shortest decimal form: `round(2.675, 2)` is 2.68 (extension)"}}}},
	{Name: "sqrt", fn: biSqrt, Sig: Signature{
		Params: []Param{{Name: "x", Type: "int | float"}}, Result: "float"}},
	{Name: "chr", fn: biChr, Sig: Signature{
		Params: []Param{{Name: "code", Type: "int"}}, Result: "str",
		Notes: "the character of a Unicode code point; U+FFFD for a number that is not one"}},
	{Name: "parse_int", fn: biParseInt, Sig: Signature{
		Params: []Param{{Name: "s", Type: "str"}, {Name: "base", Type: "int", Optional: true, Default: "10"}}, Result: "Result[int, str]",
		Notes: "white space around the digits is ignored, a sign allowed; base 2 to 36; Err names the text (extension)"}},
	{Name: "parse_float", fn: biParseFloat, Sig: Signature{
		Params: []Param{{Name: "s", Type: "str"}}, Result: "Result[float, str]",
		Notes: "decimal or exponent notation, `inf` and `NaN`; white space around it is ignored; Err names the text (extension)"}},
	{Name: "format", fn: biFormat, Sig: Signature{
		Params: []Param{{Name: "fmt", Type: "str"}, {Name: "args", Type: "any", Variadic: true}}, Result: "str",
		Notes: "Rust's format syntax: `{}` the next argument, `{1}` by position, `{:>8}` `{:<8}` `{:^8}` `{:*>8}` aligned and filled, `{:08.2}` zero-padded with 2 decimals, `{:+}`, `{:x}` `{:X}` `{:o}` `{:b}` `{:e}`, `{:?}` quoted, `{{` `}}` literal braces; every argument must be used (extension)"}},
	{Name: "Unit", Value: true, Sig: Signature{Result: "Unit",
		Notes: "the null value"}},
	{Name: "null", Value: true, Sig: Signature{Result: "Unit",
		Notes: "the reference's name of Unit"}},
}

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
