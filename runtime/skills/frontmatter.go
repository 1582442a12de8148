package skills

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
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

// Limits that keep a hostile front matter (YAML alias bombs, absurd
// nesting) from costing more than a real one ever would.
const (
	maxFrontMatterNodes = 100_000
	maxFrontMatterDepth = 64
)

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

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner). The parser reports the 0-based line of its context where
// the scanner reports a 1-based line, and neither reports a line on the
// first line of the document; yamlError undoes both quirks.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlError positions a yaml.v3 syntax error in SKILL.md, whose line 2 is
// the front matter's line 1.
func yamlError(err error) *decodeError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if !strings.HasPrefix(err.Error(), "yaml: ") || strings.HasPrefix(msg, "unmarshal errors") {
		return &decodeError{msg: msg}
	}
	line := 1 // no line reported: both marks were on the first line
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = err.Error()[len(m[0]):]
		if slices.Contains(yamlParserProblems, msg) {
			line++
		}
	}
	return &decodeError{line: line + 1, msg: msg}
}

func parseYAML(src string) ([]Field, *decodeError) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, &decodeError{line: 2, msg: "front matter is empty, not a mapping"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &decodeError{line: root.Line + 1, col: root.Column,
			msg: fmt.Sprintf("front matter is a %s, not a mapping", yamlKind(root))}
	}
	c := yamlConverter{}
	v, err := c.convert(root, 0)
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

type yamlConverter struct{ nodes int }

func (c *yamlConverter) convert(n *yaml.Node, depth int) (Value, *decodeError) {
	c.nodes++
	if c.nodes > maxFrontMatterNodes || depth > maxFrontMatterDepth {
		return Value{}, &decodeError{line: n.Line + 1, msg: "front matter is too large or too deeply nested"}
	}
	v := Value{Line: n.Line + 1, Col: n.Column}
	switch n.Kind {
	case yaml.AliasNode:
		a, err := c.convert(n.Alias, depth+1)
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
			iv, err := c.convert(item, depth+1)
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
			fv, err := c.convert(val, depth+1)
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
