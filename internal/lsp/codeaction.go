package lsp

import (
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// codeAction answers textDocument/codeAction with a quick fix for each
// diagnostic that carries a machine-readable fix (diag.Fix: `@mcp.tool`
// to `@tool`, a misspelt name to the one meant, `let` to `let mut`), the
// same fixes `vox check --format json` gives agents.
//
// A diagnostic is offered when the request's range meets its line or
// its fix's range. Editors ask with the diagnostic's own range or with
// the cursor (a zero-width range) somewhere on its line, and a fix may
// edit elsewhere: "make it mutable" is reported at the second
// assignment and edits the `let` lines above it, so matching on the
// fix's range alone offered it only to a request that covered the
// `let`, which no editor sends.
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
		if end < start {
			continue
		}
		lineStart, lineEnd := d.lineSpan(x.Line - 1)
		if (end < lo || start > hi) && (lineEnd < lo || lineStart > hi) {
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

// lineSpan is the byte offsets of line i's (0-based) start and end
// (before its line break), clamped to the text.
func (d *document) lineSpan(i int) (start, end int) {
	i = max(0, min(i, len(d.lines)-1))
	start = d.lines[i]
	return start, start + len(d.lineText(i))
}
