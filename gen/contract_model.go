package gen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// The typed handler contract (docs/contracts.md §5) is built from each
// catalog tool's schemas: an arguments struct with the input schema's
// defaults, a result type matching the output schema, and the method of
// the Handlers interface that takes one and returns the other. This file
// maps schemas to Go types; emit_contract.go writes the code.

// toolContract is the typed contract of one catalog MCP tool.
type toolContract struct {
	op     *registry.Operation
	method string // the Handlers method and the prefix of the tool's types
	args   argsModel
	result *structModel // nil: the output schema declares no properties
	// defs are the other named types of the result: nested objects and
	// the output schema's $defs, in the order they were first met.
	defs []*structModel
}

// argsModel is the arguments struct of a tool.
type argsModel struct {
	name     string
	closed   bool     // additionalProperties: false
	required []string // in the schema's order
	fields   []*argField
}

// argKind is how an argument is decoded into Go.
type argKind int

const (
	argRaw       argKind = iota // json.RawMessage, checked by type only
	argString                   // string
	argInt                      // int64
	argFloat                    // float64
	argBool                     // bool
	argStrings                  // []string (array of strings)
	argStringMap                // map[string]string (object of strings)
)

// argField is one property of an input schema.
type argField struct {
	key, goName, doc string
	kind             argKind
	types            []string          // the declared JSON types, null included
	nullable         bool              // the types admit null
	def              *schemajson.Value // the default, nil when none
	enum             []string          // allowed values as encoding/json writes them
	enumText         string            // the same joined by ", " for the message
	min, max         string            // exact bounds (big.Rat strings), "" when none
	minLength        int
}

// pointer reports whether the field is a pointer: an optional scalar
// without default (absent is nil), or a nullable one.
func (f *argField) pointer(required bool) bool {
	switch f.kind {
	case argString, argInt, argFloat, argBool:
		return f.nullable || (!required && f.def == nil)
	}
	return false
}

// structModel is a named struct of a result.
type structModel struct {
	name, doc string
	fields    []*resultField
}

// resultField is one property of an object in an output schema.
type resultField struct {
	key, goName, doc string
	typ              *outType
	required         bool
}

type outKind int

const (
	outRaw outKind = iota
	outString
	outInt
	outFloat
	outBool
	outNull
	outStruct
	outArray
)

// outType is the Go type of a result value.
type outType struct {
	kind      outKind
	nullable  bool         // type [T, "null"]: a pointer, nil written as null
	elem      *outType     // outArray
	named     *structModel // outStruct
	recursive bool         // outStruct referring to a type being built: always a pointer
}

// namer hands out Go identifiers, unique within one scope.
type namer struct{ used map[string]bool }

func newNamer(reserved ...string) *namer {
	n := &namer{used: map[string]bool{}}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

// take returns base, or base2, base3... when taken.
func (n *namer) take(base string) string {
	name := base
	for i := 2; n.used[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	n.used[name] = true
	return name
}

// initialisms are written in capitals inside Go names (Go's convention).
var initialisms = map[string]string{"id": "ID", "ids": "IDs", "uri": "URI", "url": "URL", "json": "JSON", "http": "HTTP", "api": "API", "md": "MD", "ms": "MS", "sql": "SQL", "ssh": "SSH", "cli": "CLI", "mcp": "MCP", "ok": "OK"}

// exportedName turns any JSON key or tool name into an exported Go
// identifier: words (runs of letters and digits) capitalised and joined,
// initialisms in capitals, "X" in front when the result would not start
// with an upper-case letter (a digit, a letter without case, nothing).
func exportedName(s string) string {
	var b strings.Builder
	word := func(w string) {
		if w == "" {
			return
		}
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			return
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	start := -1
	for i, r := range s {
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case isWord && start < 0:
			start = i
		case !isWord && start >= 0:
			word(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		word(s[start:])
	}
	name := b.String()
	if first := []rune(name + " ")[0]; !unicode.IsUpper(first) {
		name = "X" + name
	}
	return name
}

// contractBuilder maps every catalog MCP tool that has a handler (not in
// exemptions.mcp_tools) to its typed contract. Type names are unique
// across the package, and identifiers of the package's other
// declarations are reserved, so the tools are named in catalog order; the
// models are built one file's worth (toolsPerFile) at a time, in order, by
// the job that writes that file, and dropped when it is written, so a
// large catalog never holds every tool's model at once. What handlers.go
// needs of each tool is kept (heads).
type contractBuilder struct {
	mu    sync.Mutex
	built *sync.Cond // signalled when a chunk is built
	types *namer
	ops   []*registry.Operation
	next  int        // chunks built so far
	heads []toolHead // of the tools built so far
}

// toolHead is what handlers.go says of one tool.
type toolHead struct {
	tool, id, method, args, result string
}

func newContractBuilder(cat *registry.Catalog) *contractBuilder {
	b := &contractBuilder{types: newNamer("Catalog", "Handlers", "Bind")}
	b.built = sync.NewCond(&b.mu)
	exempt := map[string]bool{}
	for _, n := range cat.Exemptions.MCPTools {
		exempt[n] = true
	}
	for _, op := range cat.MCPTools() {
		if !exempt[op.MCP.Name] {
			b.ops = append(b.ops, op)
		}
	}
	return b
}

// chunks is how many tools_NNN.go files the tools fill.
func (b *contractBuilder) chunks() int { return (len(b.ops) + toolsPerFile - 1) / toolsPerFile }

// chunk builds the models of the tools of file c, once the files before
// it are built (their jobs started earlier and build without waiting).
func (b *contractBuilder) chunk(c int) []*toolContract {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.next < c {
		b.built.Wait()
	}
	var out []*toolContract
	for _, op := range b.ops[c*toolsPerFile : min(len(b.ops), (c+1)*toolsPerFile)] {
		tc := &toolContract{op: op}
		tc.method = b.types.take(exportedName(op.MCP.Name))
		tc.args = buildArgs(b.types.take(tc.method+"Args"), op.MCP.InputSchema)
		tc.buildResult(b.types, op.MCP.OutputSchema)
		b.heads = append(b.heads, toolHead{tool: op.MCP.Name, id: op.ID, method: tc.method, args: tc.args.name, result: tc.resultType()})
		out = append(out, tc)
	}
	b.next++
	b.built.Broadcast()
	return out
}

// allHeads waits until every chunk is built and returns every tool's head.
func (b *contractBuilder) allHeads() []toolHead {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.next < b.chunks() {
		b.built.Wait()
	}
	return b.heads
}

func parseSchema(lit []byte) (schemajson.Value, bool) {
	if len(lit) == 0 {
		return schemajson.Value{}, false
	}
	v, err := schemajson.Parse(lit)
	return v, err == nil && v.Kind == schemajson.Object
}

// schemaTypes returns the JSON types a schema declares ("type" as a string
// or a list of strings), nil when it declares none.
//
// A union written portably, anyOf of schemas that each give only a type
// ({"anyOf":[{"type":"string"},{"type":"null"}]}, docs/tool-results.md
// §2), gives the same types as the type array it replaces.
func schemaTypes(s schemajson.Value) []string {
	t, ok := s.Get("type")
	if !ok {
		any, ok := s.Get("anyOf")
		if !ok || any.Kind != schemajson.Array {
			return nil
		}
		var out []string
		for _, it := range any.Items {
			ty, ok := it.Get("type")
			if it.Kind != schemajson.Object || len(it.Members) != 1 || !ok || ty.Kind != schemajson.String {
				return nil
			}
			out = append(out, ty.Text)
		}
		return out
	}
	switch t.Kind {
	case schemajson.String:
		return []string{t.Text}
	case schemajson.Array:
		var out []string
		for _, it := range t.Items {
			if it.Kind == schemajson.String {
				out = append(out, it.Text)
			}
		}
		return out
	}
	return nil
}

func stringOf(s schemajson.Value, key string) string {
	if v, ok := s.Get(key); ok && v.Kind == schemajson.String {
		return v.Text
	}
	return ""
}

// buildArgs maps an input schema to the arguments struct.
func buildArgs(name string, lit []byte) argsModel {
	m := argsModel{name: name}
	s, ok := parseSchema(lit)
	if !ok {
		return m
	}
	if ap, ok := s.Get("additionalProperties"); ok && ap.Kind == schemajson.Bool && !ap.Bool {
		m.closed = true
	}
	if req, ok := s.Get("required"); ok && req.Kind == schemajson.Array {
		for _, it := range req.Items {
			if it.Kind == schemajson.String {
				m.required = append(m.required, it.Text)
			}
		}
	}
	props, _ := s.Get("properties")
	fields := newNamer("Extra")
	for _, p := range props.Members {
		f := &argField{key: p.Key, goName: fields.take(exportedName(p.Key)), doc: stringOf(p.Value, "description")}
		buildArgField(f, p.Value)
		m.fields = append(m.fields, f)
	}
	return m
}

func buildArgField(f *argField, s schemajson.Value) {
	if s.Kind != schemajson.Object {
		return // a boolean schema: anything goes, unchecked
	}
	f.types = schemaTypes(s)
	var nonNull []string
	for _, t := range f.types {
		if t == "null" {
			f.nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	if len(nonNull) == 1 {
		switch nonNull[0] {
		case "string":
			f.kind = argString
		case "integer":
			f.kind = argInt
		case "number":
			f.kind = argFloat
		case "boolean":
			f.kind = argBool
		case "array":
			if items, ok := s.Get("items"); ok && slices.Equal(schemaTypes(items), []string{"string"}) && len(items.Members) == 1 {
				f.kind = argStrings
			}
		case "object":
			_, hasProps := s.Get("properties")
			if ap, ok := s.Get("additionalProperties"); ok && !hasProps && slices.Equal(schemaTypes(ap), []string{"string"}) && len(ap.Members) == 1 {
				f.kind = argStringMap
			}
		}
	}
	if d, ok := s.Get("default"); ok {
		d := d
		f.def = &d
		if !defaultFits(f.kind, d) {
			// The catalog loader reports this with a position; a default
			// that does not fit is passed on as raw JSON.
			f.kind = argRaw
		}
	}
	if e, ok := s.Get("enum"); ok && e.Kind == schemajson.Array {
		for _, it := range e.Items {
			f.enum = append(f.enum, encodingJSONText(it))
		}
		f.enumText = strings.Join(f.enum, ", ")
	}
	f.min, f.max = exactBound(s, "minimum"), exactBound(s, "maximum")
	if ml, ok := s.Get("minLength"); ok && ml.Kind == schemajson.Number {
		var n int
		if _, err := fmt.Sscan(ml.Text, &n); err == nil {
			f.minLength = n
		}
	}
}

// defaultFits reports whether a default value can be written as a Go
// value of the kind.
func defaultFits(k argKind, d schemajson.Value) bool {
	switch k {
	case argString:
		return d.Kind == schemajson.String
	case argBool:
		return d.Kind == schemajson.Bool
	case argFloat:
		return d.Kind == schemajson.Number
	case argInt:
		r, ok := new(big.Rat).SetString(d.Text)
		return d.Kind == schemajson.Number && ok && r.IsInt() && r.Num().IsInt64()
	case argStrings:
		if d.Kind != schemajson.Array {
			return false
		}
		for _, it := range d.Items {
			if it.Kind != schemajson.String {
				return false
			}
		}
		return true
	case argStringMap:
		if d.Kind != schemajson.Object {
			return false
		}
		for _, m := range d.Members {
			if m.Value.Kind != schemajson.String {
				return false
			}
		}
		return true
	}
	return true
}

// encodingJSONText is a value as encoding/json writes it after decoding
// it with UseNumber: the form enum values are compared and shown in.
func encodingJSONText(v schemajson.Value) string {
	var x any
	dec := json.NewDecoder(strings.NewReader(string(schemajson.Compact(v))))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return string(schemajson.Compact(v))
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// exactBound is a numeric keyword as an exact fraction ("1", "1/2"), as
// argument errors print it; "" when absent.
func exactBound(s schemajson.Value, key string) string {
	v, ok := s.Get(key)
	if !ok || v.Kind != schemajson.Number {
		return ""
	}
	r, ok := new(big.Rat).SetString(v.Text)
	if !ok {
		return ""
	}
	return r.RatString()
}

// buildResult maps an output schema to the result type and its named
// types.
func (tc *toolContract) buildResult(types *namer, lit []byte) {
	s, ok := parseSchema(lit)
	if !ok {
		return
	}
	if _, hasProps := s.Get("properties"); !hasProps {
		return
	}
	b := &resultBuilder{tc: tc, types: types, root: s, defs: map[string]*structModel{}, building: map[*structModel]bool{}}
	tc.result = b.structOf(types.take(tc.method+"Result"), s)
}

type resultBuilder struct {
	tc       *toolContract
	types    *namer
	root     schemajson.Value
	defs     map[string]*structModel
	building map[*structModel]bool
}

func (b *resultBuilder) structOf(name string, s schemajson.Value) *structModel {
	return b.fill(&structModel{name: name}, s)
}

// fill sets the fields of m from the object schema s.
func (b *resultBuilder) fill(m *structModel, s schemajson.Value) *structModel {
	m.doc = stringOf(s, "description")
	b.building[m] = true
	defer delete(b.building, m)
	required := map[string]bool{}
	if req, ok := s.Get("required"); ok && req.Kind == schemajson.Array {
		for _, it := range req.Items {
			if it.Kind == schemajson.String {
				required[it.Text] = true
			}
		}
	}
	props, _ := s.Get("properties")
	fields := newNamer()
	for _, p := range props.Members {
		goName := fields.take(exportedName(p.Key))
		f := &resultField{key: p.Key, goName: goName, doc: stringOf(p.Value, "description"), required: required[p.Key]}
		f.typ = b.typeOf(m.name+goName, p.Value)
		m.fields = append(m.fields, f)
	}
	return m
}

// typeOf maps a property schema to its Go type; name is the name a nested
// object type gets.
func (b *resultBuilder) typeOf(name string, s schemajson.Value) *outType {
	if s.Kind != schemajson.Object {
		return &outType{kind: outRaw}
	}
	if ref := stringOf(s, "$ref"); ref != "" {
		m, recursive := b.ref(ref)
		if m == nil {
			return &outType{kind: outRaw}
		}
		return &outType{kind: outStruct, named: m, recursive: recursive}
	}
	types := schemaTypes(s)
	t := &outType{}
	var nonNull []string
	for _, ty := range types {
		if ty == "null" {
			t.nullable = true
		} else {
			nonNull = append(nonNull, ty)
		}
	}
	switch {
	case len(types) == 1 && types[0] == "null":
		return &outType{kind: outNull}
	case len(nonNull) != 1:
		return &outType{kind: outRaw}
	}
	switch nonNull[0] {
	case "string":
		t.kind = outString
	case "integer":
		t.kind = outInt
	case "number":
		t.kind = outFloat
	case "boolean":
		t.kind = outBool
	case "array":
		items, ok := s.Get("items")
		if !ok {
			return &outType{kind: outRaw}
		}
		t.kind = outArray
		t.elem = b.typeOf(name+"Item", items)
	case "object":
		if _, hasProps := s.Get("properties"); !hasProps {
			return &outType{kind: outRaw}
		}
		t.kind = outStruct
		t.named = &structModel{name: b.types.take(name)}
		b.tc.defs = append(b.tc.defs, t.named)
		b.fill(t.named, s)
	default:
		return &outType{kind: outRaw}
	}
	return t
}

// ref resolves "#/$defs/<name>" (or "#/definitions/<name>") to the named
// type of that definition, building it on first use. recursive reports a
// reference to a type still being built.
func (b *resultBuilder) ref(ref string) (*structModel, bool) {
	var key, defName string
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if strings.HasPrefix(ref, prefix) {
			key, defName = prefix[2:len(prefix)-1], strings.TrimPrefix(ref, prefix)
		}
	}
	if key == "" || strings.Contains(defName, "/") {
		return nil, false
	}
	if m, ok := b.defs[ref]; ok {
		return m, b.building[m]
	}
	defs, _ := b.root.Get(key)
	def, ok := defs.Get(defName)
	if !ok || def.Kind != schemajson.Object || !slices.Equal(schemaTypes(def), []string{"object"}) {
		return nil, false
	}
	if _, hasProps := def.Get("properties"); !hasProps {
		return nil, false
	}
	m := &structModel{name: b.types.take(b.tc.method + exportedName(defName))}
	b.defs[ref] = m
	b.tc.defs = append(b.tc.defs, m)
	b.fill(m, def)
	return m, false
}
