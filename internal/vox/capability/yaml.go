package capability

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"gopkg.in/yaml.v3"
)

// ---- yaml ----
//
// yaml.parse reads the document into yaml.v3's node tree, where an alias
// is one node however often it is used, and expands the tree itself: each
// use of an alias is built and counted again, so a "billion laughs"
// document (aliases of aliases, each doubling the value) stops with an
// Err at max_value_bytes, or at the call's allocation budget, long
// before it can exhaust the server's memory.

func yamlParse(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	text := strArg(th, "yaml", "parse", args[0])
	th.Work(int64(len(text)))
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return eval.ErrVal(eval.Str("yaml.parse: " + err.Error()))
	}
	b := newBuilder(th)
	if doc.Kind == 0 { // an empty document
		return eval.OkVal(eval.Unit)
	}
	v, err := b.yamlNode(&doc, 0)
	switch {
	case errors.Is(err, errTooLarge):
		return b.tooLarge("yaml")
	case err != nil:
		return eval.ErrVal(eval.Str("yaml.parse: " + err.Error()))
	}
	return eval.OkVal(v)
}

func (b *builder) yamlNode(n *yaml.Node, depth int) (eval.Value, error) {
	if depth > maxDocDepth {
		return eval.Value{}, fmt.Errorf("value nested deeper than %d", maxDocDepth)
	}
	if err := b.count(16); err != nil {
		return eval.Value{}, err
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return eval.Unit, nil
		}
		return b.yamlNode(n.Content[0], depth+1)
	case yaml.AliasNode:
		return b.yamlNode(n.Alias, depth+1)
	case yaml.SequenceNode:
		elems := make([]eval.Value, len(n.Content))
		for i, c := range n.Content {
			v, err := b.yamlNode(c, depth+1)
			if err != nil {
				return eval.Value{}, err
			}
			elems[i] = v
		}
		return eval.NewList(elems), nil
	case yaml.MappingNode:
		vals := map[string]*yaml.Node{}
		var keys []string
		if err := yamlPairs(n, vals, &keys, depth); err != nil {
			return eval.Value{}, err
		}
		return b.object(keys, func(k string) (eval.Value, error) { return b.yamlNode(vals[k], depth+1) })
	case yaml.ScalarNode:
		return b.yamlScalar(n)
	}
	return eval.Unit, nil
}

// yamlPairs collects the members of a mapping, a merge key (<<) adding
// the members of the mappings it names that the mapping does not set.
func yamlPairs(n *yaml.Node, vals map[string]*yaml.Node, keys *[]string, depth int) error {
	if depth > maxDocDepth {
		return fmt.Errorf("value nested deeper than %d", maxDocDepth)
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if _, ok := vals[k.Value]; !ok {
			*keys = append(*keys, k.Value)
		}
		vals[k.Value] = v
	}
	for _, m := range merges {
		for m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			for src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: a merge key (<<) needs a mapping", m.Line)
			}
			more := map[string]*yaml.Node{}
			var moreKeys []string
			if err := yamlPairs(src, more, &moreKeys, depth+1); err != nil {
				return err
			}
			for _, k := range moreKeys {
				if _, ok := vals[k]; !ok {
					vals[k] = more[k]
					*keys = append(*keys, k)
				}
			}
		}
	}
	return nil
}

// yamlScalar is a scalar by its resolved tag (YAML 1.2's core schema, as
// yaml.v3 resolves it); a timestamp stays its text, as the reference's
// serde_yaml keeps it.
func (b *builder) yamlScalar(n *yaml.Node) (eval.Value, error) {
	switch n.ShortTag() {
	case "!!null":
		return eval.Unit, nil
	case "!!bool":
		var x bool
		if err := n.Decode(&x); err != nil {
			return eval.Value{}, err
		}
		return eval.Bool(x), nil
	case "!!int":
		var x int64
		if err := n.Decode(&x); err == nil {
			return eval.Int(x), nil
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return b.str(n.Value)
		}
		return eval.Float(f), nil
	case "!!float":
		var x float64
		if err := n.Decode(&x); err != nil {
			return eval.Value{}, err
		}
		return eval.Float(x), nil
	}
	return b.str(n.Value)
}

func yamlRender(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	x, err := toPlain(th, args[0], 0)
	if err != nil {
		return eval.ErrVal(eval.Str("yaml.render: " + err.Error()))
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(x); err != nil {
		return eval.ErrVal(eval.Str("yaml.render: " + err.Error()))
	}
	enc.Close()
	th.CheckSize(int64(buf.Len()))
	th.Charge(int64(buf.Len()))
	return eval.OkVal(eval.Str(buf.String()))
}
