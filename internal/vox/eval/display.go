package eval

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// display returns the display form of v (docs/vox-language.md, Values): what str(), string
// concatenation, templates, print and the text of Err use.
func (th *Thread) display(v Value) string {
	switch v.k {
	case KStr:
		return v.Str()
	case KInt:
		return strconv.FormatInt(int64(v.n), 10)
	case KFloat:
		return displayFloat(v.Float())
	case KBool:
		if v.n != 0 {
			return "true"
		}
		return "false"
	case KNull, KNone:
		return "None"
	case KDec:
		return v.dec().String()
	}
	var b strings.Builder
	th.writeDisplay(&b, v, 0)
	return b.String()
}

func displayFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func (th *Thread) writeDisplay(b *strings.Builder, v Value, depth int) {
	if depth > maxNesting {
		th.Failf("value nested deeper than %d", maxNesting)
	}
	th.step(1)
	switch v.k {
	case KList, KTuple, KObject:
		th.writeJSON(b, v, depth, false)
	case KSome, KOk, KErr:
		b.WriteString(kindCtorName(v.k))
		b.WriteByte('(')
		th.writeDisplay(b, v.Inner(), depth+1)
		b.WriteByte(')')
	case KTagged:
		t := v.tagged()
		b.WriteString(t.ctor.Name)
		if len(t.fields) > 0 {
			b.WriteByte('(')
			for i, f := range t.fields {
				if i > 0 {
					b.WriteString(", ")
				}
				th.writeDisplay(b, f, depth+1)
			}
			b.WriteByte(')')
		}
	case KFunc:
		b.WriteString("<fn " + v.closure().fn.name + ">")
	case KBuiltin:
		b.WriteString("<fn " + v.builtin().name + ">")
	case KNamespace:
		b.WriteString("<namespace " + v.Str() + ">")
	case KRegex:
		b.WriteString("Regex(" + strconv.Quote(v.regex().String()) + ")")
	case KMatch:
		b.WriteString("Match(")
		th.writeDisplay(b, v.match().groups[0].Inner(), depth+1)
		b.WriteByte(')')
	default:
		b.WriteString(th.display(v))
	}
}

func kindCtorName(k Kind) string {
	switch k {
	case KSome:
		return "Some"
	case KOk:
		return "Ok"
	}
	return "Err"
}

// writeJSON writes the JSON form of v: Ok and Some unwrap, None and Unit are
// null, Err(e) is {"Err": e}, a constructor value is its name or
// {"Name": field} / {"Name": [fields...]} ... in strict mode NaN and
// infinities are errors, otherwise they are written as NaN, +Inf, -Inf
// (display only).
func (th *Thread) writeJSON(b *strings.Builder, v Value, depth int, strict bool) {
	if depth > maxNesting {
		th.Failf("value nested deeper than %d", maxNesting)
	}
	th.step(1)
	switch v.k {
	case KNull, KNone:
		b.WriteString("null")
	case KBool:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case KInt:
		b.WriteString(strconv.FormatInt(int64(v.n), 10))
	case KDec:
		b.WriteString(v.dec().String()) // a JSON number with the decimal's digits
	case KFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			if strict {
				th.Failf("%s has no JSON form", displayFloat(f))
			}
			b.WriteString(displayFloat(f))
			return
		}
		b.WriteString(jsonFloat(f))
	case KStr:
		th.allocate(int64(v.n))
		writeJSONString(b, v.Str())
	case KList:
		th.writeJSONList(b, v.List().elems, depth, strict)
	case KTuple:
		th.writeJSONList(b, v.Tuple(), depth, strict)
	case KObject:
		o := v.Object()
		b.WriteByte('{')
		for i, k := range o.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			th.writeJSON(b, o.vals[i], depth+1, strict)
		}
		b.WriteByte('}')
	case KSome, KOk:
		th.writeJSON(b, v.Inner(), depth+1, strict)
	case KErr:
		b.WriteString(`{"Err":`)
		th.writeJSON(b, v.Inner(), depth+1, strict)
		b.WriteByte('}')
	case KTagged:
		t := v.tagged()
		if len(t.fields) == 0 {
			writeJSONString(b, t.ctor.Name)
			return
		}
		b.WriteByte('{')
		writeJSONString(b, t.ctor.Name)
		b.WriteString(":{")
		for i, f := range t.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, t.ctor.Fields[i])
			b.WriteByte(':')
			th.writeJSON(b, f, depth+1, strict)
		}
		b.WriteString("}}")
	default:
		var s strings.Builder
		th.writeDisplay(&s, v, depth)
		writeJSONString(b, s.String())
	}
	if max := th.opts.MaxValueBytes; max > 0 && int64(b.Len()) > max {
		th.limit(LimitValueSize, max)
	}
}

func (th *Thread) writeJSONList(b *strings.Builder, elems []Value, depth int, strict bool) {
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		th.writeJSON(b, e, depth+1, strict)
	}
	b.WriteByte(']')
}

// jsonFloat formats a finite float as encoding/json does.
func jsonFloat(f float64) string {
	out, _ := json.Marshal(f)
	return string(out)
}

// writeJSONString quotes s as encoding/json does without HTML escaping,
// exactly as schema literals are written.
func writeJSONString(b *strings.Builder, s string) { schemajson.WriteString(b, s) }
