package schema

import (
	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Shape is how a tool's result leaves a call, decided by the declared
// result type alone (docs/tool-results.md §2), so that the tool's listing
// (its outputSchema) and its calls agree without running anything.
type Shape uint8

// The result shapes.
const (
	// Plain: one text block (the string itself, or compact JSON) and
	// structuredContent {"result": <json>}; no outputSchema.
	Plain Shape = iota
	// OneContent and ContentList: `to Content` and `to list[Content]`,
	// the blocks themselves; no structuredContent.
	OneContent
	ContentList
	// Structured: an object-shaped T (a record of the file, or a map):
	// outputSchema from T, structuredContent the value, and one text
	// block holding the same JSON.
	Structured
)

// ResultShape returns the shape of a result of declared type t and the
// type that decides it: Result[T, E] is T's (an Err fails the call);
// Option[T] is plain (None is null, which no object schema admits). A
// record named Content of the file is a record.
func ResultShape(t *syntax.Type, records map[string]*syntax.RecordDecl) (Shape, *syntax.Type) {
	for t.IsNamed("Result") && len(t.Args) > 0 {
		t = t.Args[0]
	}
	if t == nil || t.Kind != syntax.NamedType {
		return Plain, t
	}
	if _, ok := records[t.Name]; ok && len(t.Args) == 0 {
		return Structured, t
	}
	switch t.Name {
	case "Content":
		if len(t.Args) == 0 {
			return OneContent, t
		}
	case "list", "List":
		if len(t.Args) == 1 && t.Args[0].IsNamed("Content") && len(t.Args[0].Args) == 0 {
			if _, rec := records["Content"]; !rec {
				return ContentList, t
			}
		}
	case "map", "Map":
		return Structured, t
	}
	return Plain, t
}

// OutputJSON returns the outputSchema of a tool whose result type t has
// the Structured shape: T's schema as an input schema writes it (records
// used more than once, or holding themselves, under $defs), except that
// an Option field admits null, since None leaves as null. Its top level
// is always an object schema, as MCP requires.
func OutputJSON(path string, t *syntax.Type, sc Scope, diags *diag.List) []byte {
	m := mapper{path: path, scope: sc, diags: diags, output: true}
	m.plan([]*syntax.Param{{Name: "result", Type: t}})
	var body []byte
	if r := m.record(t); r != nil {
		body = m.appendRecord(nil, r, 0, nil) // in place, even when also under $defs
	} else {
		body = m.appendType(nil, t, 0, nil)
	}
	if len(m.defs) == 0 {
		return body
	}
	// $defs sorts first among the keys of the canonical form.
	b := []byte(`{"$defs":{`)
	for i, name := range m.defs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, name)
		b = m.appendRecord(b, sc.Records[name], 0, nil)
	}
	b = append(b, `},`...)
	return append(b, body[1:]...)
}

// WrapMarker is the key, true in the outputSchema of a plain result,
// that says the value is wrapped as {"result": value}: FastMCP, the most
// used server framework, marks the same wrapping x-fastmcp-wrap-result
// (docs/tool-results.md §2).
const WrapMarker = "x-vox-wrap-result"

// WrappedOutputJSON returns the outputSchema of a tool whose result type
// t has the Plain shape: an object with the one required property result,
// t's schema (Option[T] admits null, written anyOf, never a type array),
// and WrapMarker. A type the schema cannot describe is {} there, with no
// warning: the result is still sent, only not described.
func WrappedOutputJSON(path string, t *syntax.Type, sc Scope) []byte {
	var quiet diag.List
	m := mapper{path: path, scope: sc, diags: &quiet, output: true}
	m.plan([]*syntax.Param{{Name: "result", Type: t}})
	b := []byte{'{'}
	if len(m.defs) > 0 {
		b = append(b, `"$defs":{`...)
		for i, name := range m.defs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendKey(b, name)
			b = m.appendRecord(b, sc.Records[name], 0, nil)
		}
		b = append(b, `},`...)
	}
	b = append(b, `"properties":{"result":`...)
	b = m.appendType(b, t, 0, nil)
	b = append(b, `},"required":["result"],"type":"object",`...)
	b = appendKey(b, WrapMarker)
	return append(b, `true}`...)
}

func appendKey(b []byte, k string) []byte {
	return append(schemajson.AppendString(b, k), ':')
}

// String names the shape as docs/tool-results.md §2 does.
func (s Shape) String() string {
	switch s {
	case OneContent:
		return "content"
	case ContentList:
		return "content list"
	case Structured:
		return "structured"
	}
	return "plain"
}
