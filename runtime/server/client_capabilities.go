package server

import (
	"context"
	"encoding/json"
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
// (docs/federation.md §3). The shim answers it before mcp-go runs the
// tool, so nothing of the tool runs. Earlier protocols declare
// capabilities once, at initialize, and have no such error: there the
// call runs and fails at its first question.

// missingCapabilityReply answers a tools/call of protocol 2026-07-28 for a
// workspace tool needing a client capability the request does not
// declare; ok is false when the call may go on.
func (s *Server) missingCapabilityReply(ctx context.Context, id, params json.RawMessage) (reply []byte, ok bool) {
	if s.workspace == nil || roleFrom(ctx) == roleRead {
		return nil, false // the read role is refused workspace tools anyway
	}
	select {
	case <-s.workspace.ready:
	default:
		// Before the first scan the tool is not known yet: rather than
		// hold every call (catalog tools too) until it ends, the check is
		// left to the call, which fails at its first question.
		return nil, false
	}
	var p struct {
		Name string `json:"name"`
		Meta struct {
			Capabilities map[string]json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == "" {
		return nil, false
	}
	surface := s.workspace.surface.Load()
	t, found := surface.Tool(p.Name)
	if !found {
		return nil, false
	}
	m, err := surface.ToolModule(t)
	if err != nil {
		return nil, false // the call fails with this error itself
	}
	missing := map[string]struct{}{}
	var names []string
	for _, c := range m.ClientCapabilities(t.Name) {
		if v, declared := p.Meta.Capabilities[c]; !declared || string(v) == "null" {
			missing[c] = struct{}{}
			names = append(names, c)
		}
	}
	if len(missing) == 0 {
		return nil, false
	}
	msg := fmt.Sprintf("tool %s asks the client (elicit, sample or roots) and needs the client capabilities %s, which the request's _meta %q does not declare: declare them, or call a tool that does not ask",
		t.Name, strings.Join(names, ", "), mcp.MetaKeyClientCapabilities)
	return rpcReply(id, nil, &rpcError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, Message: msg,
		Data: map[string]any{"requiredCapabilities": missing}}), true
}

// isMissingCapability reports whether a reply is the -32021 error.
func isMissingCapability(reply []byte) bool {
	var m struct {
		Error *rpcError `json:"error"`
	}
	return json.Unmarshal(reply, &m) == nil && m.Error != nil && m.Error.Code == mcp.MISSING_REQUIRED_CLIENT_CAPABILITY
}
