package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// A handler implements one catalog tool. It receives arguments already
// checked against the row's input schema and returns the result object
// (sent as structuredContent and as its compact JSON text) or an error
// whose text becomes the error result; errors say what to do next.
type handler func(ctx context.Context, s *Server, args Args) (any, error)

// handlers is the server's handler table, keyed by MCP tool name; each
// tool's file adds itself with registerHandler.
var handlers = map[string]handler{}

func registerHandler(name string, h handler) {
	if _, dup := handlers[name]; dup {
		panic("server: two handlers for " + name)
	}
	handlers[name] = h
}

// HandlerNames lists the tools this server has handlers for, sorted. The
// operations-verify gate compares them with the catalog.
func HandlerNames() []string {
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// catalogHandler binds a catalog row to its handler.
func (s *Server) catalogHandler(op *registry.Operation) mcpserver.ToolHandlerFunc {
	name := op.MCP.Name
	h, ok := handlers[name]
	spec := sync.OnceValue(func() *argSpec { return parseArgSpec(op.MCP.InputSchema) })
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !ok {
			return errorResult(fmt.Sprintf("tool %s has no handler in this vox-mcp build; run vox ci operations-verify to find catalog rows without handlers", name)), nil
		}
		args, err := spec().decode(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		out, err := h(ctx, s, args)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		return structuredResult(out)
	}
}

// structuredResult returns a result object as structuredContent and as
// one text content holding the same object in compact JSON.
func structuredResult(v any) (*mcp.CallToolResult, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	text := bytes.TrimRight(buf.Bytes(), "\n")
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(string(text))},
		StructuredContent: json.RawMessage(text),
	}, nil
}

// Args are a call's arguments, checked against the input schema. Numbers
// are json.Number; absent optional arguments are absent.
type Args map[string]any

// Has reports whether the argument was given (and is not null).
func (a Args) Has(name string) bool { v, ok := a[name]; return ok && v != nil }

// String returns a string argument, "" when absent.
func (a Args) String(name string) string { s, _ := a[name].(string); return s }

// Bool returns a boolean argument, false when absent.
func (a Args) Bool(name string) bool { b, _ := a[name].(bool); return b }

// Int returns an integer argument, def when absent.
func (a Args) Int(name string, def int64) int64 {
	n, ok := a[name].(json.Number)
	if !ok {
		return def
	}
	i, err := n.Int64()
	if err != nil {
		return def
	}
	return i
}

// argSpec is the part of an input schema that calls are checked against:
// the top-level properties with their types, enums and bounds, the
// required names and whether other names are refused.
type argSpec struct {
	props      map[string]propSpec
	order      []string
	required   []string
	closed     bool // additionalProperties: false
	parseError string
}

type propSpec struct {
	types     []string // JSON Schema type names; empty = any
	enum      []any
	minimum   *big.Rat
	maximum   *big.Rat
	minLength int
}

func parseArgSpec(schema json.RawMessage) *argSpec {
	var raw struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	spec := &argSpec{props: map[string]propSpec{}}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		spec.parseError = err.Error()
		return spec
	}
	spec.required = raw.Required
	spec.closed = raw.AdditionalProperties != nil && !*raw.AdditionalProperties
	for name, p := range raw.Properties {
		var prop struct {
			Type      json.RawMessage `json:"type"`
			Enum      []any           `json:"enum"`
			Minimum   json.Number     `json:"minimum"`
			Maximum   json.Number     `json:"maximum"`
			MinLength int             `json:"minLength"`
		}
		d := json.NewDecoder(bytes.NewReader(p))
		d.UseNumber()
		_ = d.Decode(&prop)
		ps := propSpec{enum: prop.Enum, minLength: prop.MinLength}
		var one string
		if json.Unmarshal(prop.Type, &one) == nil && one != "" {
			ps.types = []string{one}
		} else {
			_ = json.Unmarshal(prop.Type, &ps.types)
		}
		if prop.Minimum != "" {
			ps.minimum, _ = new(big.Rat).SetString(string(prop.Minimum))
		}
		if prop.Maximum != "" {
			ps.maximum, _ = new(big.Rat).SetString(string(prop.Maximum))
		}
		spec.props[name] = ps
		spec.order = append(spec.order, name)
	}
	slices.Sort(spec.order)
	return spec
}

// decode checks a call's arguments with the message forms shared with
// workspace tools (spec 20-vox-language §5).
func (spec *argSpec) decode(req mcp.CallToolRequest) (Args, error) {
	if spec.parseError != "" {
		return nil, fmt.Errorf("this tool's input schema does not parse (%s); regenerate with go generate ./... and rebuild vox-mcp", spec.parseError)
	}
	raw := req.Params.RawArguments
	if len(raw) == 0 && req.Params.Arguments != nil {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object")
		}
		raw = b
	}
	args := Args{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
		}
		args = m
	}
	if spec.closed {
		var unknown []string
		for name := range args {
			if _, ok := spec.props[name]; !ok {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, fmt.Errorf("unknown argument: %s", unknown[0])
		}
	}
	for _, name := range spec.required {
		if v, ok := args[name]; !ok || v == nil {
			return nil, fmt.Errorf("missing argument: %s", name)
		}
	}
	for _, name := range spec.order {
		v, ok := args[name]
		if !ok {
			continue
		}
		if err := spec.props[name].check(name, v); err != nil {
			return nil, err
		}
	}
	return args, nil
}

func (p propSpec) check(name string, v any) error {
	if v == nil && !slices.Contains(p.types, "null") {
		// An explicit null is the same as leaving an optional argument out.
		return nil
	}
	if len(p.types) > 0 && !slices.ContainsFunc(p.types, func(t string) bool { return hasType(v, t) }) {
		return fmt.Errorf("argument %s: want %s, got %s", name, strings.Join(p.types, " or "), jsonKind(v))
	}
	if len(p.enum) > 0 && !slices.ContainsFunc(p.enum, func(e any) bool { return jsonEqual(e, v) }) {
		want := make([]string, len(p.enum))
		for i, e := range p.enum {
			b, _ := json.Marshal(e)
			want[i] = string(b)
		}
		got, _ := json.Marshal(v)
		return fmt.Errorf("argument %s: want one of %s, got %s", name, strings.Join(want, ", "), got)
	}
	if n, ok := v.(json.Number); ok {
		r, _ := new(big.Rat).SetString(string(n))
		if r != nil && p.minimum != nil && r.Cmp(p.minimum) < 0 {
			return fmt.Errorf("argument %s: want at least %s, got %s", name, p.minimum.RatString(), n)
		}
		if r != nil && p.maximum != nil && r.Cmp(p.maximum) > 0 {
			return fmt.Errorf("argument %s: want at most %s, got %s", name, p.maximum.RatString(), n)
		}
	}
	if s, ok := v.(string); ok && p.minLength > 0 && len([]rune(s)) < p.minLength {
		if p.minLength == 1 {
			return fmt.Errorf("argument %s: want a non-empty string", name)
		}
		return fmt.Errorf("argument %s: want at least %d characters", name, p.minLength)
	}
	return nil
}

func hasType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}

// jsonKind names the JSON type of a decoded value as the argument errors
// do: string, integer, number, boolean, array, object or null.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
