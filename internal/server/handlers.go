package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// HandlerTable builds the untyped handler table of the catalog's tools,
// keyed by MCP tool name, once the server's services exist. The binary
// passes the generated adapter of its typed handlers
// (catalog.Bind(handlers.New(svc))); the server knows no tool.
type HandlerTable func(svc *Services) map[string]toolcall.Handler

// bindCatalog projects every MCP row of the catalog into a tool bound to
// its handler. A handler without a row is a wiring error of the binary; a
// row without a handler (a row listed in exemptions.mcp_tools, or a
// catalog served without handlers) answers every call with an error
// result.
func (s *Server) bindCatalog(cat *registry.Catalog, table map[string]toolcall.Handler) ([]toolEntry, error) {
	var out []toolEntry
	rows := map[string]bool{}
	for _, op := range cat.MCPTools() {
		rows[op.MCP.Name] = true
		out = append(out, toolEntry{
			tool:    catalogTool(op),
			source:  registry.SourceCatalog,
			handler: catalogHandler(op, table[op.MCP.Name]),
			op:      op,
		})
	}
	for name := range table {
		if !rows[name] {
			return nil, fmt.Errorf("the handler table has a handler for %s, which the catalog has no row for: regenerate with go generate ./... and rebuild", name)
		}
	}
	return out, nil
}

// catalogHandler adapts a catalog tool's handler to mcp-go: the call
// context carries the request's context and the row; the result object,
// encoded once, is sent as structuredContent and as one text content
// holding the same bytes (docs/tool-results.md §1).
func catalogHandler(op *registry.Operation, h toolcall.Handler) mcpserver.ToolHandlerFunc {
	name := op.MCP.Name
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if h == nil {
			return errorResult(fmt.Sprintf("tool %s has no handler in this vox-mcp build; run vox ci operations-verify to find catalog rows without handlers", name)), nil
		}
		raw := req.Params.RawArguments
		if len(raw) == 0 && req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return errorResult("arguments must be a JSON object"), nil
			}
			raw = b
		}
		out, err := h(toolcall.New(ctx, op, &req), raw)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.NewTextContent(string(out))},
			StructuredContent: json.RawMessage(out),
		}, nil
	}
}
