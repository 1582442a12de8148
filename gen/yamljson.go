package gen

import (
	"github.com/vox-lang/vox-mcp/runtime/contractdoc"
	"github.com/vox-lang/vox-mcp/runtime/schemajson"
)

// The YAML decoding with positions lives in runtime/contractdoc, shared with
// the workspace loader (scan config, fixtures); these names keep the
// catalog code unchanged.

// Pos is a 1-based line and column in a source file.
type Pos struct{ Line, Col int }

type posError struct {
	Pos Pos
	Msg string
}

// yamlDoc is a YAML document converted to JSON values, with the position of
// every value and of every object key, addressed by JSON pointer.
type yamlDoc struct {
	root schemajson.Value
	d    *contractdoc.Doc
}

// pos returns the position of the value at pointer, or of its nearest
// ancestor that has one.
func (d *yamlDoc) pos(pointer string) Pos { return Pos(d.d.Pos(pointer)) }

// keyPosition returns the position of the key that holds the value at
// pointer, falling back to the value's position.
func (d *yamlDoc) keyPosition(pointer string) Pos { return Pos(d.d.KeyPos(pointer)) }

// parseYAML decodes the catalog source with positions.
func parseYAML(src []byte) (*yamlDoc, []posError) {
	d, pes := contractdoc.ParseYAML(src, "a mapping with schema_version and operations")
	errs := make([]posError, len(pes))
	for i, pe := range pes {
		errs[i] = posError{Pos(pe.Pos), pe.Msg}
	}
	if d == nil {
		return nil, errs
	}
	return &yamlDoc{root: d.Root, d: d}, errs
}

func escapePointer(key string) string { return contractdoc.EscapePointer(key) }
