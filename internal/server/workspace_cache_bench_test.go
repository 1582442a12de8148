package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// BenchmarkStartupFromRecord is a start in a workspace of 500 advertised
// tools in 50 files whose surface cache record holds (docs/federation.md
// §6): New, initialize and the first tools/list, answered from the
// prepared list as the transports answer it (docs/benchmarks.md, "Cold
// start: where vox-mcp's time goes").
func BenchmarkStartupFromRecord(b *testing.B) {
	root, cacheDir := b.TempDir(), b.TempDir()
	writeBenchFile(b, root, workspace.ConfigPath, testScanConfig)
	for f := range 50 {
		var src strings.Builder
		for j := range 10 {
			fmt.Fprintf(&src, "@tool \"Workspace tool %d of file %d: scales its numbers\"\nfn ws_tool_%02d_%d(values: list[int], factor: float = 2.0) to list[float] {\n    values.map(fn(v) v * factor)\n}\n\n", j, f, f, j)
		}
		writeBenchFile(b, root, fmt.Sprintf("tools/f%02d.vox", f), src.String())
	}
	opts := Options{Root: root, Catalog: testCatalog(), Handlers: testTable, WorkspaceTools: true, SurfaceCacheDir: cacheDir}
	ctx := context.Background()
	start := func() *Server {
		s, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	s := start()
	if err := s.WaitWorkspace(ctx); err != nil { // records the surface
		b.Fatal(err)
	}
	init := json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var head rpcMessage
	if err := json.Unmarshal(list, &head); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := start()
		s.MCP().HandleMessage(ctx, init)
		reply, ok := s.preparedToolsList(list, &head)
		if !ok || len(reply.result) < 100_000 {
			b.Fatalf("the first list: %v, %d bytes", ok, len(reply.result))
		}
		b.StopTimer()
		s.WaitWorkspace(ctx) // the scan that checks the record, before the next round
		b.StartTimer()
	}
}
