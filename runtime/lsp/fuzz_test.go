package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
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
