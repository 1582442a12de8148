package eval

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The JSON bridge: arguments arrive as a JSON object and are decoded
// exactly (integral numbers that fit are Int, objects keep their order),
// checked against the declared parameter types and bound; results go back
// as compact JSON.

// Result is the outcome of a successful call.
type Result struct {
	JSON []byte // compact JSON of the result (Ok and Some unwrapped, None is null)
	Text string // the string itself for a Str result, else JSON
	// Allocated is the bytes of values the call allocated (counted
	// against max_alloc_bytes), set whether or not it failed.
	Allocated int64
	// Steps is the steps the call took (the step limit counts them).
	Steps int64
	// Reads are the files the call read (Thread.NoteRead), in order.
	Reads []string
	// Shape is how the result leaves a tool call, from the function's
	// declared result type (docs/tool-results.md §2): for the content
	// shapes Blocks holds the checked blocks; for Structured, JSON is an
	// object that matches the declared type.
	Shape  schema.Shape
	Blocks []content.Block
	// Messages are the checked messages of a prompt called with
	// Options.Messages.
	Messages []content.Message
}

// Run calls the module function fnName with JSON arguments. When resource
// is set the function must return Str or Ok(Str).
func (p *Program) Run(ctx context.Context, fnName string, args []byte, opts *Options, resource bool) (Result, error) {
	th := newThread(ctx, p, opts)
	var res Result
	_, err := th.run(func() Value {
		f, ok := p.Func(fnName)
		if !ok {
			panic(&Error{Kind: RuntimeError, Message: "undefined: " + fnName})
		}
		if f.unavailable != nil {
			panic(&Error{Kind: RuntimeError, Message: fmt.Sprintf("%s is unavailable: %s at line %d:%d", f.name, f.unavailable.Reason, f.unavailable.Pos.Line, f.unavailable.Pos.Col),
				Path: p.path, Line: int(f.unavailable.Pos.Line), Col: int(f.unavailable.Pos.Col)})
		}
		slots := th.alloc(f.nlocals)
		th.bindJSON(f, slots, args)
		v := th.invoke(f, slots, nil)
		res = th.encodeResult(f, v, resource)
		if opts.Messages && f.rf != nil && f.rf.Result != nil {
			res.Messages = th.promptMessages(f.rf.Result.Pos, v)
		} else if !resource && f.rf != nil && f.rf.Result != nil {
			th.shapeResult(&res, v, f.rf.Result)
		}
		return v
	})
	res.Allocated, res.Steps = th.allocated, th.steps
	if len(th.reads) > 0 {
		res.Reads = slices.Clone(th.reads)
	}
	th.recycle(err)
	return res, err
}

func argError(format string, args ...any) {
	panic(&Error{Kind: ArgumentError, Message: fmt.Sprintf(format, args...)})
}

// bindJSON decodes the arguments object into the parameter slots of f.
func (th *Thread) bindJSON(f *Func, slots []Value, data []byte) {
	var obj *Object
	if len(bytes.TrimSpace(data)) == 0 {
		obj = &Object{}
	} else {
		v, err := DecodeJSON(data, th.opts.MaxValueBytes)
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind == LimitError {
				th.limit(LimitValueSize, th.opts.MaxValueBytes)
			}
			argError("invalid JSON arguments: %v", err)
		}
		if v.k != KObject {
			argError("arguments must be a JSON object, got %s", jsonKind(v))
		}
		obj = v.Object()
	}
	params := f.params
	for _, k := range obj.keys {
		found := false
		for _, p := range params {
			if p.Name == k {
				found = true
				break
			}
		}
		if !found {
			argError("unknown argument: %s", k)
		}
	}
	for j, p := range params {
		v, ok := obj.Get(p.Name)
		if !ok {
			switch {
			case p.Default != nil:
				slots[j] = th.callDefault(f, j)
			case isOption(p.Type):
				slots[j] = None
			default:
				argError("missing argument: %s", p.Name)
			}
			continue
		}
		slots[j] = th.convertArg(p.Name, p.Type, v, 0)
	}
}

func isOption(t *syntax.Type) bool { return t.IsNamed("Option") }

// jsonKind names the JSON type of a decoded value.
func jsonKind(v Value) string {
	switch v.k {
	case KNull, KNone:
		return "null"
	case KBool:
		return "boolean"
	case KInt:
		return "integer"
	case KFloat:
		return "number"
	case KStr:
		return "string"
	case KList, KTuple:
		return "array"
	case KObject:
		return "object"
	}
	return v.typeName()
}

// convertArg checks a decoded argument against its declared type.
func (th *Thread) convertArg(path string, t *syntax.Type, v Value, depth int) Value {
	if t == nil || depth > maxNesting {
		return v
	}
	bad := func() {
		argError("argument %s: want %s, got %s", path, t, jsonKind(v))
	}
	arg := func(i int) *syntax.Type {
		if i < len(t.Args) {
			return t.Args[i]
		}
		return nil
	}
	switch t.Kind {
	case syntax.TupleType:
		if len(t.Args) == 0 {
			if v.k != KNull {
				bad()
			}
			return Unit
		}
		if v.k != KList || len(v.List().elems) != len(t.Args) {
			bad()
		}
		elems := v.List().elems
		out := make([]Value, len(elems))
		for i, e := range elems {
			out[i] = th.convertArg(fmt.Sprintf("%s[%d]", path, i), t.Args[i], e, depth+1)
		}
		return NewTuple(out)
	case syntax.FuncType:
		bad() // JSON has no functions
	case syntax.IntType:
		return v
	}
	if r, ok := th.prog.mod.Records[t.Name]; ok && len(t.Args) == 0 {
		return th.convertRecord(path, r, v, depth)
	}
	switch t.Name {
	case "str", "String":
		if v.k != KStr {
			bad()
		}
	case "int", "i64", "Int":
		if v.k != KInt {
			bad()
		}
	case "float", "f64", "Float":
		switch v.k {
		case KInt:
			return Float(float64(int64(v.n)))
		case KFloat:
		default:
			bad()
		}
	case "bool", "Bool":
		if v.k != KBool {
			bad()
		}
	case "Unit":
		if v.k != KNull {
			bad()
		}
	case "list", "List":
		if v.k != KList {
			bad()
		}
		if et := arg(0); et != nil {
			l := v.List()
			for i, e := range l.elems {
				l.elems[i] = th.convertArg(fmt.Sprintf("%s[%d]", path, i), et, e, depth+1)
			}
		}
	case "map", "Map":
		if v.k != KObject {
			bad()
		}
		if len(t.Args) > 0 {
			vt := t.Args[len(t.Args)-1]
			o := v.Object()
			for i, k := range o.keys {
				o.vals[i] = th.convertArg(path+"."+k, vt, o.vals[i], depth+1)
			}
		}
	case "Option":
		if v.k == KNull {
			return None
		}
		return Some(th.convertArg(path, arg(0), v, depth+1))
	case "dec":
		switch v.k {
		case KInt:
			return decValue(decFromInt(int64(v.n)))
		case KFloat:
			return th.decFromFloat(v.Float())
		case KStr:
			if d, ok := ParseDecimal(v.Str()); ok {
				return d
			}
			argError("argument %s: want dec, got the string %q, which is not a decimal number", path, v.Str())
		default:
			bad()
		}
	}
	return v
}

// convertRecord checks a decoded argument against a record type: a JSON
// object with each field (an Option field may be left out) and no other
// key; the value is a map of the fields in their declared order.
func (th *Thread) convertRecord(path string, r *syntax.RecordDecl, v Value, depth int) Value {
	if v.k != KObject {
		argError("argument %s: want %s (an object), got %s", path, r.Name, jsonKind(v))
	}
	in := v.Object()
	for _, k := range in.keys {
		known := false
		for _, f := range r.Fields {
			known = known || f.Name == k
		}
		if !known {
			argError("argument %s: %s has no field %s", path, r.Name, k)
		}
	}
	out := &Object{keys: make([]string, 0, len(r.Fields)), vals: make([]Value, 0, len(r.Fields))}
	for _, f := range r.Fields {
		fv, ok := in.Get(f.Name)
		switch {
		case ok:
			fv = th.convertArg(path+"."+f.Name, f.Type, fv, depth+1)
		case isOption(f.Type):
			fv = None
		default:
			argError("argument %s: missing field %s of %s", path, f.Name, r.Name)
		}
		out.Set(f.Name, fv)
	}
	return NewObject(out)
}

// encodeResult turns the result of f into the JSON and text of the
// call: Ok and Some unwrap, Err(e) is an ErrValue error.
func (th *Thread) encodeResult(f *Func, v Value, resource bool) Result {
	for v.k == KOk || v.k == KSome {
		v = v.Inner()
	}
	if v.k == KErr {
		panic(&Error{Kind: ErrValue, Message: th.display(v.Inner())})
	}
	if resource && v.k != KStr {
		panic(&Error{Kind: RuntimeError, Message: "resource must return str, got " + v.typeName()})
	}
	var b strings.Builder
	th.writeJSON(&b, v, 0, true)
	if max := th.opts.MaxOutputBytes; max > 0 && int64(b.Len()) > max {
		// The call has returned: the limit stops it at f's result.
		e := th.limitError(LimitOutput, max)
		if f.rf != nil {
			pos := f.rf.Pos
			if f.rf.Result != nil {
				pos = f.rf.Result.Pos
			}
			e.Path, e.Line, e.Col = th.prog.path, int(pos.Line), int(pos.Col)
			e.Stack = []StackFrame{{Func: f.name, Line: e.Line, Col: e.Col, Times: 1}}
		}
		panic(e)
	}
	res := Result{JSON: []byte(b.String())}
	if v.k == KStr {
		res.Text = v.Str()
	} else {
		res.Text = b.String()
	}
	return res
}

// shapeResult gives a result the shape its declared type t decides
// (docs/tool-results.md §2), failing the call at t when the value does
// not fit: content must be valid blocks, a structured result must match
// the type its outputSchema is made from. The text of both is the JSON.
func (th *Thread) shapeResult(res *Result, v Value, t *syntax.Type) {
	shape, st := schema.ResultShape(t, th.prog.mod.Records)
	res.Shape = shape
	switch shape {
	case schema.OneContent, schema.ContentList:
		for v.k == KOk || v.k == KSome {
			v = v.Inner()
		}
		res.Blocks = th.contentBlocks(t.Pos, v, shape == schema.ContentList)
		res.Text = string(res.JSON)
	case schema.Structured:
		th.checkResult(t.Pos, st, res.JSON)
		res.Text = string(res.JSON)
	}
}

// checkResult checks the JSON of a structured result against its
// declared type st as arguments are checked, so that structuredContent
// always matches the outputSchema made from st.
func (th *Thread) checkResult(pos syntax.Pos, st *syntax.Type, data []byte) {
	th.charge(int64(len(data)))
	v, err := DecodeJSON(data, 0)
	if err != nil {
		th.Fail(pos, "the result has no JSON form: %v", err)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok && e.Kind == ArgumentError {
				th.Fail(pos, "the result does not match its declared type %s: %s", st, strings.TrimPrefix(e.Message, "argument "))
			}
			panic(r)
		}
	}()
	th.convertArg("result", st, v, 0)
}

// EncodeJSON writes v as compact JSON (json.stringify); it fails the
// call on a value with no JSON form (a NaN or infinite float) and counts
// the text against the allocation budget.
func (th *Thread) EncodeJSON(v Value) string {
	var b strings.Builder
	th.writeJSON(&b, v, 0, true)
	th.allocate(int64(b.Len()))
	return b.String()
}

// ParseJSON decodes JSON text for json.parse: as DecodeJSON with the
// call's value-size limit, the value counted against the allocation
// budget. A value larger than the limit is the limit error.
func (th *Thread) ParseJSON(s string) (Value, error) {
	th.charge(int64(len(s)))
	v, err := DecodeJSON([]byte(s), th.opts.MaxValueBytes)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == LimitError {
			th.limit(LimitValueSize, th.opts.MaxValueBytes)
		}
		return Unit, err
	}
	th.allocate(max(int64(len(s)), v.size()))
	return v, nil
}

// DecodeJSON decodes one JSON value: integral numbers that fit int64 are
// Int, other numbers Float, objects keep their member order (a repeated
// key keeps its first position and its last value). Values nested deeper
// than 512 levels are an error; so are strings and lists larger than
// maxValue bytes (a LimitError) when maxValue > 0.
func DecodeJSON(data []byte, maxValue int64) (Value, error) {
	d := &jsonDecoder{data: data, maxValue: maxValue}
	var v Value
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				e, ok := r.(*Error)
				if !ok {
					e = &Error{Kind: Internal, Message: fmt.Sprintf("internal error while decoding JSON: %v", r)}
				}
				err = e
			}
		}()
		v = d.value(0)
		d.space()
		if d.i < len(d.data) {
			d.fail("invalid character %q after the value", d.data[d.i])
		}
		return nil
	}()
	return v, err
}

type jsonDecoder struct {
	data     []byte
	i        int
	maxValue int64
}

func (d *jsonDecoder) fail(format string, args ...any) {
	panic(&Error{Kind: RuntimeError, Message: fmt.Sprintf(format, args...) + fmt.Sprintf(" at offset %d", d.i)})
}

func (d *jsonDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) Value {
	if depth > maxNesting {
		panic(&Error{Kind: RuntimeError, Message: fmt.Sprintf("value nested deeper than %d", maxNesting)})
	}
	d.space()
	if d.i >= len(d.data) {
		d.fail("unexpected end of JSON input")
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		o := &Object{}
		d.space()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return NewObject(o)
		}
		for {
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != '"' {
				d.fail("expected a string key")
			}
			key := d.str()
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != ':' {
				d.fail("expected ':' after an object key")
			}
			d.i++
			o.Set(key, d.value(depth+1))
			d.space()
			if d.i < len(d.data) && d.data[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.data) && d.data[d.i] == '}' {
				d.i++
				return NewObject(o)
			}
			d.fail("expected ',' or '}' in an object")
		}
	case c == '[':
		d.i++
		elems := []Value{}
		var size int64
		d.space()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return NewList(elems)
		}
		for {
			e := d.value(depth + 1)
			elems = append(elems, e)
			size += 16 + e.size()
			d.checkSize(size)
			d.space()
			if d.i < len(d.data) && d.data[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.data) && d.data[d.i] == ']' {
				d.i++
				return listValue(&List{elems: elems, size: size})
			}
			d.fail("expected ',' or ']' in an array")
		}
	case c == '"':
		s := d.str()
		d.checkSize(int64(len(s)))
		return Str(s)
	case c == 't':
		return d.literal("true", True)
	case c == 'f':
		return d.literal("false", False)
	case c == 'n':
		return d.literal("null", Unit)
	case c == '-' || isDigitByte(c):
		return d.number()
	}
	d.fail("invalid character %q", d.data[d.i])
	return Unit
}

func (d *jsonDecoder) checkSize(n int64) {
	if d.maxValue > 0 && n > d.maxValue {
		panic(&Error{Kind: LimitError, Limit: LimitValueSize, Message: fmt.Sprintf("value larger than %d bytes", d.maxValue)})
	}
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

func (d *jsonDecoder) literal(word string, v Value) Value {
	if !strings.HasPrefix(string(d.data[d.i:min(len(d.data), d.i+len(word))]), word) {
		d.fail("invalid literal")
	}
	d.i += len(word)
	return v
}

func (d *jsonDecoder) number() Value {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.data) && isDigitByte(d.data[d.i]) {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	if digits() == 0 {
		d.fail("invalid number")
	}
	if d.data[intStart] == '0' && d.i-intStart > 1 {
		d.fail("invalid number: leading zero")
	}
	integral := true
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		integral = false
		if digits() == 0 {
			d.fail("invalid number")
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		integral = false
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			d.fail("invalid number")
		}
	}
	text := string(d.data[start:d.i])
	if integral {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return Int(i)
		}
	} else if r, ok := new(big.Rat).SetString(text); ok && r.IsInt() && r.Num().IsInt64() {
		return Int(r.Num().Int64())
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		d.fail("invalid number %s", text)
	}
	if math.IsInf(f, 0) {
		d.fail("number %s is out of range", text)
	}
	return Float(f)
}

// str decodes a string starting at the opening quote.
func (d *jsonDecoder) str() string {
	d.i++
	start := d.i
	// Fast path: no escapes.
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := string(d.data[start:d.i])
			d.i++
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return s
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			d.fail("control character in string")
		}
		d.i++
	}
	b := []byte(string(d.data[start:d.i]))
	for {
		if d.i >= len(d.data) {
			d.fail("unterminated string")
		}
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			s := string(b)
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return s
		case c < 0x20:
			d.fail("control character in string")
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.data) {
			d.fail("unterminated string")
		}
		e := d.data[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := d.hex4()
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
					d.i += 2
					r2 = d.hex4()
				}
				r = utf16.DecodeRune(r, r2)
			}
			b = utf8.AppendRune(b, r)
		default:
			d.fail("invalid escape \\%c in string", e)
		}
	}
}

func (d *jsonDecoder) hex4() rune {
	if d.i+4 > len(d.data) {
		d.fail("invalid \\u escape")
	}
	n, err := strconv.ParseUint(string(d.data[d.i:d.i+4]), 16, 32)
	if err != nil {
		d.fail("invalid \\u escape")
	}
	d.i += 4
	return rune(n)
}
