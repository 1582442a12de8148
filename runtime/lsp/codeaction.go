package lsp

import (
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// codeAction answers textDocument/codeAction with a quick fix for each
// diagnostic in the range that carries a machine-readable fix (diag.Fix:
// `@mcp.tool` to `@tool`, a misspelt name to the one meant), the same
// fixes `vox check --format json` gives agents.
func (s *Server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	lo, hi := d.offset(p.Range.Start), d.offset(p.Range.End)
	diags := d.diagnostics()
	actions := []protocol.CodeAction{}
	for i, x := range d.an.diags {
		if x.Fix == nil {
			continue
		}
		start := d.posOffset(syntax.MakePos(x.Fix.Line, x.Fix.Col))
		end := d.posOffset(syntax.MakePos(x.Fix.EndLine, x.Fix.EndCol))
		if end < lo || start > hi || end < start {
			continue
		}
		title := fmt.Sprintf("replace with %q", x.Fix.NewText)
		if len(x.Help) > 0 {
			title = x.Help[0]
		}
		kind := protocol.CodeActionKindQuickFix
		actions = append(actions, protocol.CodeAction{
			Title:       title,
			Kind:        &kind,
			Diagnostics: []protocol.Diagnostic{diags[i]},
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				d.uri: {{Range: protocol.Range{Start: d.position(start), End: d.position(end)}, NewText: x.Fix.NewText}},
			}},
		})
	}
	return actions, nil
}
