package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

type hint struct {
	Position protocol.Position `json:"position"`
	Label    string            `json:"label"`
	Kind     int               `json:"kind"`
}

func inlayHintsOf(c *client, r protocol.Range) string {
	c.t.Helper()
	var hints []hint
	c.call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": r}, &hints)
	var out []string
	for _, h := range hints {
		if h.Kind != 1 {
			c.t.Errorf("hint %+v: kind %d, want 1 (type)", h, h.Kind)
		}
		out = append(out, fmt.Sprintf("%d:%d%s", h.Position.Line, h.Position.Character, h.Label))
	}
	return strings.Join(out, " ")
}

// TestInlayHints: the inferred type of a let whose type is not written,
// after its name; none for a written type, a tuple, or a type the
// checker does not know (a let mut's, which later assignments widen;
// json.parse's Result[unknown, str]).
func TestInlayHints(t *testing.T) {
	c := startClient(t)
	text := "@tool \"t\"\nfn t(xs: list[int]) to int {\n    let n = len(xs)\n    let s: str = \"a\"\n    let (a, b) = (1, 2)\n" +
		"    let mut total = 0\n    let u = json.parse(\"1\")\n    let p = xs[0]\n    print(s, a, b, u, p)\n    total = n\n    total\n}\n"
	c.open(uri, text)
	whole := protocol.Range{End: protocol.Position{Line: 100}}
	if got, want := inlayHintsOf(c, whole), "2:9: int 7:9: int"; got != want {
		t.Errorf("inlay hints:\n got %s\nwant %s", got, want)
	}
	if got, want := inlayHintsOf(c, protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 7, Character: 4}}), ""; got != want {
		t.Errorf("inlay hints of lines 5 to 7 before p:\n got %s\nwant %s", got, want)
	}
	if got, want := inlayHintsOf(c, protocol.Range{Start: protocol.Position{Line: 7, Character: 8}, End: protocol.Position{Line: 7, Character: 8}}), "7:9: int"; got != want {
		t.Errorf("inlay hints of p:\n got %s\nwant %s", got, want)
	}
	m := c.rawCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": "file:///closed.vox"}, "range": whole})
	if !strings.Contains(string(m["error"]), "file:///closed.vox is not open") {
		t.Errorf("a document that is not open: %s", m["error"])
	}
	m = c.rawCall("textDocument/inlayHint", []int{1})
	if !strings.Contains(string(m["error"]), `"code":-32602`) {
		t.Errorf("bad params: %s", m["error"])
	}
}
