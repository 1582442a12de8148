// Package ask is the MCP shape of what a Vox tool may ask the client that
// called it, mid-call (docs/vox-language.md, Asking the user and the
// model): the requested schema of elicitation/create, which MCP limits to
// a flat object of primitive properties, checked before the request is
// sent; the user's answer, checked against that schema before the tool
// sees it; and the reply of sampling/createMessage. It works on JSON and
// knows nothing of the interpreter or of a transport.
package ask

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
)

// The MCP methods of the two requests.
const (
	MethodElicit = "elicitation/create"
	MethodSample = "sampling/createMessage"
	MethodRoots  = "roots/list"
)

// Request is one question to the client: the MCP method, its params as
// JSON, and the key that names it among the input requests of protocol
// 2026-07-28 ("" lets the server name it).
type Request struct {
	Method string
	Key    string
	Params []byte
}

// decode reads JSON keeping numbers exact.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Schema is a checked requested schema: its properties by name.
type Schema struct {
	Props    map[string]*Prop
	Required []string
}

// Prop is one property of a requested schema.
type Prop struct {
	Type    string   // string, number, integer, boolean or array
	Options []string // the allowed strings of an enum (single or multi select)
}

// stringFormats are the formats MCP allows a string property.
var stringFormats = []string{"email", "uri", "date", "date-time"}

// CheckSchema checks the JSON of a requested schema against what MCP's
// elicitation/create allows: an object schema {"type": "object",
// "properties": {...}, "required": [...]} whose properties are each a
// string (with minLength, maxLength, format, or an enum — `enum`, `enum`
// with `enumNames`, or `oneOf` of {const, title}), a number or integer
// (minimum, maximum), a boolean, or an array of enum strings (multi
// select: items {type: "string", enum} or {anyOf: [{const, title}]},
// minItems, maxItems); every property may have a title, a description
// and a default of its type. The error says what is wrong and what is
// allowed.
func CheckSchema(raw []byte) (*Schema, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %v", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the schema must be a map {type: \"object\", properties: {...}}, got %s", kind(v))
	}
	if err := onlyKeys("the schema", top, "$schema", "type", "properties", "required", "title", "description"); err != nil {
		return nil, err
	}
	if top["type"] != "object" {
		return nil, fmt.Errorf("the schema's type must be \"object\" (MCP asks for a flat object of primitive properties), got %s", show(top["type"]))
	}
	if s, ok := top["$schema"]; ok {
		if _, ok := s.(string); !ok {
			return nil, fmt.Errorf("the schema's $schema must be a str, got %s", kind(s))
		}
	}
	props, ok := top["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the schema needs properties: a map of property name to {type: ...}, got %s", kind(top["properties"]))
	}
	s := &Schema{Props: map[string]*Prop{}}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, err := checkProp(name, props[name])
		if err != nil {
			return nil, err
		}
		s.Props[name] = p
	}
	if req, ok := top["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return nil, fmt.Errorf("the schema's required must be a list of property names, got %s", kind(req))
		}
		for _, r := range list {
			name, ok := r.(string)
			if !ok || s.Props[name] == nil {
				return nil, fmt.Errorf("the schema's required names %s, which is not one of its properties (%s)", show(r), strings.Join(names, ", "))
			}
			s.Required = append(s.Required, name)
		}
	}
	return s, nil
}

func checkProp(name string, v any) (*Prop, error) {
	what := fmt.Sprintf("property %q", name)
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map {type: ...}, got %s", what, kind(v))
	}
	t, _ := m["type"].(string)
	p := &Prop{Type: t}
	common := []string{"type", "title", "description", "default"}
	for _, k := range []string{"title", "description"} {
		if x, ok := m[k]; ok {
			if _, ok := x.(string); !ok {
				return nil, fmt.Errorf("%s: %s must be a str, got %s", what, k, kind(x))
			}
		}
	}
	switch t {
	case "string":
		if err := onlyKeys(what, m, append(common, "minLength", "maxLength", "format", "enum", "enumNames", "oneOf")...); err != nil {
			return nil, err
		}
		if err := counts(what, m, "minLength", "maxLength"); err != nil {
			return nil, err
		}
		if f, ok := m["format"]; ok {
			if s, _ := f.(string); !slices.Contains(stringFormats, s) {
				return nil, fmt.Errorf("%s: format must be one of %s, got %s", what, strings.Join(stringFormats, ", "), show(f))
			}
		}
		opts, err := enumOptions(what, m)
		if err != nil {
			return nil, err
		}
		p.Options = opts
		if d, ok := m["default"]; ok {
			s, isStr := d.(string)
			if !isStr || opts != nil && !slices.Contains(opts, s) {
				return nil, fmt.Errorf("%s: default must be %s, got %s", what, p.want(), show(d))
			}
		}
	case "number", "integer":
		if err := onlyKeys(what, m, append(common, "minimum", "maximum")...); err != nil {
			return nil, err
		}
		for _, k := range []string{"minimum", "maximum"} {
			if x, ok := m[k]; ok {
				if _, ok := x.(json.Number); !ok {
					return nil, fmt.Errorf("%s: %s must be a number, got %s", what, k, kind(x))
				}
			}
		}
		if d, ok := m["default"]; ok && !p.fits(d) {
			return nil, fmt.Errorf("%s: default must be %s, got %s", what, p.want(), show(d))
		}
	case "boolean":
		if err := onlyKeys(what, m, common...); err != nil {
			return nil, err
		}
		if d, ok := m["default"]; ok && !p.fits(d) {
			return nil, fmt.Errorf("%s: default must be a bool, got %s", what, show(d))
		}
	case "array":
		if err := onlyKeys(what, m, append(common, "items", "minItems", "maxItems")...); err != nil {
			return nil, err
		}
		if err := counts(what, m, "minItems", "maxItems"); err != nil {
			return nil, err
		}
		items, ok := m["items"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: an array is a multi-select: it needs items {type: \"string\", enum: [...]} or {anyOf: [{const, title}, ...]}, got %s", what, kind(m["items"]))
		}
		iwhat := what + ": items"
		if _, titled := items["anyOf"]; titled {
			if err := onlyKeys(iwhat, items, "anyOf"); err != nil {
				return nil, err
			}
			opts, err := titledOptions(iwhat+".anyOf", items["anyOf"])
			if err != nil {
				return nil, err
			}
			p.Options = opts
		} else {
			if err := onlyKeys(iwhat, items, "type", "enum"); err != nil {
				return nil, err
			}
			if items["type"] != "string" {
				return nil, fmt.Errorf("%s: type must be \"string\" (a multi-select chooses strings), got %s", iwhat, show(items["type"]))
			}
			opts, err := stringList(iwhat+".enum", items["enum"])
			if err != nil {
				return nil, err
			}
			p.Options = opts
		}
		if d, ok := m["default"]; ok && !p.fits(d) {
			return nil, fmt.Errorf("%s: default must be %s, got %s", what, p.want(), show(d))
		}
	default:
		return nil, fmt.Errorf("%s: type must be one of string, number, integer, boolean or array (MCP asks for primitive properties only: no objects, no nesting), got %s", what, show(m["type"]))
	}
	return p, nil
}

// enumOptions reads the single-select forms of a string property: enum
// (with enumNames, the legacy titled form, of the same length) or oneOf
// [{const, title}]; nil when it is a free string.
func enumOptions(what string, m map[string]any) ([]string, error) {
	e, hasEnum := m["enum"]
	o, hasOneOf := m["oneOf"]
	names, hasNames := m["enumNames"]
	switch {
	case hasEnum && hasOneOf:
		return nil, fmt.Errorf("%s: use enum or oneOf, not both", what)
	case hasNames && !hasEnum:
		return nil, fmt.Errorf("%s: enumNames titles the values of enum, which it lacks", what)
	case hasOneOf:
		return titledOptions(what+": oneOf", o)
	case hasEnum:
		opts, err := stringList(what+": enum", e)
		if err != nil {
			return nil, err
		}
		if hasNames {
			titles, err := stringList(what+": enumNames", names)
			if err != nil {
				return nil, err
			}
			if len(titles) != len(opts) {
				return nil, fmt.Errorf("%s: enumNames has %d titles for %d enum values", what, len(titles), len(opts))
			}
		}
		return opts, nil
	}
	return nil, nil
}

// titledOptions reads [{const: str, title: str}, ...].
func titledOptions(what string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty list of {const: str, title: str}, got %s", what, kind(v))
	}
	out := make([]string, len(list))
	for i, it := range list {
		m, _ := it.(map[string]any)
		c, okc := m["const"].(string)
		_, okt := m["title"].(string)
		if m == nil || !okc || !okt || len(m) != 2 {
			return nil, fmt.Errorf("%s: option %d must be {const: str, title: str}, got %s", what, i, show(it))
		}
		out[i] = c
	}
	return out, nil
}

func stringList(what string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty list of str, got %s", what, kind(v))
	}
	out := make([]string, len(list))
	for i, it := range list {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("%s: value %d must be a str, got %s", what, i, kind(it))
		}
		out[i] = s
	}
	return out, nil
}

// counts checks that the keys given, when present, are integers >= 0.
func counts(what string, m map[string]any, keys ...string) error {
	for _, k := range keys {
		if x, ok := m[k]; ok {
			if n, ok := x.(json.Number); !ok || !isCount(n) {
				return fmt.Errorf("%s: %s must be an int of at least 0, got %s", what, k, show(x))
			}
		}
	}
	return nil
}

func isCount(n json.Number) bool {
	r, ok := new(big.Rat).SetString(n.String())
	return ok && r.IsInt() && r.Sign() >= 0
}

func onlyKeys(what string, m map[string]any, allowed ...string) error {
	var bad []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("%s: %q is not allowed here: want %s", what, bad[0], strings.Join(allowed, ", "))
}

// fits reports whether v is a value of the property.
func (p *Prop) fits(v any) bool {
	switch p.Type {
	case "string":
		s, ok := v.(string)
		return ok && (p.Options == nil || slices.Contains(p.Options, s))
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(n.String())
		return ok && r.IsInt()
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		for _, it := range list {
			s, ok := it.(string)
			if !ok || !slices.Contains(p.Options, s) {
				return false
			}
		}
		return true
	}
	return false
}

// want says what a value of the property is.
func (p *Prop) want() string {
	switch p.Type {
	case "string":
		if p.Options != nil {
			return "one of " + quoteAll(p.Options)
		}
		return "a str"
	case "number":
		return "a number"
	case "integer":
		return "an int"
	case "boolean":
		return "a bool"
	}
	return "a list of " + quoteAll(p.Options)
}

func quoteAll(opts []string) string {
	q := make([]string, len(opts))
	for i, o := range opts {
		q[i] = fmt.Sprintf("%q", o)
	}
	return strings.Join(q, ", ")
}

// The actions of an elicitation answer.
var actions = []string{"accept", "decline", "cancel"}

// CheckAnswer checks the JSON result of elicitation/create against the
// schema asked with: action is accept, decline or cancel; an accepted
// answer's content is an object whose members are properties of the
// schema with values of their types, the required ones present. It
// returns the action and the content's JSON ("{}" when not accepted).
func CheckAnswer(s *Schema, raw []byte) (action string, contentJSON []byte, err error) {
	v, err := decode(raw)
	if err != nil {
		return "", nil, fmt.Errorf("the client's answer is not JSON: %v", err)
	}
	m, _ := v.(map[string]any)
	action, _ = m["action"].(string)
	if !slices.Contains(actions, action) {
		return "", nil, fmt.Errorf("the client's answer has the action %s: want accept, decline or cancel", show(m["action"]))
	}
	if action != "accept" {
		return action, []byte("{}"), nil
	}
	c, present := m["content"]
	if !present || c == nil {
		c = map[string]any{}
	}
	content, ok := c.(map[string]any)
	if !ok {
		return "", nil, fmt.Errorf("the client accepted with content that is %s, not a map", kind(c))
	}
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Props[k]
		if p == nil {
			return "", nil, fmt.Errorf("the client's answer has %q, which the schema does not ask for", k)
		}
		if !p.fits(content[k]) {
			return "", nil, fmt.Errorf("the client's answer for %q is %s: want %s", k, show(content[k]), p.want())
		}
	}
	for _, r := range s.Required {
		if _, ok := content[r]; !ok {
			return "", nil, fmt.Errorf("the client's answer lacks %q, which the schema requires", r)
		}
	}
	if !present || m["content"] == nil {
		return action, []byte("{}"), nil
	}
	// The content as the client wrote it, its members in its order.
	var keep struct {
		Content json.RawMessage `json:"content"`
	}
	err = json.Unmarshal(raw, &keep)
	return action, keep.Content, err
}

// Reply is the checked result of sampling/createMessage.
type Reply struct {
	Role       string
	Content    json.RawMessage // one content block: text, image or audio
	Text       string          // the text of a text block, else ""
	Model      string
	StopReason string
}

// CheckReply checks the JSON result of sampling/createMessage: a role,
// one content block (a list of blocks is taken when it has one), a model.
func CheckReply(raw []byte) (*Reply, error) {
	var r struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("the client's reply is not a sampling result: %v", err)
	}
	if r.Role != "assistant" && r.Role != "user" {
		return nil, fmt.Errorf("the client's reply has the role %q: want assistant or user", r.Role)
	}
	content := bytes.TrimSpace(r.Content)
	if len(content) > 0 && content[0] == '[' {
		var blocks []json.RawMessage
		if json.Unmarshal(content, &blocks) != nil || len(blocks) != 1 {
			return nil, fmt.Errorf("the client's reply has %d content blocks: want one", len(blocks))
		}
		content = blocks[0]
	}
	var block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &block); err != nil || block.Type == "" {
		return nil, fmt.Errorf("the client's reply has no content block {type, ...}")
	}
	out := &Reply{Role: r.Role, Content: json.RawMessage(content), Model: r.Model, StopReason: r.StopReason}
	if block.Type == "text" {
		out.Text = block.Text
	}
	return out, nil
}

// Root is one root of the client: a URI (file:// as MCP has it) and
// an optional name.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// CheckRoots checks the JSON result of roots/list: {roots: [{uri,
// name?}]}, every root with a URI.
func CheckRoots(raw []byte) ([]Root, error) {
	var r struct {
		Roots *[]Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Roots == nil {
		return nil, fmt.Errorf("the client's answer is not a list of roots {roots: [{uri, name}]}")
	}
	for i, root := range *r.Roots {
		if root.URI == "" {
			return nil, fmt.Errorf("the client's root %d has no uri", i)
		}
	}
	return *r.Roots, nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a str"
	case json.Number:
		return "a number"
	case bool:
		return "a bool"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

func show(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return kind(v)
	}
	return string(b)
}
