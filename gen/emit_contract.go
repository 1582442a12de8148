package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/schemajson"
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
// compiling. The tools' models are built here; each file's jennifer tree
// only when its job runs.
func contractJobs(cat *registry.Catalog) []fileJob {
	tools := buildContracts(cat)
	const handlersPath = "generated/catalog/handlers.go"
	jobs := []fileJob{{path: handlersPath, render: func() ([]byte, error) {
		return renderJen(handlersPath, handlersFile(cat, tools))
	}}}
	for c := 0; c*toolsPerFile < len(tools); c++ {
		path := fmt.Sprintf("generated/catalog/tools_%03d.go", c)
		jobs = append(jobs, fileJob{path: path, render: func() ([]byte, error) {
			tf := newGeneratedFile("catalog", cat.Source, "")
			for _, tc := range tools[c*toolsPerFile : min(len(tools), (c+1)*toolsPerFile)] {
				tc.emit(tf)
			}
			return renderJen(path, tf)
		}})
	}
	return jobs
}

// handlersFile is handlers.go: the Handlers interface and Bind.
func handlersFile(cat *registry.Catalog, tools []*toolContract) *jen.File {
	f := newGeneratedFile("catalog", cat.Source, "")

	fileComment(f, "Handlers is the typed handler contract of the catalog's MCP tools: one method per tool, "+
		"taking the tool's decoded arguments and returning its result. The binary that serves the catalog implements it; "+
		"a tool without a method, or a method whose tool left the catalog, does not compile. "+
		"Rows listed in exemptions.mcp_tools have no method.")
	f.Type().Id("Handlers").InterfaceFunc(func(g *jen.Group) {
		for i, tc := range tools {
			if i > 0 {
				g.Line()
			}
			comment(g, tc.method+" serves "+tc.op.MCP.Name+" (operation "+strconv.Quote(tc.op.ID)+").")
			g.Id(tc.method).Params(jen.Id("c").Op("*").Qual(toolcallPkg, "Call"), jen.Id("args").Id(tc.args.name)).
				Params(tc.resultType(), jen.Error())
		}
	})
	f.Line()
	fileComment(f, "Bind returns the untyped handler table the server dispatches to: each tool's arguments "+
		"decoded and checked against its input schema (defaults applied), h's method called, the result encoded once.")
	f.Func().Id("Bind").Params(jen.Id("h").Id("Handlers")).Map(jen.String()).Qual(toolcallPkg, "Handler").Block(
		jen.Return(jen.Map(jen.String()).Qual(toolcallPkg, "Handler").ValuesFunc(func(g *jen.Group) {
			for _, tc := range tools {
				g.Line().Lit(tc.op.MCP.Name).Op(":").Qual(toolcallPkg, "Serve").Call(
					jen.Lit(tc.op.MCP.Name), jen.Id("decode"+tc.args.name), jen.Id("h").Dot(tc.method))
			}
			if len(tools) > 0 {
				g.Line()
			}
		})),
	)
	return f
}

// resultType is the first result of the tool's method.
func (tc *toolContract) resultType() jen.Code {
	if tc.result == nil {
		return jen.Op("*").Qual(toolcallPkg, "RawResult")
	}
	return jen.Op("*").Id(tc.result.name)
}

// emit writes one tool's declarations.
func (tc *toolContract) emit(f *jen.File) {
	name := tc.op.MCP.Name
	tc.emitArgs(f)
	if tc.result != nil {
		for _, m := range append([]*structModel{tc.result}, tc.defs...) {
			doc := m.name + " is part of the result of " + name + "."
			if m == tc.result {
				doc = m.name + " is the result of " + name + ", as its output schema declares it."
			}
			if m.doc != "" {
				doc += " " + m.doc
			}
			emitStruct(f, m, doc)
		}
	}
}

// emitArgs writes the arguments struct and its decoder.
func (tc *toolContract) emitArgs(f *jen.File) {
	a := &tc.args
	required := map[string]bool{}
	for _, r := range a.required {
		required[r] = true
	}
	fileComment(f, a.name+" are the arguments of "+tc.op.MCP.Name+", checked against its input schema, with the schema's defaults applied. "+
		"An optional argument without a default is a pointer, nil when absent or null.")
	f.Type().Id(a.name).StructFunc(func(g *jen.Group) {
		for i, fd := range a.fields {
			doc := ""
			if fd.doc != "" {
				doc = fd.goName + ": " + fd.doc
			}
			if fd.def != nil {
				doc = strings.TrimSpace(doc + " Default " + string(schemajson.Compact(*fd.def)) + ".")
			}
			if doc != "" && i > 0 {
				g.Line()
			}
			comment(g, doc)
			g.Id(fd.goName).Add(fd.goType(required[fd.key]))
		}
		if !a.closed {
			if len(a.fields) > 0 {
				g.Line()
			}
			comment(g, "Extra holds the arguments the input schema does not declare (it does not set additionalProperties: false).")
			g.Id("Extra").Map(jen.String()).Qual("encoding/json", "RawMessage")
		}
	})
	f.Line()

	keys := make([]jen.Code, len(a.fields))
	for i, fd := range a.fields {
		keys[i] = jen.Lit(fd.key)
	}
	f.Func().Id("decode"+a.name).Params(jen.Id("raw").Qual("encoding/json", "RawMessage")).Params(jen.Id("args").Id(a.name), jen.Err().Error()).BlockFunc(func(g *jen.Group) {
		g.Id("d").Op(":=").Qual(toolcallPkg, "Decode").Call(jen.Id("raw"))
		if a.closed {
			g.Id("d").Dot("Only").Call(keys...)
		}
		if len(a.required) > 0 {
			req := make([]jen.Code, len(a.required))
			for i, r := range a.required {
				req[i] = jen.Lit(r)
			}
			g.Id("d").Dot("Require").Call(req...)
		}
		for _, fd := range a.fields {
			if fd.def != nil {
				g.Id("args").Dot(fd.goName).Op("=").Add(fd.defaultValue(required[fd.key]))
			}
		}
		// Arguments are checked in the byte order of their names; the
		// values of a string map after every argument.
		var deferred []*argField
		for _, fd := range sortedFields(a.fields) {
			g.Add(fd.decodeCall(required[fd.key]))
			if fd.kind == argStringMap {
				deferred = append(deferred, fd)
			}
		}
		for _, fd := range deferred {
			g.Id("d").Dot("StringMap").Call(jen.Lit(fd.key), jen.Op("&").Id("args").Dot(fd.goName))
		}
		if !a.closed {
			g.Id("args").Dot("Extra").Op("=").Id("d").Dot("Extra").Call(keys...)
		}
		g.Return(jen.Id("args"), jen.Id("d").Dot("Err").Call())
	})
	f.Line()
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
func (fd *argField) baseType() *jen.Statement {
	switch fd.kind {
	case argString:
		return jen.String()
	case argInt:
		return jen.Int64()
	case argFloat:
		return jen.Float64()
	case argBool:
		return jen.Bool()
	case argStrings:
		return jen.Index().String()
	case argStringMap:
		return jen.Map(jen.String()).String()
	}
	return jen.Qual("encoding/json", "RawMessage")
}

func (fd *argField) goType(required bool) jen.Code {
	if fd.pointer(required) {
		return jen.Op("*").Add(fd.baseType())
	}
	return fd.baseType()
}

// defaultValue is the default as a Go value of the field's type.
func (fd *argField) defaultValue(required bool) jen.Code {
	d := *fd.def
	var v jen.Code
	switch fd.kind {
	case argString:
		v = jen.Lit(d.Text)
	case argBool:
		v = jen.Lit(d.Bool)
	case argInt:
		v = jen.Id(d.Text)
		if n, err := strconv.ParseInt(d.Text, 10, 64); err == nil {
			v = jen.Lit(n)
		}
	case argFloat:
		v = jen.Id(d.Text)
	case argStrings:
		items := make([]jen.Code, len(d.Items))
		for i, it := range d.Items {
			items[i] = jen.Lit(it.Text)
		}
		v = jen.Index().String().Values(items...)
	case argStringMap:
		v = jen.Map(jen.String()).String().ValuesFunc(func(g *jen.Group) {
			for _, m := range d.Members {
				g.Lit(m.Key).Op(":").Lit(m.Value.Text)
			}
		})
	default:
		v = rawJSON(schemajson.Compact(d))
	}
	if fd.pointer(required) {
		return jen.Qual(toolcallPkg, "Ptr").Call(jen.Add(fd.baseType()).Parens(v))
	}
	return v
}

// decodeCall is the one statement that checks and reads an argument:
// d.<Kind>(name, &args.Field, toolcall.Rules{...}).
func (fd *argField) decodeCall(required bool) jen.Code {
	var rules []jen.Code
	// A single type is checked by the typed read itself, with the same
	// message; an enum is checked after the type, so it needs the type
	// first.
	if len(fd.types) > 1 || len(fd.types) == 1 && (fd.kind == argRaw || len(fd.enum) > 0) {
		types := make([]jen.Code, len(fd.types))
		for i, t := range fd.types {
			types[i] = jen.Lit(t)
		}
		rules = append(rules, jen.Id("Types").Op(":").Index().String().Values(types...))
	}
	if fd.nullable {
		rules = append(rules, jen.Id("Nullable").Op(":").True())
	}
	if len(fd.enum) > 0 {
		enum := make([]jen.Code, len(fd.enum))
		for i, e := range fd.enum {
			enum[i] = jen.Lit(e)
		}
		rules = append(rules, jen.Id("Enum").Op(":").Index().String().Values(enum...))
	}
	if fd.min != "" {
		rules = append(rules, jen.Id("Min").Op(":").Lit(fd.min))
	}
	if fd.max != "" {
		rules = append(rules, jen.Id("Max").Op(":").Lit(fd.max))
	}
	if fd.minLength > 0 {
		rules = append(rules, jen.Id("MinLength").Op(":").Lit(fd.minLength))
	}
	r := jen.Qual(toolcallPkg, "Rules").Values(rules...)
	dst := jen.Op("&").Id("args").Dot(fd.goName)
	method := map[argKind]string{argString: "String", argInt: "Int", argFloat: "Float", argBool: "Bool", argStrings: "Strings", argRaw: "Raw"}[fd.kind]
	switch {
	case fd.kind == argStringMap:
		return jen.Id("d").Dot("Object").Call(jen.Lit(fd.key), r)
	case fd.pointer(required):
		method += "Ptr"
	}
	return jen.Id("d").Dot(method).Call(jen.Lit(fd.key), dst, r)
}

// emitStruct writes a result struct and its encoder.
func emitStruct(f *jen.File, m *structModel, doc string) {
	fileComment(f, doc)
	f.Type().Id(m.name).StructFunc(func(g *jen.Group) {
		for i, fd := range m.fields {
			d := ""
			if fd.doc != "" {
				d = fd.goName + ": " + fd.doc
			}
			if !fd.required {
				d = strings.TrimSpace(d + " " + fd.goName + " is optional: left out when nil.")
			}
			if d != "" && i > 0 {
				g.Line()
			}
			comment(g, d)
			g.Id(fd.goName).Add(fd.typ.goType(!fd.required))
		}
	})
	f.Line()
	fileComment(f, "EncodeJSON writes "+m.name+" as its JSON object, in the order of the schema.")
	f.Func().Params(jen.Id("r").Op("*").Id(m.name)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Qual(toolcallPkg, "Encoder")).BlockFunc(func(g *jen.Group) {
		g.Id("e").Dot("Open").Call()
		for _, fd := range m.fields {
			field := jen.Id("r").Dot(fd.goName)
			key := jen.Id("e").Dot("Key").Call(jen.Lit(toolcall.Quote(fd.key)))
			if fd.required {
				g.Add(key)
				fd.typ.emitEncode(g, field, !fd.required, 0)
				continue
			}
			g.If(jen.Add(field).Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
				g.Add(key)
				fd.typ.emitEncode(g, field, true, 0)
			})
		}
		g.Id("e").Dot("Close").Call()
	})
	f.Line()
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

func (t *outType) goType(optional bool) jen.Code {
	var base *jen.Statement
	switch t.kind {
	case outString:
		base = jen.String()
	case outInt:
		base = jen.Int64()
	case outFloat:
		base = jen.Float64()
	case outBool:
		base = jen.Bool()
	case outNull:
		base = jen.Qual(toolcallPkg, "Null")
	case outStruct:
		base = jen.Id(t.named.name)
	case outArray:
		base = jen.Index().Add(t.elem.goType(false))
	default:
		base = jen.Qual("encoding/json", "RawMessage")
	}
	if t.pointer(optional) {
		return jen.Op("*").Add(base)
	}
	return base
}

// emitEncode writes the encoding of the value v of type t; depth names
// loop variables of nested arrays.
func (t *outType) emitEncode(g *jen.Group, v *jen.Statement, optional bool, depth int) {
	ptr := t.pointer(optional)
	val := v
	if ptr && t.kind != outStruct {
		val = jen.Op("*").Add(v)
	}
	var write jen.Code
	switch t.kind {
	case outString:
		write = jen.Id("e").Dot("String").Call(val)
	case outInt:
		write = jen.Id("e").Dot("Int").Call(val)
	case outFloat:
		write = jen.Id("e").Dot("Float").Call(val)
	case outBool:
		write = jen.Id("e").Dot("Bool").Call(val)
	case outNull:
		g.Id("e").Dot("Null").Call()
		return
	case outStruct:
		write = jen.Add(v).Dot("EncodeJSON").Call(jen.Id("e"))
	case outArray:
		if t.elem.kind == outString && !t.elem.pointer(false) {
			g.Id("e").Dot("Strings").Call(v)
			return
		}
		i := string(rune('i' + depth))
		g.Id("e").Dot("OpenArray").Call()
		g.For(jen.Id(i).Op(":=").Range().Add(v)).BlockFunc(func(g *jen.Group) {
			g.Id("e").Dot("Elem").Call()
			t.elem.emitEncode(g, jen.Add(v).Index(jen.Id(i)), false, depth+1)
		})
		g.Id("e").Dot("CloseArray").Call()
		return
	default:
		g.Id("e").Dot("Raw").Call(v)
		return
	}
	if ptr && !optional {
		// A nullable value: nil is null.
		g.If(jen.Add(v).Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(write)
		return
	}
	g.Add(write)
}
