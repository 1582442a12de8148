package skills

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/vox-lang/vox-mcp/internal/contractdoc"
)

// Front matter formats.
const (
	FormatYAML = "yaml"
	FormatTOML = "toml"
)

// ValueKind says what a front matter value is.
type ValueKind int

// Value kinds. Scalar is any non-string scalar (number, boolean, date):
// the reference validator wants metadata values to be strings, so the
// difference matters.
const (
	KindNull ValueKind = iota
	KindString
	KindScalar
	KindList
	KindMap
)

func (k ValueKind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindScalar:
		return "scalar"
	case KindList:
		return "list"
	case KindMap:
		return "mapping"
	}
	return "null"
}

// Value is one front matter value with its position in SKILL.md (1-based;
// 0 when unknown, as for TOML values whose key was not found by the line
// scan).
type Value struct {
	Kind   ValueKind
	Text   string  // scalars: the value as written (strings unquoted)
	Items  []Value // lists
	Fields []Field // mappings, in source order
	Line   int
	Col    int
}

// Field is one key of a mapping with the position of the key.
type Field struct {
	Key   string
	Line  int
	Col   int
	Value Value
}

// Get returns the field named key of a mapping value.
func (v Value) Get(key string) (Field, bool) {
	for _, f := range v.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// FrontMatter is the parsed head of a SKILL.md.
type FrontMatter struct {
	Format string  // FormatYAML or FormatTOML
	Fields []Field // top-level keys in source order
	// Body is the Markdown after the closing line, trimmed of surrounding
	// white space (as the reference parser does).
	Body string
	// BodyLine is the line of SKILL.md just after the closing ---.
	BodyLine int
}

// Get returns the top-level field named key.
func (fm *FrontMatter) Get(key string) (Field, bool) {
	return Value{Kind: KindMap, Fields: fm.Fields}.Get(key)
}

// ParseError is a SKILL.md that cannot be read as front matter plus body.
// Line and Col are 1-based positions in SKILL.md, 0 when unknown.
type ParseError struct {
	Line int
	Col  int
	Msg  string
}

func (e *ParseError) Error() string {
	switch {
	case e.Line == 0:
		return e.Msg
	case e.Col == 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
}

// FrontMatterLimits bound what reading a front matter may cost: the
// shared YAML reader measures aliases before they are expanded, so a
// hostile front matter (an alias bomb, one long string repeated
// thousands of times into tags, absurd nesting) is refused at once with
// its position.
var FrontMatterLimits = contractdoc.YAMLLimits{
	MaxBytes:       MaxFileSize,
	MaxDepth:       64,
	MaxAliasValues: 10_000,
	MaxAliasBytes:  64 << 10,
}

var bom = []byte("\xef\xbb\xbf")

// ParseFrontMatter splits a SKILL.md into front matter and body and parses
// the front matter: YAML when it parses to a mapping, else TOML; when
// neither yields a mapping the error carries both reasons. A UTF-8 BOM and
// CRLF line ends are tolerated. Errors are *ParseError.
func ParseFrontMatter(data []byte) (fm *FrontMatter, err error) {
	defer func() {
		if v := recover(); v != nil {
			fm, err = nil, &ParseError{Msg: fmt.Sprintf("internal error while parsing the front matter: %v", v)}
		}
	}()
	text := string(bytes.ReplaceAll(bytes.TrimPrefix(data, bom), []byte("\r\n"), []byte("\n")))
	lines := strings.Split(text, "\n")
	if !isFence(lines[0]) {
		return nil, &ParseError{Line: 1, Msg: "SKILL.md must start with front matter: a first line ---"}
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, &ParseError{Line: 1, Msg: "the front matter opened on line 1 is never closed by a line ---"}
	}
	src := strings.Join(lines[1:end], "\n")
	fm = &FrontMatter{
		Body:     strings.TrimSpace(strings.Join(lines[end+1:], "\n")),
		BodyLine: end + 2,
	}

	// The front matter starts on line 2 of the file: every position the
	// decoders report is shifted by one.
	fields, yamlErr := parseYAML(src)
	if yamlErr == nil {
		fm.Format, fm.Fields = FormatYAML, fields
		return fm, nil
	}
	if yamlErr.fatal {
		return nil, &ParseError{Line: yamlErr.line, Col: yamlErr.col, Msg: yamlErr.msg}
	}
	fields, tomlErr := parseTOML(src)
	if tomlErr == nil {
		fm.Format, fm.Fields = FormatTOML, fields
		return fm, nil
	}
	return nil, &ParseError{Msg: fmt.Sprintf("front matter is neither a YAML nor a TOML mapping (YAML: %s; TOML: %s)",
		yamlErr, tomlErr)}
}

func isFence(line string) bool { return strings.TrimRight(line, " \t") == "---" }

// decodeError is one decoder's reason, positioned in SKILL.md. A fatal
// error is a document that is a YAML mapping but an invalid one (a
// duplicate key, say): trying TOML on it would only confuse the message.
type decodeError struct {
	line, col int
	msg       string
	fatal     bool
}

func (e *decodeError) Error() string {
	switch {
	case e.line == 0:
		return e.msg
	case e.col == 0:
		return fmt.Sprintf("line %d: %s", e.line, e.msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

func parseYAML(src string) ([]Field, *decodeError) {
	root, problem := contractdoc.ReadYAML([]byte(src), FrontMatterLimits)
	if problem != nil {
		// A syntax error may still be TOML; a document over a limit is
		// YAML, and refused.
		return nil, &decodeError{line: problem.Pos.Line + 1, col: problem.Pos.Col, msg: problem.Message, fatal: problem.OverLimit}
	}
	if root == nil {
		return nil, &decodeError{line: 2, msg: "front matter is empty, not a mapping"}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &decodeError{line: root.Line + 1, col: root.Column,
			msg: fmt.Sprintf("front matter is a %s, not a mapping", yamlKind(root))}
	}
	var c yamlConverter
	v, err := c.convert(root)
	if err != nil {
		err.fatal = true
		return nil, err
	}
	return v.Fields, nil
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "mapping"
}

// yamlConverter turns a front matter read by contractdoc.ReadYAML into
// Values; the reader's limits bound the aliases it expands and the depth
// of its recursion.
type yamlConverter struct{}

func (c *yamlConverter) convert(n *yaml.Node) (Value, *decodeError) {
	v := Value{Line: n.Line + 1, Col: n.Column}
	switch n.Kind {
	case yaml.AliasNode:
		a, err := c.convert(n.Alias)
		a.Line, a.Col = v.Line, v.Col
		return a, err
	case yaml.ScalarNode:
		v.Text = n.Value
		switch n.ShortTag() {
		case "!!str", "!!binary":
			v.Kind = KindString
		case "!!null":
			v.Kind = KindNull
		default:
			v.Kind = KindScalar
		}
	case yaml.SequenceNode:
		v.Kind = KindList
		v.Items = make([]Value, 0, len(n.Content))
		for _, item := range n.Content {
			iv, err := c.convert(item)
			if err != nil {
				return v, err
			}
			v.Items = append(v.Items, iv)
		}
	case yaml.MappingNode:
		v.Kind = KindMap
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return v, &decodeError{line: k.Line + 1, col: k.Column, msg: "a mapping key must be a scalar"}
			}
			if first, dup := seen[k.Value]; dup {
				return v, &decodeError{line: k.Line + 1, col: k.Column,
					msg: fmt.Sprintf("key %q is already defined on line %d", k.Value, first)}
			}
			seen[k.Value] = k.Line + 1
			fv, err := c.convert(val)
			if err != nil {
				return v, err
			}
			v.Fields = append(v.Fields, Field{Key: k.Value, Line: k.Line + 1, Col: k.Column, Value: fv})
		}
	}
	return v, nil
}

func parseTOML(src string) ([]Field, *decodeError) {
	var m map[string]any
	md, err := toml.Decode(src, &m)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &decodeError{line: pe.Position.Line + 1, col: pe.Position.Col, msg: pe.Message}
		}
		return nil, &decodeError{msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	t := tomlConverter{lines: strings.Split(src, "\n"), order: map[string]int{}}
	for i, k := range md.Keys() {
		t.order[k.String()] = i
	}
	v := t.convert(m, nil)
	return v.Fields, nil
}

// tomlConverter turns decoded TOML into Values. The TOML decoder keeps key
// order but not positions, so positions come from a scan of the source for
// the line that defines each key; a key the scan misses has no position.
type tomlConverter struct {
	lines []string
	order map[string]int
}

func (t *tomlConverter) convert(x any, path []string) Value {
	v := Value{}
	if len(path) > 0 {
		v.Line, v.Col = t.position(path)
	}
	switch x := x.(type) {
	case string:
		v.Kind, v.Text = KindString, x
	case map[string]any:
		v.Kind = KindMap
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return t.order[toml.Key(append(path[:len(path):len(path)], keys[i])).String()] <
				t.order[toml.Key(append(path[:len(path):len(path)], keys[j])).String()]
		})
		for _, k := range keys {
			sub := append(path[:len(path):len(path)], k)
			fv := t.convert(x[k], sub)
			v.Fields = append(v.Fields, Field{Key: k, Line: fv.Line, Col: fv.Col, Value: fv})
		}
	case []any:
		v.Kind = KindList
		v.Items = make([]Value, 0, len(x))
		for _, item := range x {
			iv := t.convert(item, nil)
			iv.Line, iv.Col = v.Line, v.Col
			v.Items = append(v.Items, iv)
		}
	case []map[string]any:
		v.Kind = KindList
		v.Items = make([]Value, 0, len(x))
		for _, item := range x {
			iv := t.convert(item, nil)
			v.Items = append(v.Items, iv)
		}
	case time.Time:
		v.Kind, v.Text = KindScalar, x.Format(time.RFC3339Nano)
	case nil:
		v.Kind = KindNull
	default:
		v.Kind, v.Text = KindScalar, fmt.Sprint(x)
	}
	return v
}

// position finds the line of SKILL.md (the front matter's line 1 is its
// line 2) defining path: `key = ...` inside the table
// `[path[:n-1]]`, a dotted `a.b = ...` at top level, or the table header
// `[path]` itself.
func (t *tomlConverter) position(path []string) (line, col int) {
	var table []string
	for i, raw := range t.lines {
		s := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if strings.HasPrefix(s, "[") {
			name := strings.Trim(strings.TrimSpace(strings.SplitN(s, "#", 2)[0]), "[]")
			table = splitTOMLKey(name)
			if slices.Equal(table, path) {
				return i + 2, indent + 1
			}
			continue
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			continue
		}
		key := append(table[:len(table):len(table)], splitTOMLKey(s[:eq])...)
		if slices.Equal(key, path) || (len(key) > len(path) && slices.Equal(key[:len(path)], path)) {
			return i + 2, indent + 1
		}
	}
	return 0, 0
}

func splitTOMLKey(s string) []string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return parts
}
