package gen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vox-lang/vox-mcp/runtime/schemajson"
)

// Pos is a 1-based line and column in a source file.
type Pos struct{ Line, Col int }

// yamlDoc is a YAML document converted to JSON values, with the position of
// every value and of every object key, addressed by JSON pointer.
type yamlDoc struct {
	root     schemajson.Value
	valuePos map[string]Pos
	keyPos   map[string]Pos
}

// pos returns the position of the value at pointer, or of its nearest
// ancestor that has one.
func (d *yamlDoc) pos(pointer string) Pos {
	for {
		if p, ok := d.valuePos[pointer]; ok {
			return p
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return Pos{1, 1}
		}
		pointer = pointer[:i]
	}
}

// keyPosition returns the position of the key that holds the value at
// pointer, falling back to the value's position.
func (d *yamlDoc) keyPosition(pointer string) Pos {
	if p, ok := d.keyPos[pointer]; ok {
		return p
	}
	return d.pos(pointer)
}

// maxYAMLDepth bounds nesting (and alias expansion) of contract files.
const maxYAMLDepth = 256

// parseYAML decodes src as a single YAML document and converts it to JSON
// values. Errors carry positions; conversion errors are collected, not
// stopped at.
func parseYAML(src []byte) (*yamlDoc, []posError) {
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		return nil, []posError{yamlSyntaxError(err)}
	}
	d := &yamlDoc{valuePos: map[string]Pos{}, keyPos: map[string]Pos{}}
	if n.Kind == 0 || len(n.Content) == 0 {
		return nil, []posError{{Pos{1, 1}, "the file is empty: want a mapping with schema_version and operations"}}
	}
	c := &converter{doc: d}
	d.root = c.convert(n.Content[0], "", 0)
	return d, c.errs
}

type posError struct {
	Pos Pos
	Msg string
}

type converter struct {
	doc  *yamlDoc
	errs []posError
}

func (c *converter) errorf(n *yaml.Node, format string, args ...any) {
	c.errs = append(c.errs, posError{Pos{n.Line, n.Column}, fmt.Sprintf(format, args...)})
}

func (c *converter) convert(n *yaml.Node, pointer string, depth int) schemajson.Value {
	c.doc.valuePos[pointer] = Pos{n.Line, n.Column}
	if depth > maxYAMLDepth {
		c.errorf(n, "nested deeper than %d levels", maxYAMLDepth)
		return schemajson.NullValue()
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.convert(n.Alias, pointer, depth+1)
	case yaml.MappingNode:
		members := make([]schemajson.Member, 0, len(n.Content)/2)
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				c.errorf(k, "mapping keys must be plain strings")
				continue
			}
			if k.Tag == "!!merge" {
				c.errorf(k, "merge keys (<<) are not supported: write the keys out")
				continue
			}
			if line, dup := seen[k.Value]; dup {
				c.errorf(k, "duplicate key %q (first at line %d)", k.Value, line)
				continue
			}
			seen[k.Value] = k.Line
			child := pointer + "/" + escapePointer(k.Value)
			c.doc.keyPos[child] = Pos{k.Line, k.Column}
			members = append(members, schemajson.Member{Key: k.Value, Value: c.convert(v, child, depth+1)})
		}
		return schemajson.ObjectValue(members...)
	case yaml.SequenceNode:
		items := make([]schemajson.Value, 0, len(n.Content))
		for i, it := range n.Content {
			items = append(items, c.convert(it, pointer+"/"+strconv.Itoa(i), depth+1))
		}
		return schemajson.ArrayValue(items...)
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	c.errorf(n, "unsupported YAML node")
	return schemajson.NullValue()
}

func (c *converter) scalar(n *yaml.Node) schemajson.Value {
	switch n.ShortTag() {
	case "!!null":
		return schemajson.NullValue()
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			c.errorf(n, "invalid boolean %q", n.Value)
		}
		return schemajson.BoolValue(b)
	case "!!int":
		lit := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(lit, 0, 64); err == nil {
			return schemajson.IntValue(i)
		}
		v, err := schemajson.NumberValue(lit)
		if err != nil {
			c.errorf(n, "invalid integer %q", n.Value)
		}
		return v
	case "!!float":
		if v, err := schemajson.NumberValue(n.Value); err == nil {
			return v
		}
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			c.errorf(n, "number %q has no JSON form", n.Value)
			return schemajson.NullValue()
		}
		v, _ := schemajson.FloatValue(f)
		return v
	case "!!str":
		return schemajson.StringValue(n.Value)
	}
	c.errorf(n, "unsupported YAML tag %s: write plain strings, numbers, booleans, null, lists and mappings", n.Tag)
	return schemajson.StringValue(n.Value)
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// yamlSyntaxError converts a yaml.v3 error ("yaml: line 3: ...") into a
// positioned error.
func yamlSyntaxError(err error) posError {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if strings.HasPrefix(msg, "line ") {
		rest := msg[len("line "):]
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, convErr := strconv.Atoi(rest[:i]); convErr == nil {
				line = n
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return posError{Pos{line, 1}, "invalid YAML: " + msg}
}
