package vox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// An explicit input schema, @input_schema(r#"{...}"#) on a tool
// (docs/vox-language.md, Arguments and results), is the tool's listed
// inputSchema as written, for JSON Schema 2020-12 features the parameter
// types do not say ($schema, $defs a record used once would not get,
// patterns, bounds). Calls check their arguments against it with a JSON
// Schema validator, then against the parameter types as always, so the
// listing never promises what the calls do not hold.

// inputSchema checks the explicit schema of tool fn: a JSON object
// schema, valid JSON Schema (2020-12 unless its $schema says otherwise),
// whose properties are exactly the parameters. It returns the schema
// compiled for calls and its compact text for the listing. No $ref may
// reach outside the schema: nothing is loaded from a file or the network.
func inputSchema(fn *syntax.FnDecl) (*jsonschema.Schema, []byte, error) {
	text := []byte(fn.InputSchema)
	var compact bytes.Buffer
	if err := json.Compact(&compact, text); err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, nil, errors.New(`an input schema must be an object schema with "type": "object", as MCP requires`)
	}
	props, _ := obj["properties"].(map[string]any)
	var params []string
	for _, p := range fn.Params {
		params = append(params, p.Name)
		if _, ok := props[p.Name]; !ok {
			return nil, nil, fmt.Errorf("parameter %s is not among the schema's properties: its properties must be the parameters of %s", p.Name, fn.Name)
		}
	}
	for name := range props {
		if !slices.Contains(params, name) {
			return nil, nil, fmt.Errorf("property %s is not a parameter of %s: the schema's properties must be its parameters", name, fn.Name)
		}
	}
	if err := checkHeaderAnnotations(props); err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no scheme: no file or URL is ever read
	const url = "mem:///input-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, err
	}
	sch, err := c.Compile(url)
	var load *jsonschema.LoadURLError
	switch {
	case errors.As(err, &load):
		return nil, nil, fmt.Errorf("a reference leads outside the schema, to %s: only references inside it (#/$defs/...) are allowed; nothing is read from a file or the network", load.URL)
	case err != nil:
		return nil, nil, fmt.Errorf("not a valid JSON Schema: %s", oneLine(err))
	}
	return sch, compact.Bytes(), nil
}

// checkHeaderAnnotations checks the x-mcp-header annotations of a
// schema's properties, at any depth (SEP-2243; docs/vox-language.md,
// Arguments and results): an annotated property travels also in the HTTP
// header Mcp-Param-<value>, so the value must be an HTTP token, unique
// whatever its case, on a property of type string, integer or boolean.
// MCP servers must refuse a tool that breaks these rules, so the checker
// does. The walk uses a work list: a deep schema cannot deepen the stack.
func checkHeaderAnnotations(props map[string]any) error {
	type level struct {
		path  string
		props map[string]any
	}
	seen := map[string]string{}
	work := []level{{"", props}}
	for len(work) > 0 {
		l := work[len(work)-1]
		work = work[:len(work)-1]
		for _, name := range slices.Sorted(maps.Keys(l.props)) {
			prop, _ := l.props[name].(map[string]any)
			path := l.path + name
			if inner, ok := prop["properties"].(map[string]any); ok {
				work = append(work, level{path + ".", inner})
			}
			raw, annotated := prop["x-mcp-header"]
			if !annotated {
				continue
			}
			header, _ := raw.(string)
			if header == "" {
				return fmt.Errorf(`property %s: "x-mcp-header" must be a non-empty string, the name after Mcp-Param- of the header the argument travels in`, path)
			}
			if i := strings.IndexFunc(header, func(c rune) bool { return !isHTTPTokenChar(c) }); i >= 0 {
				bad, _ := utf8.DecodeRuneInString(header[i:])
				return fmt.Errorf(`property %s: "x-mcp-header" %q has %q, which no HTTP header name may hold: use letters, digits and !#$%%&'*+-.^_`+"`"+`|~`, path, header, bad)
			}
			if !headerPrimitive(prop["type"]) {
				return fmt.Errorf(`property %s: "x-mcp-header" needs "type" string, integer or boolean (or a list of them): a header carries one plain value`, path)
			}
			if other, dup := seen[strings.ToLower(header)]; dup {
				return fmt.Errorf(`property %s: "x-mcp-header" %q is also the header of %s (header names ignore case): give each its own`, path, header, other)
			}
			seen[strings.ToLower(header)] = path
		}
	}
	return nil
}

// headerPrimitive reports whether a schema's "type" admits only values a
// header can carry.
func headerPrimitive(t any) bool {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	for _, n := range names {
		if n != "string" && n != "integer" && n != "boolean" {
			return false
		}
	}
	return len(names) > 0
}

// isHTTPTokenChar reports whether c may appear in an HTTP token (RFC 9110
// §5.6.2), which a header name is.
func isHTTPTokenChar(c rune) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", c)
}

// checkInputSchema checks the JSON arguments of a call against an
// explicit input schema. Arguments the interpreter's own decoder refuses
// (bad JSON, nested deeper than it allows, not an object) are left to
// it, so that they fail with its message and the validator never walks
// them.
func checkInputSchema(sch *jsonschema.Schema, args []byte) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if v, err := eval.DecodeJSON(args, 0); err != nil || v.Kind() != eval.KObject {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil
	}
	if err := sch.Validate(inst); err != nil {
		return &Error{Kind: ArgumentError, Message: "arguments do not match the tool's input schema: " + oneLine(err)}
	}
	return nil
}

// oneLine makes the validator's report, a heading and an indented list
// of findings, one line: the findings joined by "; ".
func oneLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) > 1 {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimLeft(strings.TrimSpace(l), "- "), "at '': ")
	}
	return strings.Join(lines, "; ")
}
