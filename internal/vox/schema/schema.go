// Package schema maps the parameter types of Vox tools to JSON Schema
// (docs/vox-language.md, Arguments and results). It works on the syntax tree alone, so the
// schemas of a file are known without running anything.
package schema

import (
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Scope is what the types of a function's parameters may name besides
// the built-in types: the function's own type parameters (any value) and
// the record types of its file (objects with their fields).
type Scope struct {
	TypeParams []string
	Records    map[string]*syntax.RecordDecl
	// Descriptions are the parameters' descriptions by name (the
	// function's @param doc lines, DocDescriptions); nil when none.
	Descriptions map[string]string
}

// DocDescriptions returns the descriptions of fn's parameters its doc
// comment gives (syntax.ParamDocs), by name: the first line of a name
// with text wins; nil when there are none.
func DocDescriptions(f *syntax.File, fn *syntax.FnDecl) map[string]string {
	var m map[string]string
	for _, d := range syntax.ParamDocs(f, fn) {
		if d.Text == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		if _, dup := m[d.Name]; !dup {
			m[d.Name] = d.Text
		}
	}
	return m
}

// ScopeOf returns the scope of fn given the record types of its file
// (records, by name; nil when there are none).
func ScopeOf(fn *syntax.FnDecl, records map[string]*syntax.RecordDecl) Scope {
	sc := Scope{Records: records}
	for _, tp := range fn.TypeParams {
		sc.TypeParams = append(sc.TypeParams, tp.Name)
	}
	return sc
}

// Records returns the record types of f by name (the first of a name).
func Records(f *syntax.File) map[string]*syntax.RecordDecl {
	var m map[string]*syntax.RecordDecl
	for _, d := range f.Decls {
		if r, ok := d.(*syntax.RecordDecl); ok {
			if m == nil {
				m = map[string]*syntax.RecordDecl{}
			}
			if _, dup := m[r.Name]; !dup {
				m[r.Name] = r
			}
		}
	}
	return m
}

// Input returns the input schema of a function with the given parameters:
// an object with one property per parameter in declaration order,
// "required" listing the parameters without a default whose type is not
// Option[T], and no additional properties. Unknown type names add a
// vox/schema/unknown-type warning to diags (the function's type
// parameters map to {} silently).
func Input(path string, params []*syntax.Param, sc Scope, diags *diag.List) schemajson.Value {
	m := mapper{path: path, scope: sc, diags: diags}
	m.plan(params)
	var defs []schemajson.Member
	for _, name := range m.defs {
		defs = append(defs, schemajson.Member{Key: name, Value: m.recordSchema(sc.Records[name], 0)})
	}
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
		if desc, ok := sc.Descriptions[p.Name]; ok {
			prop.Members = append(prop.Members, schemajson.Member{Key: "description", Value: schemajson.StringValue(desc)})
		}
		props = append(props, schemajson.Member{Key: p.Name, Value: prop})
	}
	members := []schemajson.Member{
		{Key: "type", Value: schemajson.StringValue("object")},
		{Key: "properties", Value: schemajson.ObjectValue(props...)},
		{Key: "required", Value: schemajson.ArrayValue(required...)},
		{Key: "additionalProperties", Value: schemajson.BoolValue(false)},
	}
	if len(defs) > 0 {
		members = append(members, schemajson.Member{Key: "$defs", Value: schemajson.ObjectValue(defs...)})
	}
	return schemajson.ObjectValue(members...)
}

// InputJSON returns schemajson.Schema(Input(path, params, sc, diags)) —
// the same bytes and the same diagnostics — written directly:
// a refresh writes the schema of every tool of the workspace, and building
// the value tree first costs several times more than the bytes.
func InputJSON(path string, params []*syntax.Param, sc Scope, diags *diag.List) []byte {
	m := mapper{path: path, scope: sc, diags: diags}
	m.plan(params)
	// The canonical form sorts the keys of schema objects: $defs,
	// additionalProperties, properties, required, type; properties keep
	// the declaration order. Written in a reused buffer, then copied at
	// its size: schemas are kept as long as their modules.
	sp := scratch.Get().(*[]byte)
	defer putScratch(sp)
	b := append((*sp)[:0], '{')
	if len(m.defs) > 0 {
		b = append(b, `"$defs":{`...)
		for i, name := range m.defs {
			if i > 0 {
				b = append(b, ',')
			}
			b = schemajson.AppendString(b, name)
			b = append(b, ':')
			b = m.appendRecord(b, sc.Records[name], 0, nil)
		}
		b = append(b, `},`...)
	}
	b = append(b, `"additionalProperties":false,"properties":{`...)
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
		if desc, ok := sc.Descriptions[p.Name]; ok {
			// Rare enough to take the value path, which sorts the key in
			// among the type's own.
			prop := m.typeSchema(p.Type, 0)
			if def != nil {
				prop.Members = append(prop.Members, schemajson.Member{Key: "default", Value: *def})
			}
			prop.Members = append(prop.Members, schemajson.Member{Key: "description", Value: schemajson.StringValue(desc)})
			b = schemajson.AppendSchema(b, prop)
			continue
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
	*sp = b
	return append([]byte(nil), b...)
}

// scratch holds the buffers InputJSON writes schemas in. A buffer made
// per schema (the stack array escapes through the append helpers) was
// the most frequent garbage of a workspace refresh, in the size class of
// the tool lists its modules keep: allocated between them, it left the
// heap's spans partly filled once it was freed (docs/benchmarks.md,
// Refresh).
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// putScratch returns a buffer to scratch unless one schema made it
// larger than schemas usually are.
func putScratch(sp *[]byte) {
	if cap(*sp) <= 64<<10 {
		scratch.Put(sp)
	}
}

// appendType appends the schema typeSchema(t, depth) builds, with the
// member "default": def when def is not nil, its members in key order
// (additionalProperties, default, items, maxItems, minItems, prefixItems,
// type).
func (m *mapper) appendType(b []byte, t *syntax.Type, depth int, def *schemajson.Value) []byte {
	if t == nil || depth > 64 {
		return appendTyped(b, "", def)
	}
	switch t.Kind {
	case syntax.TupleType:
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
	case syntax.FuncType:
		m.funcType(t)
		return appendTyped(b, "", def)
	case syntax.IntType:
		return appendTyped(b, "", def)
	}
	if r := m.record(t); r != nil {
		if m.shared[r.Name] {
			b = append(b, `{"$ref":`...)
			b = schemajson.AppendString(b, "#/$defs/"+r.Name)
			if def != nil {
				b = append(b, ',')
				b = appendDefault(b, def)
			}
			return append(b, '}')
		}
		return m.appendRecord(b, r, depth, def)
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
	case "dec":
		return appendTyped(b, "number", def)
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
		if len(t.Args) > 0 && m.output {
			b = append(b, `{"anyOf":[`...)
			b = m.appendType(b, t.Args[0], depth+1, nil)
			return append(b, `,{"type":"null"}]}`...)
		}
		if len(t.Args) > 0 {
			return m.appendType(b, t.Args[0], depth+1, def)
		}
		return appendTyped(b, "", def)
	}
	m.unknown(t)
	return appendTyped(b, "", def)
}

// appendRecord appends the schema of a record type: an object with its
// fields, those of an Option type not required, and no other key. The
// members in key order: additionalProperties, default, properties,
// required, type.
func (m *mapper) appendRecord(b []byte, r *syntax.RecordDecl, depth int, def *schemajson.Value) []byte {
	b = append(b, `{"additionalProperties":false,`...)
	if def != nil {
		b = appendDefault(b, def)
		b = append(b, ',')
	}
	b = append(b, `"properties":{`...)
	for i, f := range r.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = schemajson.AppendString(b, f.Name)
		b = append(b, ':')
		b = m.appendType(b, f.Type, depth+1, nil)
	}
	b = append(b, `},"required":[`...)
	first := true
	for _, f := range r.Fields {
		if !IsOption(f.Type) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = schemajson.AppendString(b, f.Name)
		}
	}
	return append(b, `],"type":"object"}`...)
}

// record returns the record type t names, or nil.
func (m *mapper) record(t *syntax.Type) *syntax.RecordDecl {
	if len(t.Args) > 0 {
		return nil
	}
	return m.scope.Records[t.Name]
}

// plan decides which records of the parameters' types go to $defs, to be
// referred to with $ref: those used more than once (counting every use in
// the parameters and in the fields of the records they use) and those
// that hold themselves. Every other record is used once and written where
// it is used. So each record's schema is written once, and the size of a
// schema is linear in the declarations: records holding records twice
// over, 100 levels deep, would otherwise expand to 2^100 objects.
//
// The records are walked with a stack of their own, not by recursion: a
// chain of records may be as long as the file.
func (m *mapper) plan(params []*syntax.Param) {
	if len(m.scope.Records) == 0 {
		return
	}
	uses := map[string]int{}
	state := map[string]uint8{} // 1 from when it is met until its fields are walked, 2 after
	type walk struct {
		r *syntax.RecordDecl
		i int // the next field
	}
	var stack []walk
	use := func(r *syntax.RecordDecl) {
		uses[r.Name]++
		switch state[r.Name] {
		case 1:
			m.share(r.Name) // it may hold itself
		case 0:
			state[r.Name] = 1
			stack = append(stack, walk{r: r})
		}
	}
	var refs func(t *syntax.Type)
	refs = func(t *syntax.Type) { // bounded by the syntax tree's height
		if t == nil || t.Kind == syntax.FuncType || t.Kind == syntax.IntType {
			return
		}
		for _, a := range t.Args {
			refs(a)
		}
		if r := m.record(t); r != nil {
			use(r)
		}
	}
	for _, p := range params {
		refs(p.Type)
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i == len(top.r.Fields) {
				state[top.r.Name] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			f := top.r.Fields[top.i]
			top.i++
			refs(f.Type)
		}
	}
	for name, n := range uses {
		if n > 1 {
			m.share(name)
		}
	}
	slices.Sort(m.defs)
}

func (m *mapper) share(name string) {
	if m.shared == nil {
		m.shared = map[string]bool{}
	}
	if !m.shared[name] {
		m.shared[name] = true
		m.defs = append(m.defs, name)
	}
}

// unknown warns about a type name the schema cannot map, unless it is a
// type parameter of the function.
func (m *mapper) unknown(t *syntax.Type) {
	if slices.Contains(m.scope.TypeParams, t.Name) {
		return
	}
	m.diags.Warnf(m.path, int(t.Pos.Line), int(t.Pos.Col), "vox/schema/unknown-type",
		"unknown type %s: its schema accepts any JSON value", t.Name)
}

// funcType warns about a parameter of a function type, which no JSON
// value can give.
func (m *mapper) funcType(t *syntax.Type) {
	m.diags.Warnf(m.path, int(t.Pos.Line), int(t.Pos.Col), "vox/schema/function-type",
		"a parameter of type %s cannot be given in JSON: calls that pass it fail", t)
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
func IsOption(t *syntax.Type) bool { return t.IsNamed("Option") }

type mapper struct {
	path   string
	scope  Scope
	diags  *diag.List
	shared map[string]bool // the records written in $defs (plan)
	defs   []string        // their names, sorted
	output bool            // an outputSchema: Option[T] admits null (OutputJSON)
}

func typed(name string, more ...schemajson.Member) schemajson.Value {
	return schemajson.ObjectValue(append([]schemajson.Member{{Key: "type", Value: schemajson.StringValue(name)}}, more...)...)
}

func (m *mapper) typeSchema(t *syntax.Type, depth int) schemajson.Value {
	if t == nil || depth > 64 {
		return schemajson.ObjectValue()
	}
	switch t.Kind {
	case syntax.TupleType:
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
	case syntax.FuncType:
		m.funcType(t)
		return schemajson.ObjectValue()
	case syntax.IntType:
		return schemajson.ObjectValue()
	}
	if r := m.record(t); r != nil {
		if m.shared[r.Name] {
			return schemajson.ObjectValue(schemajson.Member{Key: "$ref", Value: schemajson.StringValue("#/$defs/" + r.Name)})
		}
		return m.recordSchema(r, depth)
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
	case "dec":
		return typed("number")
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
	m.unknown(t)
	return schemajson.ObjectValue()
}

// recordSchema is the schema appendRecord writes.
func (m *mapper) recordSchema(r *syntax.RecordDecl, depth int) schemajson.Value {
	props := make([]schemajson.Member, len(r.Fields))
	required := []schemajson.Value{}
	for i, f := range r.Fields {
		props[i] = schemajson.Member{Key: f.Name, Value: m.typeSchema(f.Type, depth+1)}
		if !IsOption(f.Type) {
			required = append(required, schemajson.StringValue(f.Name))
		}
	}
	return typed("object",
		schemajson.Member{Key: "properties", Value: schemajson.ObjectValue(props...)},
		schemajson.Member{Key: "required", Value: schemajson.ArrayValue(required...)},
		schemajson.Member{Key: "additionalProperties", Value: schemajson.BoolValue(false)})
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
		case syntax.DEC:
			v, err := schemajson.NumberValue(e.Str)
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
