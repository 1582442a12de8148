package contractdoc

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAMLLimits bound what reading one YAML document may cost. yaml.v3 keeps
// an alias as a pointer to its anchored value, so the parsed tree is as
// small as the source; every reader that expands aliases (converting to
// values, walking a pointer) pays for the expansion. A document of a few
// hundred bytes can expand to billions of values (the "billion laughs"),
// or repeat a long string thousands of times: ReadYAML measures the
// expansion before anyone performs it.
type YAMLLimits struct {
	// MaxBytes is the largest source accepted.
	MaxBytes int
	// MaxDepth bounds nesting, counted with aliases expanded.
	MaxDepth int
	// MaxAliasValues bounds the values that aliases repeat in all: the
	// values of the document with aliases expanded, minus those written
	// out.
	MaxAliasValues int
	// MaxAliasBytes bounds the scalar text that aliases repeat in all.
	MaxAliasBytes int
}

// ContractLimits are the limits of the product's YAML contracts (the
// catalog, the workspace scan config), documented in docs/security.md.
var ContractLimits = YAMLLimits{
	MaxBytes:       8 << 20,
	MaxDepth:       MaxDepth,
	MaxAliasValues: 100_000,
	MaxAliasBytes:  4 << 20,
}

// YAMLProblem is why ReadYAML refused a document, at its position in the
// source (1-based; Col is 0 for a syntax error, whose column yaml.v3 does
// not report).
type YAMLProblem struct {
	PosError
	// OverLimit is set when the source is valid YAML that exceeds one of
	// the limits; otherwise the problem is a syntax error, and Message is the
	// parser's message.
	OverLimit bool
	// layout is set when a document read row by row (ParseYAMLRows) is
	// not in the layout its rows are found by.
	layout bool
}

// ReadYAML is the one YAML reader of the product: every contract and every
// SKILL.md front matter is read through it. It parses src as a single
// YAML document and checks it against lim — size, depth and what its
// aliases expand to, with positions — so that the tree it returns can be
// walked with aliases expanded at a cost the limits bound. It returns the
// document's root node, or nil (and no problem) for an empty document.
// Cyclic aliases (an alias inside the value it names) are refused too.
func ReadYAML(src []byte, lim YAMLLimits) (*yaml.Node, *YAMLProblem) {
	if lim.MaxBytes > 0 && len(src) > lim.MaxBytes {
		return nil, &YAMLProblem{PosError: PosError{Pos{1, 1}, TooLargeMessage(int64(len(src)), int64(lim.MaxBytes))}, OverLimit: true}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, &YAMLProblem{PosError: yamlSyntaxError(err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	m := &yamlMeter{lim: lim, anchored: map[*yaml.Node]yamlCost{}, open: map[*yaml.Node]bool{}}
	if _, p := m.measure(root, 1); p != nil {
		return nil, p
	}
	return root, nil
}

// yamlCost is what a value costs with its aliases expanded: values, bytes
// of scalar text, and the levels of nesting it adds.
type yamlCost struct {
	values, bytes, height int
}

// yamlMeter measures a yaml.Node tree in one pass over the nodes as
// written, never into an alias: the cost of an anchored value is
// remembered when its walk ends, and YAML defines an anchor before any
// alias to it, so an alias adds a remembered cost — or names a value
// still being walked, which would contain itself.
type yamlMeter struct {
	lim        YAMLLimits
	anchored   map[*yaml.Node]yamlCost
	open       map[*yaml.Node]bool // anchored values being walked
	aliasVals  int                 // values repeated by aliases so far
	aliasBytes int                 // scalar bytes repeated by aliases so far
	// shift is added to the line of every node measured: a part of a
	// document parsed on its own (ParseYAMLRows) starts at line 1.
	shift int
	// onAnchor, when set, is told of every anchored value measured.
	onAnchor func(*yaml.Node)
}

func (m *yamlMeter) problem(n *yaml.Node, format string, args ...any) *YAMLProblem {
	return &YAMLProblem{PosError: PosError{Pos{n.Line, n.Column}, fmt.Sprintf(format, args...)}, OverLimit: true}
}

// measure returns the cost of n at nesting level depth (the root is at
// 1). The recursion follows the tree as written, which the depth limit
// bounds.
func (m *yamlMeter) measure(n *yaml.Node, depth int) (yamlCost, *YAMLProblem) {
	n.Line += m.shift
	if m.lim.MaxDepth > 0 && depth > m.lim.MaxDepth {
		return yamlCost{}, m.problem(n, "nested deeper than %d levels: at most %d are allowed", m.lim.MaxDepth, m.lim.MaxDepth)
	}
	if n.Kind == yaml.AliasNode {
		return m.alias(n, depth)
	}
	if n.Anchor != "" {
		m.open[n] = true
	}
	c := yamlCost{values: 1, bytes: len(n.Value), height: 1}
	for _, child := range n.Content {
		cc, p := m.measure(child, depth+1)
		if p != nil {
			return yamlCost{}, p
		}
		c.values += cc.values
		c.bytes += cc.bytes
		c.height = max(c.height, cc.height+1)
	}
	if n.Anchor != "" {
		delete(m.open, n)
		m.anchored[n] = c
		if m.onAnchor != nil {
			m.onAnchor(n)
		}
	}
	return c, nil
}

// alias charges the expansion of alias n, met at nesting level depth.
func (m *yamlMeter) alias(n *yaml.Node, depth int) (yamlCost, *YAMLProblem) {
	target := n.Alias
	if target == nil || m.open[target] {
		return yamlCost{}, m.problem(n, "alias *%s is used inside the value it names: a value cannot contain itself", n.Value)
	}
	c, ok := m.anchored[target]
	if !ok {
		return yamlCost{}, m.problem(n, "alias *%s names no value defined before it", n.Value)
	}
	if m.lim.MaxDepth > 0 && depth-1+c.height > m.lim.MaxDepth {
		return yamlCost{}, m.problem(n, "alias *%s nests the document deeper than %d levels: at most %d are allowed", n.Value, m.lim.MaxDepth, m.lim.MaxDepth)
	}
	m.aliasVals += c.values
	m.aliasBytes += c.bytes
	if m.lim.MaxAliasValues > 0 && m.aliasVals > m.lim.MaxAliasValues {
		return yamlCost{}, m.problem(n, "alias *%s repeats %d values, and aliases may repeat at most %d values in one file: write the repeated part out or use fewer aliases",
			n.Value, c.values, m.lim.MaxAliasValues)
	}
	if m.lim.MaxAliasBytes > 0 && m.aliasBytes > m.lim.MaxAliasBytes {
		return yamlCost{}, m.problem(n, "alias *%s repeats %d bytes of text, and aliases may repeat at most %s of text in one file: write the repeated part out or use fewer aliases",
			n.Value, c.bytes, byteSize(int64(m.lim.MaxAliasBytes)))
	}
	return c, nil
}

// byteSize words a limit in bytes: "4 MiB", "512 KiB", "100 bytes".
// TooLargeMessage is the message of a contract file of size bytes over
// its limit of max bytes, for readers that refuse it before reading it.
func TooLargeMessage(size, max int64) string {
	return fmt.Sprintf("the file is %d bytes: at most %s are allowed; split it or shorten it", size, byteSize(max))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

var yamlErrorLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner). The parser reports the 0-based line of its context where
// the scanner reports a 1-based line, and neither reports a line on the
// first line of the document; yamlSyntaxError undoes both quirks.
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

// yamlSyntaxError converts a yaml.v3 error ("yaml: line 3: ...") into a
// positioned error without a column, which yaml.v3 does not report.
func yamlSyntaxError(err error) PosError {
	text := err.Error()
	msg := strings.TrimPrefix(text, "yaml: ")
	line := 1 // no line reported: both marks were on the first line
	if m := yamlErrorLine.FindStringSubmatch(text); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = text[len(m[0]):]
		if slices.Contains(yamlParserProblems, msg) {
			line++
		}
	}
	return PosError{Pos{line, 0}, msg}
}
