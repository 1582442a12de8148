// Command gosdk is the official Go SDK peer of the peer benchmark
// (docs/benchmarks.md): github.com/modelcontextprotocol/go-sdk serving
// add(a, b) the way that SDK's documentation writes a tool — a typed
// handler whose input schema the SDK infers and validates — over stdio or,
// with -http, streamable HTTP at /mcp. With -tools N it serves N copies of
// add (add, add_001, …).
//
// It lives in a module of its own so that the SDK never becomes a
// dependency of vox-mcp.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addArgs is add's input; the SDK infers
// {"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}.
type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on `ADDR` (endpoint /mcp) instead of stdio")
	tools := flag.Int("tools", 1, "serve `N` add tools")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "1"}, nil)
	for i := range *tools {
		mcp.AddTool(s, &mcp.Tool{Name: toolName(i), Description: "Add two integers"}, add)
	}
	if *httpAddr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	// JSON responses, the mode vox-mcp and mcp-go answer in; the SDK's
	// default, a one-event SSE stream per response, costs it more.
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	log.Fatal(http.ListenAndServe(*httpAddr, mux))
}

// toolName is the name of the i-th tool: add, then add_001, add_002, …
func toolName(i int) string {
	if i == 0 {
		return "add"
	}
	return fmt.Sprintf("add_%03d", i)
}

// add answers as vox-mcp answers an int result: the number as text and
// {"result": n} as structured content (Out is any, so the SDK adds no
// output schema and keeps the result as given).
func add(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
	sum := in.A + in.B
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(sum)}},
		StructuredContent: map[string]any{"result": sum},
	}, nil, nil
}
