package contractdoc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// MaxDepth bounds the nesting of contract files (YAML aliases expanded).
const MaxDepth = 256

// ParseYAML decodes src as a single YAML document, read by ReadYAML with
// ContractLimits, and converts it to JSON values through yaml.Node,
// keeping positions. Conversion errors are collected, not stopped at.
// emptyHint completes the message for an empty file ("the file is empty:
// want <emptyHint>").
func ParseYAML(src []byte, emptyHint string) (*Doc, []PosError) {
	root, problem := ReadYAML(src, ContractLimits)
	switch {
	case problem != nil && problem.OverLimit:
		return nil, []PosError{problem.PosError}
	case problem != nil:
		// A contract error always names a column: the line's start.
		return nil, []PosError{{Pos{problem.Pos.Line, 1}, "invalid YAML: " + problem.Message}}
	}
	if root == nil {
		return nil, []PosError{{Pos{1, 1}, "the file is empty: want " + emptyHint}}
	}
	doc := &Doc{yamlRoot: root}
	c := &yamlConverter{}
	doc.Root = c.convert(root, 0)
	return doc, c.errs
}

type yamlConverter struct {
	errs []PosError
	// placeholders stand for anchors of earlier parts of a document read
	// part by part (ParseYAMLRows): an alias of one converts to the
	// anchor's recorded value.
	placeholders map[*yaml.Node]anchorRecord
}

// walkYAML follows pointer from root and returns the deepest node reached
// and, when the last step was a mapping member, its key node.
func walkYAML(root *yaml.Node, pointer string) (value, key *yaml.Node) {
	n := root
	if pointer == "" {
		return n, nil
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < MaxDepth; depth++ {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					key, n, found = n.Content[i], n.Content[i+1], true
					break
				}
			}
			if !found {
				return n, nil
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n, nil
			}
			key, n = nil, n.Content[i]
		default:
			return n, nil
		}
	}
	return n, key
}

func (c *yamlConverter) errorf(n *yaml.Node, format string, args ...any) {
	c.errs = append(c.errs, PosError{Pos{n.Line, n.Column}, fmt.Sprintf(format, args...)})
}

func (c *yamlConverter) convert(n *yaml.Node, depth int) schemajson.Value {
	if depth > MaxDepth {
		c.errorf(n, "nested deeper than %d levels", MaxDepth)
		return schemajson.NullValue()
	}
	switch n.Kind {
	case yaml.AliasNode:
		if rec, ok := c.placeholders[n.Alias]; ok {
			v, err := schemajson.Parse(rec.value)
			if err != nil {
				c.errorf(n, "alias *%s: %v", n.Value, err)
			}
			return v
		}
		return c.convert(n.Alias, depth+1)
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
			members = append(members, schemajson.Member{Key: k.Value, Value: c.convert(v, depth+1)})
		}
		return schemajson.ObjectValue(members...)
	case yaml.SequenceNode:
		items := make([]schemajson.Value, 0, len(n.Content))
		for _, it := range n.Content {
			items = append(items, c.convert(it, depth+1))
		}
		return schemajson.ArrayValue(items...)
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	c.errorf(n, "unsupported YAML node")
	return schemajson.NullValue()
}

func (c *yamlConverter) scalar(n *yaml.Node) schemajson.Value {
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
