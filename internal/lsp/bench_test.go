package lsp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkDiagnosticsAfterEdit measures what one keystroke costs: an
// incremental didChange of one character, through decoding, applying the
// edit, analyzing the file and encoding the publishDiagnostics
// notification (docs/vox-lsp.md, Speed; the target is under 20 ms).
func BenchmarkDiagnosticsAfterEdit(b *testing.B) {
	tools, err := os.ReadFile("testdata/tools.vox")
	if err != nil {
		b.Fatal(err)
	}
	values, err := os.ReadFile("../vox/testdata/run/values.vox")
	if err != nil {
		b.Fatal(err)
	}
	// A large file: the tools file's functions forty times over, renamed.
	var large strings.Builder
	large.Write(tools)
	body := string(tools[strings.Index(string(tools), "@tool"):])
	for i := range 40 {
		r := strings.NewReplacer("fn greet(", fmt.Sprintf("fn greet%d(", i), "fn helper(", fmt.Sprintf("fn helper%d(", i))
		large.WriteString("\n" + r.Replace(body))
	}
	for _, tc := range []struct {
		name string
		text string
	}{
		{"tools.vox", string(tools)},
		{"values.vox", string(values)},
		{"large", large.String()},
	} {
		b.Run(fmt.Sprintf("%s/%dlines", tc.name, strings.Count(tc.text, "\n")), func(b *testing.B) {
			s := NewServer(io.Discard, Options{})
			must := func(m any) {
				body, _ := json.Marshal(m)
				if err := s.handle(body); err != nil {
					b.Fatal(err)
				}
			}
			must(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
			must(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": "file:///b.vox", "languageId": "vox", "version": 1, "text": tc.text}}})
			// Type a space at the start of line 3, then delete it, and so on.
			line := 2
			insert, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument": map[string]any{"uri": "file:///b.vox", "version": 2},
				"contentChanges": []any{map[string]any{"range": map[string]any{
					"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}}, "text": " "}}}})
			remove, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument": map[string]any{"uri": "file:///b.vox", "version": 3},
				"contentChanges": []any{map[string]any{"range": map[string]any{
					"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 1}}, "text": ""}}}})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m := insert
				if i%2 == 1 {
					m = remove
				}
				if err := s.handle(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
