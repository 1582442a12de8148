package lsp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// refused checks that the last diagnostics of uri are the one refusal
// diagnostic, also shown to the user, and that its message has want.
func refused(t *testing.T, c *client, uri, want string) {
	t.Helper()
	d := c.diagnostics(uri)
	if len(d.Diagnostics) != 1 || d.Diagnostics[0].Code != "vox/lsp/refused" || d.Diagnostics[0].Severity != int(protocol.DiagnosticSeverityError) {
		t.Fatalf("diagnostics of %s: %+v, want the one refusal", uri, d)
	}
	msg := d.Diagnostics[0].Message
	if !strings.HasPrefix(msg, "vox lsp: "+uri+": ") || !strings.Contains(msg, want) {
		t.Fatalf("refusal %q, want %q", msg, want)
	}
	if len(c.shown) == 0 || c.shown[len(c.shown)-1] != msg {
		t.Fatalf("shown %q, want %q", c.shown, msg)
	}
}

// hoverAt is the hover text at line:character of uri, or the error.
func hoverAt(t *testing.T, c *client, uri string, line, character int) string {
	t.Helper()
	m := c.rawCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": line, "character": character}})
	if e, ok := m["error"]; ok {
		return "error " + string(e)
	}
	var h *protocol.Hover
	if err := json.Unmarshal(m["result"], &h); err != nil || h == nil {
		return ""
	}
	b, _ := json.Marshal(h.Contents)
	var mc protocol.MarkupContent
	json.Unmarshal(b, &mc)
	return mc.Value
}

func change(c *client, uri string, version int, changes ...any) {
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
}

func edit(line, char, endLine, endChar int, text string) map[string]any {
	return map[string]any{"range": map[string]any{
		"start": map[string]any{"line": line, "character": char},
		"end":   map[string]any{"line": endLine, "character": endChar}}, "text": text}
}

// fnText is a valid file of exactly n bytes (n >= 24) declaring fn name.
func fnText(name string, n int) string {
	s := "fn " + name + "() to int {\n    1\n}\n"
	return s + strings.Repeat("\n", n-len(s))
}

// TestDocumentLimits: past each limit a document or a change is refused
// with a message saying which limit, the documents stay as they were, and
// the server keeps answering.
func TestDocumentLimits(t *testing.T) {
	c := startClientWith(t, Options{Version: "test", MaxDocumentBytes: 100, MaxDocuments: 2, MaxTotalBytes: 150})
	const a, b, x = "file:///w/a.vox", "file:///w/b.vox", "file:///w/x.vox"

	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": a, "languageId": "vox", "version": 1, "text": fnText("big", 101)}})
	refused(t, c, a, "not opened: the document is 101 bytes, over the limit of 100 bytes for one document")
	if got := hoverAt(t, c, a, 0, 3); !strings.Contains(got, "is not open") {
		t.Fatalf("hover in a refused document: %q", got)
	}

	if d := c.open(a, fnText("alpha", 60)); len(d.Diagnostics) != 0 {
		t.Fatalf("a: %+v", d)
	}
	if d := c.open(b, fnText("beta", 60)); len(d.Diagnostics) != 0 {
		t.Fatalf("b: %+v", d)
	}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": x, "languageId": "vox", "version": 1, "text": fnText("x", 24)}})
	refused(t, c, x, "not opened: 2 documents are open, the most the server holds; close one first")

	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b}})
	c.diagnostics(b)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": x, "languageId": "vox", "version": 1, "text": fnText("x", 91)}})
	refused(t, c, x, "not opened: the open documents would hold 151 bytes of text, over the limit of 150 bytes for all of them together; close some first")

	// A change that would take a past its limit: a stays at version 1.
	change(c, a, 2, edit(0, 3, 0, 3, strings.Repeat("z", 41)))
	refused(t, c, a, "change to version 2 refused: the document would be 101 bytes, over the limit of 100 bytes for one document; the server keeps version 1")
	if got := hoverAt(t, c, a, 0, 3); !strings.Contains(got, "fn alpha() to int") {
		t.Fatalf("hover after the refused change: %q, want version 1's alpha", got)
	}
	// The editor's text is not the server's any more: a later range edit
	// is ignored rather than applied to the wrong text...
	change(c, a, 3, edit(0, 3, 0, 8, "gamma"))
	if got := hoverAt(t, c, a, 0, 3); !strings.Contains(got, "fn alpha() to int") {
		t.Fatalf("hover after an edit of a stale document: %q, want version 1's alpha", got)
	}
	// ...until a whole new text.
	change(c, a, 4, map[string]any{"text": fnText("delta", 50)})
	if d := c.diagnostics(a); len(d.Diagnostics) != 0 || d.Version == nil || *d.Version != 4 {
		t.Fatalf("after the whole text: %+v", d)
	}
	if got := hoverAt(t, c, a, 0, 3); !strings.Contains(got, "fn delta() to int") {
		t.Fatalf("hover after the whole text: %q", got)
	}

	// A range that ends before it starts refuses the whole change: the
	// edit before it is not applied either.
	change(c, a, 5, edit(0, 3, 0, 8, "omega"), edit(1, 0, 0, 0, ""))
	refused(t, c, a, "change to version 5 refused: content change 2's range ends (0:0) before it starts (1:0)")
	if got := hoverAt(t, c, a, 0, 3); !strings.Contains(got, "fn delta() to int") {
		t.Fatalf("hover after a refused change: %q", got)
	}
}

// TestManyEditsInOneChange: the edits of one didChange apply in order,
// each at positions in the text the ones before it made, counted in
// UTF-16 code units.
func TestManyEditsInOneChange(t *testing.T) {
	c := startClient(t)
	text := "// 😀 é\nfn f() to int {\n    1\n}\n"
	c.open(uri, text)
	var edits []any
	for range 2000 {
		edits = append(edits, edit(0, 5, 0, 5, "\n")) // after the emoji: 2 code units, 4 bytes
	}
	// Line 2000 is now " é", which is no Vox; make it a comment again
	// and name the function g, on a line the breaks moved.
	edits = append(edits, edit(2000, 0, 2000, 0, "//"), edit(2001, 3, 2001, 4, "g"))
	change(c, uri, 2, edits...)
	if d := c.diagnostics(uri); len(d.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", d.Diagnostics)
	}
	if got := hoverAt(t, c, uri, 2001, 3); !strings.Contains(got, "fn g() to int") {
		t.Fatalf("hover on g: %q", got)
	}
	want := "// 😀" + strings.Repeat("\n", 2000) + "// é\nfn g() to int {\n    1\n}\n"
	got, err := applyChanges([]byte(text), toChanges(t, edits), ropePiece)
	if err != nil || string(got) != want {
		t.Fatalf("applyChanges: %q, %v", got, err)
	}
}

// toChanges decodes edits as glsp decodes a didChange's.
func toChanges(t *testing.T, edits []any) []any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1}, "contentChanges": edits})
	var p protocol.DidChangeTextDocumentParams
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p.ContentChanges
}

func TestMiB(t *testing.T) {
	for n, want := range map[int]string{1 << 20: "1 MiB (1048576 bytes)", 4 << 20: "4 MiB (4194304 bytes)", 100: "100 bytes"} {
		if got := mib(n); got != want {
			t.Errorf("mib(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDiagnosticsCapped: past MaxDiagnostics one diagnostic says how many
// more there are, where the first of them is.
func TestDiagnosticsCapped(t *testing.T) {
	c := startClient(t)
	d := c.open(uri, strings.Repeat("fn f() {}\n", MaxDiagnostics+6)) // every f after the first is a duplicate
	if len(d.Diagnostics) != MaxDiagnostics+1 {
		t.Fatalf("%d diagnostics, want %d", len(d.Diagnostics), MaxDiagnostics+1)
	}
	last := d.Diagnostics[MaxDiagnostics]
	if last.Code != "vox/lsp/more" || last.Severity != int(protocol.DiagnosticSeverityInformation) ||
		last.Message != "5 more diagnostics from here on are not shown: vox lsp publishes the first 1000 of a document; vox check lists every one" ||
		last.Range.Start.Line != MaxDiagnostics+1 {
		t.Fatalf("the last diagnostic: %+v", last)
	}
}

// TestOlderAnalysisDropped: the last complete analysis that completion
// keeps while the text does not parse counts toward the text held; when
// only it would pass the limit, it is dropped, not the change.
func TestOlderAnalysisDropped(t *testing.T) {
	var log strings.Builder
	s := NewServer(io.Discard, Options{MaxTotalBytes: 100, Log: &log})
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.vox","languageId":"vox","version":1,"text":"fn f(n: int) to int {\n    n\n}\n"}}}`,
	} {
		if err := s.handle([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	d := s.docs["file:///a.vox"]
	if d.good == nil || d.good != d.an {
		t.Fatalf("a text that parses: good %p, an %p", d.good, d.an)
	}
	change := func(version int, text string) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument": map[string]any{"uri": "file:///a.vox", "version": version}, "contentChanges": []any{map[string]any{"text": text}}}})
		if err := s.handle(body); err != nil {
			t.Fatal(err)
		}
	}
	change(2, "fn f(n: int) to int {\n    n\n}\n)\n") // a syntax error: 30 + 32 bytes held, both kept
	if d.good == nil || d.good == d.an || d.held() != 62 {
		t.Fatalf("within the limit: good %p, an %p, held %d; %s", d.good, d.an, d.held(), log.String())
	}
	change(3, "fn f(n: int) to int {\n    n\n}\n)"+strings.Repeat(" ", 40)+"\n") // 30 + 72: the older one goes
	if d.good != nil || d.version != 3 || d.held() != 72 {
		t.Fatalf("past the limit: good %p, version %d, held %d", d.good, d.version, d.held())
	}
}
