package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

const toolcallPkg = ProductModule + "/runtime/toolcall"

// toolsPerFile is how many tools' contracts one generated file holds.
const toolsPerFile = 100

// contractJobs are the files of the typed handler contract of the
// catalog's tools (docs/contracts.md §5): handlers.go with the Handlers
// interface and Bind, and tools_NNN.go files with each tool's arguments,
// result, decoder and encoder. A catalog without MCP tools still gets an
// empty interface, so that code written against the package keeps
// compiling. Each file's job builds its tools' models (contractBuilder)
// and writes them (emit_code.go).
func contractJobs(cat *registry.Catalog) []fileJob {
	b := newContractBuilder(cat)
	var jobs []fileJob
	for c := range b.chunks() {
		path := fmt.Sprintf("generated/catalog/tools_%03d.go", c)
		jobs = append(jobs, fileJob{path: path, render: func() ([]byte, error) {
			w := &codeWriter{}
			w.header("catalog", regenerateCommand, cat.Source, strconv.Quote("encoding/json"), strconv.Quote(toolcallPkg))
			for _, tc := range b.chunk(c) {
				tc.write(w)
			}
			return w.bytes(), nil
		}})
	}
	// Last: it waits for every tool's head.
	return append(jobs, fileJob{path: "generated/catalog/handlers.go", render: func() ([]byte, error) {
		return handlersFile(cat, b.allHeads()), nil
	}})
}

// handlersFile is handlers.go: the Handlers interface and Bind.
func handlersFile(cat *registry.Catalog, tools []toolHead) []byte {
	w := &codeWriter{}
	w.header("catalog", regenerateCommand, cat.Source, strconv.Quote(toolcallPkg))
	w.line()
	w.comment("Handlers is the typed handler contract of the catalog's MCP tools: one method per tool, " +
		"taking the tool's decoded arguments and returning its result. The binary that serves the catalog implements it; " +
		"a tool without a method, or a method whose tool left the catalog, does not compile. " +
		"Rows listed in exemptions.mcp_tools have no method.")
	if len(tools) == 0 {
		w.line("type Handlers interface{}")
	} else {
		w.open("type Handlers interface")
		for i, tc := range tools {
			if i > 0 {
				w.line()
			}
			w.comment(tc.method + " serves " + tc.tool + " (operation " + strconv.Quote(tc.id) + ").")
			w.line(tc.method, "(c *toolcall.Call, args ", tc.args, ") (", tc.result, ", error)")
		}
		w.close("")
	}
	w.line()
	w.comment("Bind returns the untyped handler table the server dispatches to: each tool's arguments " +
		"decoded and checked against its input schema (defaults applied), h's method called, the result encoded once.")
	w.open("func Bind(h Handlers) map[string]toolcall.Handler")
	table := goComposite("map[string]toolcall.Handler")
	for _, tc := range tools {
		name := strconv.Quote(tc.tool)
		table.add(name, goText("toolcall.Serve("+name+", decode"+tc.args+", h."+tc.method+")"))
	}
	// The map literal's keys align as in any composite literal: the table
	// writer lays it out (emit_table.go).
	ts := &tableStream{b: append(w.b, "\treturn "...)}
	ts.value(table, w.indent)
	w.b = append(ts.b, '\n')
	w.close("")
	return w.bytes()
}

// resultType is the first result of the tool's method.
func (tc *toolContract) resultType() string {
	if tc.result == nil {
		return "*toolcall.RawResult"
	}
	return "*" + tc.result.name
}

// write writes one tool's declarations.
func (tc *toolContract) write(w *codeWriter) {
	name := tc.op.MCP.Name
	tc.writeArgs(w)
	if tc.result != nil {
		for _, m := range append([]*structModel{tc.result}, tc.defs...) {
			doc := m.name + " is part of the result of " + name + "."
			if m == tc.result {
				doc = m.name + " is the result of " + name + ", as its output schema declares it."
			}
			if m.doc != "" {
				doc += " " + m.doc
			}
			writeResult(w, m, doc)
		}
	}
}

// structField is one field of a struct type being written.
type structField struct {
	doc, name, typ string
	blankBefore    bool // an empty line before the field (and its doc)
}

// writeStruct writes "type name struct {...}" after an empty line and
// doc; the fields align unless a comment or an empty line separates them.
func writeStruct(w *codeWriter, doc, name string, fields []structField) {
	w.line()
	w.comment(doc)
	if len(fields) == 0 {
		w.line("type ", name, " struct{}")
		return
	}
	sep := "\v"
	if len(fields) == 1 {
		sep = " "
	}
	w.open("type ", name, " struct")
	for _, f := range fields {
		if f.blankBefore {
			w.line()
		}
		w.comment(f.doc)
		w.field(f.name, sep, f.typ)
	}
	w.close("")
}

// writeArgs writes the arguments struct and its decoder.
func (tc *toolContract) writeArgs(w *codeWriter) {
	a := &tc.args
	required := map[string]bool{}
	for _, r := range a.required {
		required[r] = true
	}
	var fields []structField
	for i, fd := range a.fields {
		doc := ""
		if fd.doc != "" {
			doc = fd.goName + ": " + fd.doc
		}
		if fd.def != nil {
			doc = strings.TrimSpace(doc + " Default " + string(schemajson.Compact(*fd.def)) + ".")
		}
		fields = append(fields, structField{doc: doc, name: fd.goName, typ: fd.goType(required[fd.key]), blankBefore: doc != "" && i > 0})
	}
	if !a.closed {
		fields = append(fields, structField{
			doc:  "Extra holds the arguments the input schema does not declare (it does not set additionalProperties: false).",
			name: "Extra", typ: "map[string]json.RawMessage", blankBefore: len(a.fields) > 0,
		})
	}
	writeStruct(w, a.name+" are the arguments of "+tc.op.MCP.Name+", checked against its input schema, with the schema's defaults applied. "+
		"An optional argument without a default is a pointer, nil when absent or null.", a.name, fields)

	keys := make([]string, len(a.fields))
	for i, fd := range a.fields {
		keys[i] = strconv.Quote(fd.key)
	}
	w.line()
	w.open("func decode", a.name, "(raw json.RawMessage) (args ", a.name, ", err error)")
	w.line("d := toolcall.Decode(raw)")
	if a.closed {
		w.line("d.Only(", strings.Join(keys, ", "), ")")
	}
	if len(a.required) > 0 {
		req := make([]string, len(a.required))
		for i, r := range a.required {
			req[i] = strconv.Quote(r)
		}
		w.line("d.Require(", strings.Join(req, ", "), ")")
	}
	for _, fd := range a.fields {
		if fd.def != nil {
			w.line("args.", fd.goName, " = ", fd.defaultValue(required[fd.key], w.indent))
		}
	}
	// Arguments are checked in the byte order of their names; the values
	// of a string map after every argument.
	var deferred []*argField
	for _, fd := range sortedFields(a.fields) {
		w.line(fd.decodeCall(required[fd.key]))
		if fd.kind == argStringMap {
			deferred = append(deferred, fd)
		}
	}
	for _, fd := range deferred {
		w.line("d.StringMap(", strconv.Quote(fd.key), ", &args.", fd.goName, ")")
	}
	if !a.closed {
		w.line("args.Extra = d.Extra(", strings.Join(keys, ", "), ")")
	}
	w.line("return args, d.Err()")
	w.close("")
}

// sortedFields returns the fields in the byte order of their JSON names.
func sortedFields(fs []*argField) []*argField {
	out := append([]*argField(nil), fs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].key < out[j-1].key; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// baseType is the Go type of a decoded value of the field.
func (fd *argField) baseType() string {
	switch fd.kind {
	case argString:
		return "string"
	case argInt:
		return "int64"
	case argFloat:
		return "float64"
	case argBool:
		return "bool"
	case argStrings:
		return "[]string"
	case argStringMap:
		return "map[string]string"
	}
	return "json.RawMessage"
}

func (fd *argField) goType(required bool) string {
	if fd.pointer(required) {
		return "*" + fd.baseType()
	}
	return fd.baseType()
}

// quotedList is "a", "b" of a composite literal on one line.
func quotedList(v []string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// defaultValue is the default as a Go expression of the field's type; a
// schema literal longer than a line continues one level deeper than
// indent, as gofmt lays out a broken binary expression.
func (fd *argField) defaultValue(required bool, indent int) string {
	d := *fd.def
	var v string
	switch fd.kind {
	case argString:
		v = strconv.Quote(d.Text)
	case argBool:
		v = strconv.FormatBool(d.Bool)
	case argInt:
		v = d.Text
		if n, err := strconv.ParseInt(d.Text, 10, 64); err == nil {
			v = "int64(" + strconv.FormatInt(n, 10) + ")" // as jennifer writes an int64
		}
	case argFloat:
		v = d.Text
	case argStrings:
		items := make([]string, len(d.Items))
		for i, it := range d.Items {
			items[i] = it.Text
		}
		v = "[]string{" + quotedList(items) + "}"
	case argStringMap:
		pairs := make([]string, len(d.Members))
		for i, m := range d.Members {
			pairs[i] = strconv.Quote(m.Key) + ": " + strconv.Quote(m.Value.Text)
		}
		v = "map[string]string{" + strings.Join(pairs, ", ") + "}"
	default:
		frags := schemaFragments(schemajson.Compact(d))
		lits := make([]string, len(frags))
		for i, f := range frags {
			lits[i] = fragmentLit(f)
		}
		v = "json.RawMessage(" + strings.Join(lits, " +\n"+strings.Repeat("\t", indent+1)) + ")"
	}
	if fd.pointer(required) {
		return "toolcall.Ptr(" + fd.baseType() + "(" + v + "))"
	}
	return v
}

// decodeCall is the one statement that checks and reads an argument:
// d.<Kind>(name, &args.Field, toolcall.Rules{...}).
func (fd *argField) decodeCall(required bool) string {
	var rules []string
	// A single type is checked by the typed read itself, with the same
	// message; an enum is checked after the type, so it needs the type
	// first.
	if len(fd.types) > 1 || len(fd.types) == 1 && (fd.kind == argRaw || len(fd.enum) > 0) {
		rules = append(rules, "Types: []string{"+quotedList(fd.types)+"}")
	}
	if fd.nullable {
		rules = append(rules, "Nullable: true")
	}
	if len(fd.enum) > 0 {
		rules = append(rules, "Enum: []string{"+quotedList(fd.enum)+"}")
	}
	if fd.min != "" {
		rules = append(rules, "Min: "+strconv.Quote(fd.min))
	}
	if fd.max != "" {
		rules = append(rules, "Max: "+strconv.Quote(fd.max))
	}
	if fd.minLength > 0 {
		rules = append(rules, "MinLength: "+strconv.Itoa(fd.minLength))
	}
	r := "toolcall.Rules{" + strings.Join(rules, ", ") + "}"
	method := map[argKind]string{argString: "String", argInt: "Int", argFloat: "Float", argBool: "Bool", argStrings: "Strings", argRaw: "Raw"}[fd.kind]
	switch {
	case fd.kind == argStringMap:
		return "d.Object(" + strconv.Quote(fd.key) + ", " + r + ")"
	case fd.pointer(required):
		method += "Ptr"
	}
	return "d." + method + "(" + strconv.Quote(fd.key) + ", &args." + fd.goName + ", " + r + ")"
}

// writeResult writes a result struct and its encoder.
func writeResult(w *codeWriter, m *structModel, doc string) {
	fields := make([]structField, len(m.fields))
	for i, fd := range m.fields {
		d := ""
		if fd.doc != "" {
			d = fd.goName + ": " + fd.doc
		}
		if !fd.required {
			d = strings.TrimSpace(d + " " + fd.goName + " is optional: left out when nil.")
		}
		fields[i] = structField{doc: d, name: fd.goName, typ: fd.typ.goType(!fd.required), blankBefore: d != "" && i > 0}
	}
	writeStruct(w, doc, m.name, fields)

	w.line()
	w.comment("EncodeJSON writes " + m.name + " as its JSON object, in the order of the schema.")
	w.open("func (r *", m.name, ") EncodeJSON(e *toolcall.Encoder)")
	w.line("e.Open()")
	for _, fd := range m.fields {
		field := "r." + fd.goName
		key := "e.Key(" + strconv.Quote(toolcall.Quote(fd.key)) + ")"
		if fd.required {
			w.line(key)
			fd.typ.writeEncode(w, field, false, 0)
			continue
		}
		w.open("if ", field, " != nil")
		w.line(key)
		fd.typ.writeEncode(w, field, true, 0)
		w.close("")
	}
	w.line("e.Close()")
	w.close("")
}

// pointer reports whether a value of the type is held through a pointer:
// nullable and optional scalars and structs, recursive structs.
func (t *outType) pointer(optional bool) bool {
	switch t.kind {
	case outString, outInt, outFloat, outBool, outNull:
		return t.nullable && t.kind != outNull || optional
	case outStruct:
		return t.nullable || optional || t.recursive
	}
	return false
}

func (t *outType) goType(optional bool) string {
	var base string
	switch t.kind {
	case outString:
		base = "string"
	case outInt:
		base = "int64"
	case outFloat:
		base = "float64"
	case outBool:
		base = "bool"
	case outNull:
		base = "toolcall.Null"
	case outStruct:
		base = t.named.name
	case outArray:
		base = "[]" + t.elem.goType(false)
	default:
		base = "json.RawMessage"
	}
	if t.pointer(optional) {
		return "*" + base
	}
	return base
}

// writeEncode writes the encoding of the value v of type t; depth names
// loop variables of nested arrays.
func (t *outType) writeEncode(w *codeWriter, v string, optional bool, depth int) {
	ptr := t.pointer(optional)
	val := v
	if ptr && t.kind != outStruct {
		val = "*" + v
	}
	var write string
	switch t.kind {
	case outString:
		write = "e.String(" + val + ")"
	case outInt:
		write = "e.Int(" + val + ")"
	case outFloat:
		write = "e.Float(" + val + ")"
	case outBool:
		write = "e.Bool(" + val + ")"
	case outNull:
		w.line("e.Null()")
		return
	case outStruct:
		write = v + ".EncodeJSON(e)"
	case outArray:
		if t.elem.kind == outString && !t.elem.pointer(false) {
			w.line("e.Strings(", v, ")")
			return
		}
		i := string(rune('i' + depth))
		w.line("e.OpenArray()")
		w.open("for ", i, " := range ", v)
		w.line("e.Elem()")
		t.elem.writeEncode(w, v+"["+i+"]", false, depth+1)
		w.close("")
		w.line("e.CloseArray()")
		return
	default:
		w.line("e.Raw(", v, ")")
		return
	}
	if ptr && !optional {
		// A nullable value: nil is null.
		w.open("if ", v, " == nil")
		w.line("e.Null()")
		w.close(" else {")
		w.line(write)
		w.close("")
		return
	}
	w.line(write)
}
