package lsp

import (
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeActions asks for the code actions of a range.
func codeActions(c *client, r protocol.Range) []protocol.CodeAction {
	c.t.Helper()
	var actions []protocol.CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": r, "context": map[string]any{"diagnostics": []any{}}}, &actions)
	return actions
}

// The fix of "cannot assign twice" edits the let two lines above the
// diagnostic: editors ask with the diagnostic's range or the cursor on
// its line, and must be offered it.
func TestCodeActionOnTheDiagnosticsLine(t *testing.T) {
	c := startClient(t)
	text := "@tool \"t\"\nfn t() to int {\n    let n = 1\n    print(n)\n    n = 2\n    n\n}\n"
	d := c.open(uri, text)
	var diag *protocol.Range
	for _, x := range d.Diagnostics {
		if x.Code == "vox/assign/immutable" {
			diag = &x.Range
		}
	}
	if diag == nil || diag.Start.Line != 4 {
		t.Fatalf("diagnostics %+v", d.Diagnostics)
	}
	zero := protocol.Position{Line: 4, Character: 9} // past the end of the line's text
	for name, r := range map[string]protocol.Range{
		"the diagnostic's range": *diag,
		"a cursor on its line":   {Start: zero, End: zero},
		"the start of its line":  {Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4}},
	} {
		actions := codeActions(c, r)
		if len(actions) != 1 || actions[0].Edit == nil {
			t.Errorf("%s: actions %+v", name, actions)
			continue
		}
		edits := actions[0].Edit.Changes[uri]
		if actions[0].Title != "make it mutable: let mut n (declared at 3:9)" || len(edits) != 1 || edits[0].NewText != "mut " ||
			edits[0].Range.Start != (protocol.Position{Line: 2, Character: 8}) || len(actions[0].Diagnostics) != 1 {
			t.Errorf("%s: the fix %+v", name, actions[0])
		}
	}
	// A line with no diagnostic gets none.
	if actions := codeActions(c, protocol.Range{Start: protocol.Position{Line: 3, Character: 4}, End: protocol.Position{Line: 3, Character: 4}}); len(actions) != 0 {
		t.Errorf("a line without a diagnostic: %+v", actions)
	}
}
