// Command floor is the floor of the peer benchmark (docs/benchmarks.md): a
// bare mcp-go server — the same mcp-go as vox-mcp, nothing else — with a
// native add(a, b) handler, over stdio or, with -http, streamable HTTP at
// /mcp. With -tools N it serves N copies of add (add, add_001, …), so
// tools/list carries N tools.
//
// It is kept as bare as the library allows on purpose: its figures are
// what any Go server on mcp-go pays at least, and vox-mcp's are divided by
// them.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// addSchema is the input schema vox-mcp derives from
// `fn add(a: int, b: int) to int`, byte for byte, so the servers differ
// only in what they do, not in what they describe.
const addSchema = `{"additionalProperties":false,"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}`

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on `ADDR` (endpoint /mcp) instead of stdio")
	tools := flag.Int("tools", 1, "serve `N` add tools")
	flag.Parse()

	s := server.NewMCPServer("floor", "1", server.WithToolCapabilities(true))
	for i := range *tools {
		s.AddTool(mcp.NewToolWithRawSchema(toolName(i), "Add two integers", json.RawMessage(addSchema)), add)
	}
	var err error
	if *httpAddr != "" {
		err = server.NewStreamableHTTPServer(s).Start(*httpAddr)
	} else {
		err = server.ServeStdio(s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// toolName is the name of the i-th tool: add, then add_001, add_002, …
func toolName(i int) string {
	if i == 0 {
		return "add"
	}
	return fmt.Sprintf("add_%03d", i)
}

// add answers as vox-mcp answers an int result: the number as text and
// {"result": n} as structured content.
func add(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := req.RequireInt("a")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := req.RequireInt("b")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	sum := a + b
	return mcp.NewToolResultStructured(map[string]any{"result": sum}, strconv.Itoa(sum)), nil
}
