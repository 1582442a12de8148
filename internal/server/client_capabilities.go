package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// A workspace tool that may ask its client — its body, or a function it
// uses, calls elicit or sample (vox.Module.ClientCapabilities) — needs
// the client to have declared elicitation or sampling. Under protocol
// 2026-07-28 capabilities are declared on every request, in
// _meta["io.modelcontextprotocol/clientCapabilities"], and a server must
// not run a request that needs one the client left out: it answers
// MissingRequiredClientCapabilityError (-32021), whose data names the
// missing capabilities as a ClientCapabilities object, with HTTP 400
// (docs/federation.md §3). The client capability step of the checks on
// a call (call_checks.go, missingCapability) answers it before mcp-go
// runs the tool, so nothing of the tool runs. Earlier protocols declare
// capabilities once, at initialize, and have no such error: there the
// call runs and fails at its first question.

// checkClientCapability is the client capability step
// (client_capabilities.go): under 2026-07-28, a workspace tool that asks
// its client is answered -32021 unless the request declares what it
// needs.
func (s *Server) checkClientCapability(_ context.Context, c toolCall) *refusal {
	if !c.modern || c.params == nil {
		return nil
	}
	if e := s.workspace.missingCapability(c.name, c.params.Meta); e != nil {
		return &refusal{rpc: e}
	}
	return nil
}

// missingCapability is the -32021 error of a call of the workspace tool
// name whose request _meta does not declare the client capabilities the
// tool needs; nil when the call may go on.
func (w *workspaceSource) missingCapability(name string, meta map[string]any) *rpcError {
	if w == nil || name == "" {
		return nil
	}
	select {
	case <-w.ready:
	default:
		// Before the first scan the tool is not known yet: rather than
		// hold every call (catalog tools too) until it ends, the check is
		// left to the call, which fails at its first question.
		return nil
	}
	surface := w.surface.Load()
	t, found := surface.Tool(name)
	if !found {
		return nil
	}
	m, err := surface.ToolModule(t)
	if err != nil {
		return nil // the call fails with this error itself
	}
	declared, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	missing := map[string]struct{}{}
	var names []string
	for _, c := range m.ClientCapabilities(t.Name) {
		if v, ok := declared[c]; !ok || v == nil {
			missing[c] = struct{}{}
			names = append(names, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := fmt.Sprintf("tool %s asks the client (elicit, sample or roots) and needs the client capabilities %s, which the request's _meta %q does not declare: declare them, or call a tool that does not ask",
		t.Name, strings.Join(names, ", "), mcp.MetaKeyClientCapabilities)
	return &rpcError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, Message: msg,
		Data: map[string]any{"requiredCapabilities": missing}}
}

// isMissingCapability reports whether a reply is the -32021 error.
func isMissingCapability(reply []byte) bool {
	var m struct {
		Error *rpcError `json:"error"`
	}
	return unmarshal(reply, &m) == nil && m.Error != nil && m.Error.Code == mcp.MISSING_REQUIRED_CLIENT_CAPABILITY
}
