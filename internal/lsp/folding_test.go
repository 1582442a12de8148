package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

func TestFoldingRange(t *testing.T) {
	c := startClient(t)
	text := `// A tool.
// It folds.
@tool "t"
fn t() to int {
    let xs = [
        1,
        2]
    let o = {a: 1, b: 2}
    let m = {
        a: 1,
    }
    if len(xs) > 1 {
        # one comment line does not fold
        print(o, m)
    }
    len(xs)
}
`
	c.open(uri, text)
	var ranges []protocol.FoldingRange
	c.call("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": uri}}, &ranges)
	var got []string
	for _, r := range ranges {
		s := fmt.Sprintf("%d-%d", r.StartLine, r.EndLine)
		if r.Kind != nil {
			s += " " + *r.Kind
		}
		got = append(got, s)
	}
	// The list's bracket closes on its last element's line, which folds
	// with it; a closing brace on its own line stays in view.
	want := "4-6 8-9 11-13 3-15 0-1 comment"
	if strings.Join(got, " ") != want {
		t.Errorf("folding ranges:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
