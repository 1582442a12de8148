// Package toolcall is the runtime half of the typed handler contract that
// the generator emits for catalog tools (docs/contracts.md §5, modelled on
// gqlgen's generated ResolverRoot): the per-call context every handler
// receives, the untyped Handler the server dispatches to, and the helpers
// the generated argument decoders and result encoders call.
//
// The generated code (generated/catalog) imports this package; this
// package imports neither the generator nor generated code.
package toolcall

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// A Handler answers one call of a catalog tool: it decodes and checks the
// raw arguments (a JSON object, or empty), runs the tool and returns the
// result object as compact JSON. An error's text becomes the error result.
// The generated catalog.Bind adapts the typed Handlers interface to it;
// the server dispatches to it without knowing any tool.
type Handler func(c *Call, arguments json.RawMessage) (result []byte, err error)

// Call is what a handler knows about the call it serves besides its
// arguments: the request's context, the catalog row of the tool (with its
// fields, such as mcp.allowlist_exempt), and the ways to talk back to the
// calling session while the call runs.
//
// Elicitation (asking the user a question mid-call, MCP's
// elicitation/create) will be a method of Call once the server supports
// it; handlers written against Call then get it without a signature
// change.
type Call struct {
	ctx context.Context
	row *registry.Operation
}

// New is the server's constructor of a call's context: ctx is the
// request's (with the Client the server put in it), row the tool's
// catalog row, and req the request, whose _meta may carry a progress
// token.
func New(ctx context.Context, row *registry.Operation, req *mcp.CallToolRequest) *Call {
	if req != nil && req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		c, _ := ClientFrom(ctx)
		c.ProgressToken = req.Params.Meta.ProgressToken
		ctx = WithClient(ctx, c)
	}
	return &Call{ctx: ctx, row: row}
}

// Context is the request's context: it is cancelled when the client
// cancels the call or the session ends.
func (c *Call) Context() context.Context { return c.ctx }

// Row is the catalog row of the tool being called.
func (c *Call) Row() *registry.Operation { return c.row }

// Tool is the MCP name of the tool being called ("" without a row).
func (c *Call) Tool() string {
	if c.row == nil || c.row.MCP == nil {
		return ""
	}
	return c.row.MCP.Name
}

// AllowlistExempt reports whether the tool's row keeps it callable while
// an active skill's allowlist does not name it (mcp.allowlist_exempt).
func (c *Call) AllowlistExempt() bool {
	return c.row != nil && c.row.MCP != nil && c.row.MCP.AllowlistExempt
}

// Progress sends notifications/progress to the calling session when the
// client asked for progress (a progressToken in the request's _meta); it
// does nothing otherwise. progress should grow with every call; total is
// 0 when unknown. Errors (a session gone, a blocked channel) are returned
// for callers that care; a handler may ignore them.
func (c *Call) Progress(progress, total float64, message string) error {
	return SendProgress(c.ctx, progress, total, message)
}

// Log sends notifications/message to the calling session, with the tool's
// name as the logger, when the session asked for messages of that level
// (logging/setLevel, or the request's log level under protocol
// 2026-07-28; see Client); it does nothing otherwise.
func (c *Call) Log(level mcp.LoggingLevel, data any) error {
	return SendLog(c.ctx, level, c.Tool(), data)
}

// Serve adapts one typed handler method to a Handler: decode checks the
// raw arguments (the generated decoder), method runs the tool, and the
// result — a generated type that writes itself — is encoded once. The
// generated catalog.Bind calls it once per tool.
func Serve[A any, R any, PR interface {
	*R
	EncodeJSON(*Encoder)
}](tool string, decode func(json.RawMessage) (A, error), method func(*Call, A) (*R, error)) Handler {
	return func(c *Call, raw json.RawMessage) ([]byte, error) {
		args, err := decode(raw)
		if err != nil {
			return nil, err
		}
		res, err := method(c, args)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, fmt.Errorf("tool %s returned no result", tool)
		}
		var e Encoder
		PR(res).EncodeJSON(&e)
		return e.Bytes()
	}
}
