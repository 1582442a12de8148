package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// FuzzReadMessage: the message decoder never panics, never returns a body
// over the limit, and what it returns frames and reads back the same.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 4\n\nnullContent-Length: 1\r\n\r\n1",
		"Content-Type: a\r\nContent-Length: 3\r\n\r\n[1]",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: \r\n\r\n",
		":\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newReader(bytes.NewReader(in))
		for range 64 {
			body, err := r.read()
			if err != nil {
				if _, ok := err.(*FrameError); !ok && err != io.EOF {
					t.Fatalf("error %T %v, want a FrameError or io.EOF", err, err)
				}
				return
			}
			if len(body) > MaxMessageSize {
				t.Fatalf("a %d-byte body", len(body))
			}
			var b bytes.Buffer
			w := bufio.NewWriter(&b)
			if err := writeMessage(w, body); err != nil {
				t.Fatal(err)
			}
			again, err := newReader(&b).read()
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("framed again: %q, %v; want %q", again, err, body)
			}
		}
	})
}

// FuzzHandle: whatever message body arrives after initialize and a
// didOpen, the server answers without panicking and its output stays
// well-framed JSON. A panic the server recovers from still fails.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":1,"character":4}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":2,"character":99}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"textDocument/signatureHelp","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":2,"character":14}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":2,"character":13}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.vox","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":3}},"text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":6,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///a.vox"},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"context":{"diagnostics":[]}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///a.vox"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"workspace/symbol","params":{"query":"t"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"textDocument/references","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":2,"character":9},"context":{"includeDeclaration":true}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"textDocument/rename","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":1,"character":6},"newName":"who"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"textDocument/prepareRename","params":{"textDocument":{"uri":"file:///a.vox"},"position":{"line":3,"character":6}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"textDocument/inlayHint","params":{"textDocument":{"uri":"file:///a.vox"},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}}}}`,
		`{"jsonrpc":"2.0","id":13,"method":"textDocument/foldingRange","params":{"textDocument":{"uri":"file:///a.vox"}}}`,
		`{"jsonrpc":"2.0","id":14,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///a.vox"}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"shutdown"}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": "file:///a.vox", "languageId": "vox", "version": 1,
			"text": "@tool \"t\"\nfn t(name: str) to str {\n    let s = len(name, \"é\")\n    s.trim()\n}\n"}}})
	f.Fuzz(func(t *testing.T, body []byte) {
		var out, log bytes.Buffer
		s := NewServer(&out, Options{Log: &log})
		for _, m := range [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`), open, body} {
			if err := s.handle(m); err != nil {
				t.Fatalf("handle: %v", err)
			}
		}
		if bytes.Contains(log.Bytes(), []byte("panic")) {
			t.Fatalf("a feature panicked (the server recovered):\n%s", log.Bytes())
		}
		r := newReader(&out)
		for {
			got, err := r.read()
			if err == io.EOF {
				return
			}
			if err != nil || !json.Valid(got) {
				t.Fatalf("the server wrote %q, %v", got, err)
			}
		}
	})
}

// applyReference is the simple implementation FuzzApplyChanges compares
// the rope with: each range edit converts its positions on the flat text
// (document.offset, which the position queries use too) and copies the
// whole text.
func applyReference(text []byte, changes []any) ([]byte, error) {
	d := &document{}
	d.setText(text)
	for _, change := range changes {
		switch c := change.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			d.setText([]byte(validText(c.Text)))
		case protocol.TextDocumentContentChangeEvent:
			start, end := d.offset(c.Range.Start), d.offset(c.Range.End)
			if end < start {
				return nil, fmt.Errorf("ends before it starts")
			}
			d.setText(slices.Concat(d.text[:start], []byte(validText(c.Text)), d.text[end:]))
		}
	}
	return d.text, nil
}

// FuzzApplyChanges: the changes of a didChange applied through the rope,
// cut into pieces of 1 to 8 bytes so that every text spans many, give
// the text the reference gives, or both refuse the same change list.
// ops holds 5 bytes an edit: start line and character, end line and
// character (in UTF-16 code units, up to past the line and the text),
// and the text to insert (a whole new text when its high bit is set).
func FuzzApplyChanges(f *testing.F) {
	f.Add("fn f() {\n    1\n}\n", []byte{0, 3, 0, 4, 1, 1, 0, 2, 5, 2}, uint8(3))
	f.Add("a😀b\r\né\nx", []byte{0, 1, 0, 3, 4, 0, 2, 0, 2, 5, 1, 0, 1, 0, 0x83}, uint8(1))
	f.Add("\n\n\r\n", []byte{3, 0, 0, 0, 6, 2, 9, 2, 9, 7}, uint8(2))
	f.Add("x\xffy\xe2\x82z", []byte{0, 1, 0, 2, 2}, uint8(4))
	inserts := []string{"", "x", "\n", "é", "😀", "\r\n", "ab\ncd\n", "\r", "a😀\nb"}
	f.Fuzz(func(t *testing.T, text string, ops []byte, piece uint8) {
		if len(ops) > 5*256 {
			return
		}
		start := []byte(validText(text))
		lines := bytes.Count(start, []byte("\n")) + 2
		var changes []any
		for ; len(ops) >= 5; ops = ops[5:] {
			ins := inserts[int(ops[4]&0x7f)%len(inserts)]
			if ops[4]&0x80 != 0 {
				changes = append(changes, protocol.TextDocumentContentChangeEventWhole{Text: ins + text})
				continue
			}
			changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{
				Start: protocol.Position{Line: protocol.UInteger(int(ops[0]) % lines), Character: protocol.UInteger(ops[1] % 16)},
				End:   protocol.Position{Line: protocol.UInteger(int(ops[2]) % lines), Character: protocol.UInteger(ops[3] % 16)},
			}, Text: ins})
		}
		want, wantErr := applyReference(start, changes)
		got, err := applyChanges(start, changes, 1+int(piece%8))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, the reference's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("changes %+v on %q:\ngot  %q\nwant %q", changes, start, got, want)
		}
	})
}
