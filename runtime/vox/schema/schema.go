// Package schema maps the parameter types of Vox tools to JSON Schema
// (docs/vox-language.md, Arguments and results). It works on the syntax tree alone, so the
// schemas of a file are known without running anything.
package schema

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/vox-lang/vox-mcp/runtime/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// Input returns the input schema of a function with the given parameters:
// an object with one property per parameter in declaration order,
// "required" listing the parameters without a default whose type is not
// Option[T], and no additional properties. Unknown type names add a
// vox/schema/unknown-type warning to diags (typeParams are the function's
// own type variables, which map to {} silently).
func Input(path string, params []*syntax.Param, typeParams []string, diags *diag.List) schemajson.Value {
	m := mapper{path: path, typeParams: typeParams, diags: diags}
	props := []schemajson.Member{}
	required := []schemajson.Value{}
	for _, p := range params {
		prop := m.typeSchema(p.Type, 0)
		if p.Default != nil {
			if d, ok := LiteralValue(p.Default); ok {
				prop.Members = append(prop.Members, schemajson.Member{Key: "default", Value: d})
			}
		} else if !IsOption(p.Type) {
			required = append(required, schemajson.StringValue(p.Name))
		}
		props = append(props, schemajson.Member{Key: p.Name, Value: prop})
	}
	return schemajson.ObjectValue(
		schemajson.Member{Key: "type", Value: schemajson.StringValue("object")},
		schemajson.Member{Key: "properties", Value: schemajson.ObjectValue(props...)},
		schemajson.Member{Key: "required", Value: schemajson.ArrayValue(required...)},
		schemajson.Member{Key: "additionalProperties", Value: schemajson.BoolValue(false)},
	)
}

// InputJSON returns schemajson.Schema(Input(path, params, typeParams,
// diags)) — the same bytes and the same diagnostics — written directly:
// a refresh writes the schema of every tool of the workspace, and building
// the value tree first costs several times more than the bytes.
func InputJSON(path string, params []*syntax.Param, typeParams []string, diags *diag.List) []byte {
	m := mapper{path: path, typeParams: typeParams, diags: diags}
	// The canonical form sorts the keys of schema objects: additionalProperties,
	// properties, required, type; properties keep the declaration order.
	// Written on the stack, then copied at its size: schemas are kept as
	// long as their modules.
	var buf [1024]byte
	b := append(buf[:0], `{"additionalProperties":false,"properties":{`...)
	for i, p := range params {
		if i > 0 {
			b = append(b, ',')
		}
		b = schemajson.AppendString(b, p.Name)
		b = append(b, ':')
		var def *schemajson.Value
		if p.Default != nil {
			if d, ok := LiteralValue(p.Default); ok {
				def = &d
			}
		}
		b = m.appendType(b, p.Type, 0, def)
	}
	b = append(b, `},"required":[`...)
	first := true
	for _, p := range params {
		if p.Default == nil && !IsOption(p.Type) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = schemajson.AppendString(b, p.Name)
		}
	}
	b = append(b, `],"type":"object"}`...)
	return append([]byte(nil), b...)
}

// appendType appends the schema typeSchema(t, depth) builds, with the
// member "default": def when def is not nil, its members in key order
// (additionalProperties, default, items, maxItems, minItems, prefixItems,
// type).
func (m *mapper) appendType(b []byte, t *syntax.Type, depth int, def *schemajson.Value) []byte {
	if t == nil || depth > 64 {
		return appendTyped(b, "", def)
	}
	if t.Tuple {
		if len(t.Args) == 0 {
			return appendTyped(b, "null", def)
		}
		b = append(b, '{')
		if def != nil {
			b = appendDefault(b, def)
			b = append(b, ',')
		}
		n := strconv.Itoa(len(t.Args))
		b = append(b, `"maxItems":`...)
		b = append(b, n...)
		b = append(b, `,"minItems":`...)
		b = append(b, n...)
		b = append(b, `,"prefixItems":[`...)
		for i, a := range t.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = m.appendType(b, a, depth+1, nil)
		}
		return append(b, `],"type":"array"}`...)
	}
	switch t.Name {
	case "str", "String":
		return appendTyped(b, "string", def)
	case "int", "i64", "Int":
		return appendTyped(b, "integer", def)
	case "float", "f64", "Float":
		return appendTyped(b, "number", def)
	case "bool", "Bool":
		return appendTyped(b, "boolean", def)
	case "Unit":
		return appendTyped(b, "null", def)
	case "list", "List":
		b = append(b, '{')
		if def != nil {
			b = appendDefault(b, def)
			b = append(b, ',')
		}
		b = append(b, `"items":`...)
		b = m.appendArg(b, t, 0, depth)
		return append(b, `,"type":"array"}`...)
	case "map", "Map":
		if len(t.Args) == 0 {
			return appendTyped(b, "object", def)
		}
		b = append(b, `{"additionalProperties":`...)
		b = m.appendArg(b, t, len(t.Args)-1, depth)
		if def != nil {
			b = append(b, ',')
			b = appendDefault(b, def)
		}
		return append(b, `,"type":"object"}`...)
	case "Option":
		if len(t.Args) > 0 {
			return m.appendType(b, t.Args[0], depth+1, def)
		}
		return appendTyped(b, "", def)
	}
	if !slices.Contains(m.typeParams, t.Name) {
		m.diags.Warnf(m.path, int(t.Pos.Line), int(t.Pos.Col), "vox/schema/unknown-type",
			"unknown type %s: its schema accepts any JSON value", t.Name)
	}
	return appendTyped(b, "", def)
}

// appendArg appends the schema of type argument i of t ({} when absent).
func (m *mapper) appendArg(b []byte, t *syntax.Type, i, depth int) []byte {
	if i < len(t.Args) {
		return m.appendType(b, t.Args[i], depth+1, nil)
	}
	return append(b, "{}"...)
}

// appendTyped appends {"default":def,"type":name}, leaving out what is
// absent.
func appendTyped(b []byte, name string, def *schemajson.Value) []byte {
	b = append(b, '{')
	if def != nil {
		b = appendDefault(b, def)
		if name != "" {
			b = append(b, ',')
		}
	}
	if name != "" {
		b = append(b, `"type":"`...)
		b = append(b, name...)
		b = append(b, '"')
	}
	return append(b, '}')
}

func appendDefault(b []byte, def *schemajson.Value) []byte {
	b = append(b, `"default":`...)
	return schemajson.AppendCanonical(b, *def)
}

// IsOption reports whether t is Option[T] (or a bare Option).
func IsOption(t *syntax.Type) bool { return t != nil && !t.Tuple && t.Name == "Option" }

type mapper struct {
	path       string
	typeParams []string
	diags      *diag.List
}

func typed(name string, more ...schemajson.Member) schemajson.Value {
	return schemajson.ObjectValue(append([]schemajson.Member{{Key: "type", Value: schemajson.StringValue(name)}}, more...)...)
}

func (m *mapper) typeSchema(t *syntax.Type, depth int) schemajson.Value {
	if t == nil || depth > 64 {
		return schemajson.ObjectValue()
	}
	if t.Tuple {
		if len(t.Args) == 0 {
			return typed("null")
		}
		items := make([]schemajson.Value, len(t.Args))
		for i, a := range t.Args {
			items[i] = m.typeSchema(a, depth+1)
		}
		n := schemajson.IntValue(int64(len(items)))
		return typed("array",
			schemajson.Member{Key: "prefixItems", Value: schemajson.ArrayValue(items...)},
			schemajson.Member{Key: "minItems", Value: n},
			schemajson.Member{Key: "maxItems", Value: n})
	}
	arg := func(i int) schemajson.Value {
		if i < len(t.Args) {
			return m.typeSchema(t.Args[i], depth+1)
		}
		return schemajson.ObjectValue()
	}
	switch t.Name {
	case "str", "String":
		return typed("string")
	case "int", "i64", "Int":
		return typed("integer")
	case "float", "f64", "Float":
		return typed("number")
	case "bool", "Bool":
		return typed("boolean")
	case "Unit":
		return typed("null")
	case "list", "List":
		return typed("array", schemajson.Member{Key: "items", Value: arg(0)})
	case "map", "Map":
		if len(t.Args) == 0 {
			return typed("object")
		}
		return typed("object", schemajson.Member{Key: "additionalProperties", Value: arg(len(t.Args) - 1)})
	case "Option":
		return arg(0)
	}
	for _, tp := range m.typeParams {
		if tp == t.Name {
			return schemajson.ObjectValue()
		}
	}
	m.diags.Warnf(m.path, int(t.Pos.Line), int(t.Pos.Col), "vox/schema/unknown-type",
		"unknown type %s: its schema accepts any JSON value", t.Name)
	return schemajson.ObjectValue()
}

// LiteralValue returns the JSON form of a default written as a literal:
// a number, string or boolean, or a list, tuple or object of literals.
func LiteralValue(e syntax.Expr) (schemajson.Value, bool) { return literalValue(e, 0) }

func literalValue(e syntax.Expr, depth int) (schemajson.Value, bool) {
	if depth > 64 {
		return schemajson.Value{}, false
	}
	switch e := e.(type) {
	case *syntax.Literal:
		switch e.Tok {
		case syntax.INT:
			return schemajson.IntValue(e.Int), true
		case syntax.FLOAT:
			v, err := schemajson.FloatValue(e.Float)
			return v, err == nil
		case syntax.STRING:
			return schemajson.StringValue(e.Str), true
		case syntax.TRUE:
			return schemajson.BoolValue(true), true
		case syntax.FALSE:
			return schemajson.BoolValue(false), true
		}
	case *syntax.ListExpr:
		return literalList(e.Elems, depth)
	case *syntax.TupleExpr:
		if len(e.Elems) == 0 {
			return schemajson.Value{}, false
		}
		return literalList(e.Elems, depth)
	case *syntax.ObjectExpr:
		members := make([]schemajson.Member, 0, len(e.Keys))
		for i, k := range e.Keys {
			v, ok := literalValue(e.Values[i], depth+1)
			if !ok {
				return schemajson.Value{}, false
			}
			members = append(members, schemajson.Member{Key: k, Value: v})
		}
		return schemajson.ObjectValue(members...), true
	}
	return schemajson.Value{}, false
}

func literalList(elems []syntax.Expr, depth int) (schemajson.Value, bool) {
	items := make([]schemajson.Value, 0, len(elems))
	for _, el := range elems {
		v, ok := literalValue(el, depth+1)
		if !ok {
			return schemajson.Value{}, false
		}
		items = append(items, v)
	}
	return schemajson.ArrayValue(items...), true
}

// Signature writes a function's signature as declared, for example
// "greet(name: str, times: int = 1) to str".
func Signature(name string, params []*syntax.Param, result *syntax.Type) string {
	n := len(name) + 8
	for _, p := range params {
		n += len(p.Name) + len(p.DefaultText) + 16
	}
	b := make([]byte, 0, n)
	b = append(b, name...)
	b = append(b, '(')
	for i, p := range params {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p.Name...)
		if p.Type != nil {
			b = append(b, ": "...)
			b = p.Type.AppendTo(b)
		}
		if p.Default != nil {
			b = append(b, " = "...)
			b = append(b, p.DefaultText...)
		}
	}
	b = append(b, ')')
	if result != nil {
		b = append(b, " to "...)
		b = result.AppendTo(b)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again
}
