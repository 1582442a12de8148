package lsp

import (
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/format"
)

// applyEdits applies LSP edits, last first, to an ASCII text.
func applyEdits(t *testing.T, text string, edits []protocol.TextEdit) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	offset := func(p protocol.Position) int {
		n := 0
		for i := 0; i < int(p.Line) && i < len(lines); i++ {
			n += len(lines[i])
		}
		return n + int(p.Character)
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if i > 0 && offset(edits[i-1].Range.End) > offset(e.Range.Start) {
			t.Fatalf("edits overlap or are out of order: %+v", edits)
		}
		text = text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
	}
	return text
}

const unformatted = "@tool \"t\"\nfn t(a: int,b: int) to int {\n  let x=a+b   # the sum\n\n\n\n  x*2\n}\n\n\nfn u() to int {   1+1   }"

// TestFormatting: textDocument/formatting gives the edits that turn the
// document into vox fmt's output, and nothing for a formatted one.
func TestFormatting(t *testing.T) {
	c := startClient(t)
	c.open(uri, unformatted)
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	want, err := format.Source("t.vox", []byte(unformatted))
	if err != nil {
		t.Fatal(err)
	}
	if got := applyEdits(t, unformatted, edits); got != string(want) {
		t.Fatalf("after the edits:\n%s\nwant:\n%s", got, want)
	}
	if len(edits) < 3 {
		t.Errorf("the edits replace only what changed, in hunks: %+v", edits)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": string(want)}},
	})
	c.diagnostics(uri)
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	if len(edits) != 0 {
		t.Fatalf("a formatted document got edits: %+v", edits)
	}
}

// TestRangeFormatting: only the lines of the range change.
func TestRangeFormatting(t *testing.T) {
	c := startClient(t)
	c.open(uri, unformatted)
	var edits []protocol.TextEdit
	c.call("textDocument/rangeFormatting", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 3, "character": 0}},
		"options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	got := applyEdits(t, unformatted, edits)
	want := strings.Replace(unformatted, "  let x=a+b   # the sum\n", "    let x = a+b # the sum\n", 1)
	if got != want {
		t.Fatalf("after the edits:\n%q\nwant:\n%q", got, want)
	}
}

// TestFormattingRefusesABrokenDocument: an error names where, and the
// editor's text is left alone.
func TestFormattingRefusesABrokenDocument(t *testing.T) {
	c := startClient(t)
	c.open(uri, "@tool \"x\"\nfn f() to int {\n    let = 3\n}\n")
	m := c.rawCall("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}})
	if e := string(m["error"]); !strings.Contains(e, "not formatted") || !strings.Contains(e, "tools.vox:3:9: expected a pattern") {
		t.Fatalf("response %s", m)
	}
}
