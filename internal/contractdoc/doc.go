// Package contractdoc decodes the product's data contracts — YAML (the
// catalog, the workspace scan config) and JSON (the workspace tool
// fixtures) — into ordered JSON values that remember the line and column of
// every value and object key, and reports JSON Schema validation failures as
// positioned, readable messages. The generator (gen) and the runtime
// loaders (runtime/workspace) share it so that every contract error names
// file:line:col the same way (docs/contracts.md; docs/security.md lists the limits).
//
// ReadYAML is the product's one YAML reader — contracts and SKILL.md front
// matter alike: it measures what aliases would expand to, and the nesting,
// before anything expands them, so a small hostile file cannot cost
// gigabytes.
package contractdoc

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vox-lang/vox-mcp/internal/position"
	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// Pos is a 1-based line and column (byte offset within the line).
type Pos struct{ Line, Col int }

// Doc is a decoded document: its root value and the position of every
// value and of every object key, addressed by JSON pointer (RFC 6901).
// JSON documents record positions while decoding; YAML documents keep the
// yaml.Node tree and look positions up on demand, which keeps decoding a
// large catalog cheap.
type Doc struct {
	Root     schemajson.Value
	yamlRoot *yaml.Node
	// prefix is the pointer of yamlRoot in its document, for one row of
	// a document read row by row (ParseYAMLRows); pointers outside it
	// resolve to the row.
	prefix   string
	valuePos map[string]Pos
	keyPos   map[string]Pos
}

func newDoc() *Doc {
	return &Doc{valuePos: map[string]Pos{}, keyPos: map[string]Pos{}}
}

// Pos returns the position of the value at pointer, or of its nearest
// ancestor that has one.
func (d *Doc) Pos(pointer string) Pos {
	if d.yamlRoot != nil {
		n, _ := walkYAML(d.yamlRoot, d.relative(pointer))
		return Pos{n.Line, n.Column}
	}
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

// relative is pointer from the document's yamlRoot: itself, or with the
// row's prefix removed ("" for a pointer outside the row).
func (d *Doc) relative(pointer string) string {
	if d.prefix == "" {
		return pointer
	}
	if rest, ok := strings.CutPrefix(pointer, d.prefix); ok && (rest == "" || rest[0] == '/') {
		return rest
	}
	return ""
}

// KeyPos returns the position of the key that holds the value at pointer,
// falling back to the value's position.
func (d *Doc) KeyPos(pointer string) Pos {
	if d.yamlRoot != nil {
		n, key := walkYAML(d.yamlRoot, d.relative(pointer))
		if key != nil {
			return Pos{key.Line, key.Column}
		}
		return Pos{n.Line, n.Column}
	}
	if p, ok := d.keyPos[pointer]; ok {
		return p
	}
	return d.Pos(pointer)
}

// PosError is a problem at a position of the document being decoded.
type PosError struct {
	Pos     Pos
	Message string
}

// EscapePointer escapes an object key for a JSON pointer (RFC 6901).
func EscapePointer(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// PointerOf joins instance-location tokens into a JSON pointer.
func PointerOf(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(EscapePointer(tok))
	}
	return b.String()
}

// Error is one problem in a contract file, with its position.
type Error struct {
	Path    string // repo-relative, slash-separated
	Line    int
	Col     int
	Message string
}

func (e Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Message)
}

// Errors is every problem found in a file, sorted by position.
type Errors []Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the errors by position (position.Compare: path, line,
// column, text), the order of every positioned report of the product.
func (es Errors) Sort() {
	slices.SortStableFunc(es, func(a, b Error) int { return position.Compare(a.key(), b.key()) })
}

func (e Error) key() position.Key {
	return position.Key{Path: e.Path, Line: e.Line, Col: e.Col, Message: e.Message}
}

// Dedupe sorts the errors and removes identical ones (same position and
// text), which schema validation produces when several branches fail alike.
func (es Errors) Dedupe() Errors {
	es.Sort()
	out := es[:0]
	for i, e := range es {
		if i > 0 && e == es[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// At converts position errors of the file at path into Errors.
func At(path string, pes []PosError) Errors {
	out := make(Errors, 0, len(pes))
	for _, pe := range pes {
		out = append(out, Error{path, pe.Pos.Line, pe.Pos.Col, pe.Message})
	}
	return out
}
