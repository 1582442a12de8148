package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// middleware is the one tool middleware of the server, applied by mcp-go
// to every tool: it recovers panics into error results, applies the
// verdict of the checks on the call (call_checks.go: the shim's, or runs
// them itself when the call did not pass the shim) and turns handler
// errors into error results, so no tool failure ever becomes JSON-RPC
// -32603 or stops the server.
func (s *Server) middleware(next mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		name := req.Params.Name
		// The audit line is written last, once the recovery below has
		// made the result (audit.go).
		var denied *refusal
		panicked := false
		if s.audit.on() {
			start := time.Now()
			defer func() { s.audit.toolCall(ctx, req, start, res, denied, panicked) }()
		}
		defer func() {
			if r := recover(); r != nil {
				panicked = true
				s.log.Error("tool panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = errorResult(fmt.Sprintf("internal error in tool %s: %v; the server keeps running, please report this", name, r)), nil
			}
		}()
		if cc, ok := checkedCallFrom(ctx); ok && cc.call.name == name {
			denied = cc.refusal
		} else {
			c := toolCall{name: name}
			c.entry, _ = s.currentTools().lookup(name)
			denied = s.checkCall(ctx, c)
		}
		if denied != nil {
			return errorResult(denied.resultText()), nil
		}
		// The call talks back to its own session only (logging.go).
		ctx = toolcall.WithClient(ctx, s.clientOf(ctx, req.Params.Meta))
		res, err = next(ctx, req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		if res == nil {
			return errorResult(fmt.Sprintf("tool %s returned no result", name)), nil
		}
		return res, nil
	}
}

// errorResult is a tool error: isError with one text content.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(text)}}
}

// checkRequirements is the requirements step (call_checks.go): a catalog tool whose
// mcp.requires are not met is refused (docs/contracts.md §1, the MCP
// projection).
func (s *Server) checkRequirements(_ context.Context, c toolCall) *refusal {
	if c.entry == nil || c.entry.op == nil {
		return nil
	}
	for _, r := range c.entry.op.MCP.Requires {
		met := s.requirements[r]
		if met == nil {
			return &refusal{text: fmt.Sprintf("requirement %s not met: this server does not provide it; use a vox-mcp build that supports %s", r, r)}
		}
		if ok, why := met(); !ok {
			return &refusal{text: fmt.Sprintf("requirement %s not met: %s", r, why)}
		}
	}
	return nil
}

// defaultRequirements evaluates the requirements this package knows;
// the skills integration adds "skills" and "sandbox".
func (s *Server) defaultRequirements() map[string]func() (bool, string) {
	return map[string]func() (bool, string){
		registry.RequireWorkspace: func() (bool, string) {
			f, err := os.Open(s.root)
			if err == nil {
				_, err = f.ReadDir(1)
				f.Close()
			}
			if err != nil && !errors.Is(err, io.EOF) { // an empty directory is readable
				return false, fmt.Sprintf("the workspace root %s is not a readable directory (%v); start vox-mcp in the repository or pass --root DIR", s.root, err)
			}
			return true, ""
		},
		registry.RequireProcess: func() (bool, string) {
			info, err := os.Stat("/bin/sh")
			if err != nil || info.Mode()&0o111 == 0 {
				return false, "/bin/sh is not executable on this host; install a POSIX shell"
			}
			return true, ""
		},
		registry.RequireNetwork: func() (bool, string) {
			if !s.opts.AllowNetwork {
				return false, "network access is off; start vox-mcp with VOX_MCP_ALLOW_NETWORK=1 to allow it"
			}
			return true, ""
		},
	}
}
