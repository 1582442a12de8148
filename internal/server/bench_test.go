package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// syntheticCatalog has n MCP tools shaped like the product's rows.
func syntheticCatalog(n int) *registry.Catalog {
	cat := &registry.Catalog{Source: "bench", SchemaVersion: 1}
	classes := []string{"none", "read_only", "writes_files", "spawns_process", "network", "destructive"}
	for i := range n {
		cat.Operations = append(cat.Operations, registry.Operation{
			ID: fmt.Sprintf("bench.op-%04d", i), Title: fmt.Sprintf("Operation %d", i),
			Description:     fmt.Sprintf("Performs operation number %d on the repository and reports what it did.", i),
			ProductLane:     "platform",
			SideEffectClass: classes[i%len(classes)],
			MCP: &registry.MCP{
				Name: fmt.Sprintf("vox_op_%04d", i), Exposure: "core", Requires: []string{"workspace"},
				InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"path":{"description":"Repository-relative path.","type":"string"},"limit":{"default":10,"maximum":100,"minimum":1,"type":"integer"}},"required":["path"],"type":"object"}`),
			},
		})
	}
	return cat
}

var listRequest = json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

// BenchmarkToolsList500 is tools/list of 500 catalog tools through
// MCPServer.HandleMessage, including encoding the response as it goes on
// the wire. Compare with BenchmarkMarshalTools500 (target ratio ≤ 1.2).
func BenchmarkToolsList500(b *testing.B) {
	s, err := New(Options{Root: b.TempDir(), Catalog: syntheticCatalog(500)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp := s.MCP().HandleMessage(ctx, listRequest)
		if _, err := json.Marshal(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsListPrepared500 is the same tools/list answered as the
// stdio shim answers a plain one (tools_list.go): the set's prepared
// result written behind the request's id.
func BenchmarkToolsListPrepared500(b *testing.B) {
	s, err := New(Options{Root: b.TempDir(), Catalog: syntheticCatalog(500)})
	if err != nil {
		b.Fatal(err)
	}
	var head rpcMessage
	if err := json.Unmarshal(listRequest, &head); err != nil {
		b.Fatal(err)
	}
	out := transport.NewLineWriter(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		reply, ok := s.preparedToolsList(listRequest, &head)
		if !ok {
			b.Fatal("not answered from the prepared list")
		}
		if err := out.WriteParts(reply.head, reply.result, []byte("}\n")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalTools500 is json.Marshal of the same []mcp.Tool: the
// floor for any tools/list implementation.
func BenchmarkMarshalTools500(b *testing.B) {
	s, err := New(Options{Root: b.TempDir(), Catalog: syntheticCatalog(500)})
	if err != nil {
		b.Fatal(err)
	}
	tools := make([]mcp.Tool, 0, 500)
	for _, e := range s.currentTools().sorted() {
		tools = append(tools, e.tool)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(tools); err != nil {
			b.Fatal(err)
		}
	}
}
