package capability

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// The pure text namespaces: json and base64. Nothing here reaches outside
// the interpreter; they are namespaces because the reference names them
// so (json.parse, not parse_json).

// ---- json ----

func jsonParse(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "json", "parse", args[0])
	v, err := th.ParseJSON(s)
	if err != nil {
		return eval.ErrVal(eval.Str(err.Error()))
	}
	return eval.OkVal(v)
}

func jsonStringify(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(th.EncodeJSON(args[0]))
}

// jsonRender is stringify with Err for a value that has no JSON form.
func jsonRender(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	if bad, ok := noJSONForm(args[0]); ok {
		return eval.ErrVal(eval.Str(bad + " has no JSON form"))
	}
	return eval.OkVal(eval.Str(th.EncodeJSON(args[0])))
}

// noJSONForm finds a NaN or infinite float in v, the only values
// EncodeJSON refuses. It walks v with an explicit stack, so no nesting
// can overflow the Go stack, and stops at the depth EncodeJSON fails at.
func noJSONForm(v eval.Value) (string, bool) {
	type item struct {
		v     eval.Value
		depth int
	}
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > 512 {
			return "", false // EncodeJSON reports the depth
		}
		switch it.v.Kind() {
		case eval.KFloat:
			switch f := it.v.Float(); {
			case math.IsNaN(f):
				return "NaN", true
			case math.IsInf(f, 0):
				return strconv.FormatFloat(f, 'g', -1, 64), true
			}
		case eval.KList:
			for _, e := range it.v.List().Elems() {
				stack = append(stack, item{e, it.depth + 1})
			}
		case eval.KTuple:
			for _, e := range it.v.Tuple() {
				stack = append(stack, item{e, it.depth + 1})
			}
		case eval.KObject:
			o := it.v.Object()
			for _, k := range o.Keys() {
				e, _ := o.Get(k)
				stack = append(stack, item{e, it.depth + 1})
			}
		case eval.KSome, eval.KOk, eval.KErr:
			stack = append(stack, item{it.v.Inner(), it.depth + 1})
		}
	}
	return "", false
}

func jsonPretty(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	compact := th.EncodeJSON(args[0])
	var b bytes.Buffer
	// json.Indent is a state machine over the text, not a recursion over
	// the value; the compact text is valid JSON, so it cannot fail.
	if err := json.Indent(&b, []byte(compact), "", "  "); err != nil {
		th.Failf("json.pretty: %v", err)
	}
	th.CheckSize(int64(b.Len()))
	th.Charge(int64(b.Len()))
	return eval.Str(b.String())
}

func jsonQuote(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "json", "quote", args[0])
	var b strings.Builder
	schemajson.WriteString(&b, s)
	th.CheckSize(int64(b.Len()))
	th.Charge(int64(b.Len()))
	return eval.Str(b.String())
}

// jsonMember decodes text as a JSON object and returns member key.
func jsonMember(th *eval.Thread, method string, args []eval.Value) (eval.Value, string) {
	text := strArg(th, "json", method, args[0])
	key := strArg(th, "json", method, args[1])
	v, err := th.ParseJSON(text)
	if err != nil {
		return eval.Value{}, err.Error()
	}
	if v.Kind() != eval.KObject {
		return eval.Value{}, "not a JSON object"
	}
	m, ok := v.Object().Get(key)
	if !ok {
		return eval.Value{}, "no member " + strconv.Quote(key)
	}
	return m, ""
}

func jsonReadStr(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	m, msg := jsonMember(th, "read_str", args)
	if msg != "" {
		return eval.ErrVal(eval.Str(msg))
	}
	if m.Kind() != eval.KStr {
		return eval.ErrVal(eval.Str("member " + strconv.Quote(args[1].Str()) + " is not a string"))
	}
	return eval.OkVal(m)
}

func jsonReadF64(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	m, msg := jsonMember(th, "read_f64", args)
	if msg != "" {
		return eval.ErrVal(eval.Str(msg))
	}
	switch m.Kind() {
	case eval.KInt:
		return eval.OkVal(eval.Float(float64(m.Int())))
	case eval.KFloat:
		return eval.OkVal(m)
	}
	return eval.ErrVal(eval.Str("member " + strconv.Quote(args[1].Str()) + " is not a number"))
}

// ---- base64 ----

func base64Encode(url bool) func(*eval.Thread, *Config, []eval.Value) eval.Value {
	enc, name := base64.StdEncoding, "encode"
	if url {
		enc, name = base64.RawURLEncoding, "encode_url"
	}
	return func(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
		s := strArg(th, "base64", name, args[0])
		n := int64(enc.EncodedLen(len(s)))
		th.CheckSize(n)
		th.Charge(n)
		return eval.Str(enc.EncodeToString([]byte(s)))
	}
}

func base64Decode(url bool) func(*eval.Thread, *Config, []eval.Value) eval.Value {
	padded, raw, name := base64.StdEncoding, base64.RawStdEncoding, "decode"
	if url {
		padded, raw, name = base64.URLEncoding, base64.RawURLEncoding, "decode_url"
	}
	return func(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
		s := strArg(th, "base64", name, args[0])
		th.Charge(int64(len(s)))
		// Line breaks are ignored by the decoder itself; padding decides
		// the alphabet's form.
		enc := raw
		if strings.HasSuffix(strings.TrimRight(s, "\r\n"), "=") {
			enc = padded
		}
		data, err := enc.DecodeString(s)
		if err != nil {
			return eval.ErrVal(eval.Str("not base64: " + err.Error()))
		}
		if !utf8.Valid(data) {
			return eval.ErrVal(eval.Str("the decoded bytes are not UTF-8 text"))
		}
		return eval.OkVal(eval.Str(string(data)))
	}
}
