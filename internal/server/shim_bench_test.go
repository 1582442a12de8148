package server

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkPreDispatch measures what the shim adds to one tools/call of
// about 1 KiB, against mcp-go's own handling of the same message (the
// tool call included): docs/federation.md §8 reports the ratio.
func BenchmarkPreDispatch(b *testing.B) {
	s, err := New(Options{Root: b.TempDir(), Catalog: testCatalog(), Handlers: testTable, SessionKeys: [][]byte{testSessionKey}})
	if err != nil {
		b.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vox_tool_search","arguments":{"query":"` + strings.Repeat("search ", 140) + `","limit":1}}}`)
	ctx := context.Background()
	b.Run("shim", func(b *testing.B) {
		for b.Loop() {
			s.preDispatch(ctx, msg, false)
		}
	})
	b.Run("mcp-go", func(b *testing.B) {
		for b.Loop() {
			s.mcp.HandleMessage(ctx, msg)
		}
	})
}
