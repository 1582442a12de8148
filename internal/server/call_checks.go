package server

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/audit"
)

// The checks on one tools/call (docs/architecture.md §4, item 4) are one
// ordered list, callSteps, run once per call by checkCall:
//
//  1. role: the HTTP read role calls only catalog tools whose row allows
//     it (auth.go);
//  2. client capability: under protocol 2026-07-28 a workspace tool that
//     asks its client needs the capabilities the request declares
//     (client_capabilities.go);
//  3. input state: under 2026-07-28 a retry's requestState must be one
//     this server signed for that tool and those arguments
//     (input_state.go);
//  4. allowlist: the active skill's allowlist (skills.go);
//  5. requirements: a catalog tool's mcp.requires (middleware.go).
//
// The list runs once per call, where the call's params are first
// decoded. A call of protocol 2026-07-28 over HTTP is decoded by the shim
// (decodeCallParams: its _meta declares the client's capabilities and
// names its active skill, and two steps answer with a JSON-RPC error),
// which hands the verdict to mcp-go in the request's context
// (withCheckedCall): a refusal the protocol answers with a JSON-RPC error
// (-32021, -32602) is answered there and nothing of the call runs; any
// other refusal is the error result the middleware returns in place of
// the handler. Every other call — a session's over HTTP, a batched one,
// stdio's, a program's calling MCP().HandleMessage — reaches mcp-go with
// its params not decoded (the shim reads its head only): the middleware
// runs the list on mcp-go's decoded request, where the two steps of
// 2026-07-28 have nothing to check.
//
// What the consent model withholds (docs/security.md, "Consent: a
// repository grants itself nothing") is no step here: a call without a
// power runs, and the capability it lacks (fs.write, env) fails inside
// it, as an error of the call the tool's code may handle.

// callStep is one named check of the list.
type callStep struct {
	name  string
	check func(s *Server, ctx context.Context, c toolCall) *refusal
}

// callSteps is the one ordered list of the checks on a tools/call.
var callSteps = []callStep{
	{name: "role", check: (*Server).checkReadRole},
	{name: "client capability", check: (*Server).checkClientCapability},
	{name: "input state", check: (*Server).checkInputState},
	{name: "allowlist", check: (*Server).checkSkillAllowlist},
	{name: "requirements", check: (*Server).checkRequirements},
}

// refusal is a step's verdict against a call: rpc, when set, is the
// JSON-RPC error that answers it (the protocol prescribes one); otherwise
// text is the error result returned in place of the call.
type refusal struct {
	step string
	rpc  *rpcError
	text string
}

// resultText is the text of the error result of r.
func (r *refusal) resultText() string {
	if r.rpc != nil {
		return r.rpc.Message
	}
	return r.text
}

// toolCall is what the steps read of one call.
type toolCall struct {
	name  string
	entry *toolEntry
	// params are the call's params as the shim decoded them once (nil
	// when the middleware runs the list on mcp-go's decode).
	params *callParams
	// modern: the request is of protocol 2026-07-28.
	modern bool
}

// callParams are the params of a tools/call as decodeCallParams reads
// them: the fields mcp-go decodes with the same types (a call whose
// params do not decode into them is one mcp-go refuses too). _meta is a
// map with exact keys, as mcp-go's mcp.Meta is.
type callParams struct {
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	RequestState string          `json:"requestState"`
	Meta         map[string]any  `json:"_meta"`
}

// decodeHook, when set (by tests), is told of every decode of a message
// or a part of it in this package: "head" (decodeHead), "call"
// (decodeCallParams) or "json" (unmarshal, every other), and the bytes
// decoded.
// Atomic: a test sets it while servers of earlier tests may still read.
var decodeHook atomic.Pointer[func(what string, data []byte)]

// unmarshal is json.Unmarshal for the decodes of messages and their parts
// in this package, so that decodeHook sees each.
func unmarshal(data []byte, v any) error {
	if hook := decodeHook.Load(); hook != nil {
		(*hook)("json", data)
	}
	return json.Unmarshal(data, v)
}

// decodeCallParams decodes the params of a tools/call: the one decode of
// them before mcp-go's.
func decodeCallParams(params json.RawMessage) (*callParams, bool) {
	if hook := decodeHook.Load(); hook != nil {
		(*hook)("call", params)
	}
	p := new(callParams)
	if len(params) > 0 && json.Unmarshal(params, p) != nil {
		return nil, false
	}
	return p, true
}

// protocolVersion is the protocol version the call's _meta names, as
// mcp.Meta.ProtocolVersion reads it.
func (p *callParams) protocolVersion() string {
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}

// checkCall runs callSteps in order and returns the first refusal (nil:
// the call may run). The call is passed by value, so that running the
// list allocates nothing for a call it lets through.
func (s *Server) checkCall(ctx context.Context, c toolCall) *refusal {
	for _, step := range callSteps {
		if r := step.check(s, ctx, c); r != nil {
			r.step = step.name
			return r
		}
	}
	return nil
}

// checkedCall is the verdict of the list on a call the shim decoded,
// handed to mcp-go's hooks and the middleware in the request's context.
type checkedCall struct {
	call *toolCall
	// pass is the message as passed to mcp-go: a hook applies the
	// verdict only to these bytes.
	pass    []byte
	refusal *refusal
}

type checkedCallKey struct{}

func withCheckedCall(ctx context.Context, cc *checkedCall) context.Context {
	return context.WithValue(ctx, checkedCallKey{}, cc)
}

// checkedCallFrom is the verdict on the call behind ctx, if the shim
// decided it.
func checkedCallFrom(ctx context.Context) (*checkedCall, bool) {
	cc, ok := ctx.Value(checkedCallKey{}).(*checkedCall)
	return cc, ok
}

// checkedMessage is the verdict of ctx when it is about exactly raw.
func checkedMessage(ctx context.Context, raw []byte) (*checkedCall, bool) {
	cc, ok := checkedCallFrom(ctx)
	if !ok || !bytes.Equal(cc.pass, raw) {
		return nil, false
	}
	return cc, true
}

// shimCall decodes a tools/call request of protocol 2026-07-28 once and
// runs the list on it:
// ctx then carries the verdict for mcp-go (and, under 2026-07-28, the
// active skill the request names), and reply is set when the call is
// answered here with a JSON-RPC error. ok is false when the params do
// not decode: mcp-go refuses the call, or the middleware checks it.
func (s *Server) shimCall(ctx context.Context, raw []byte, m *rpcMessage, modern bool) (_ context.Context, pass, reply []byte, ok bool) {
	p, ok := m.call, m.call != nil
	if !ok {
		if p, ok = decodeCallParams(m.Params); !ok {
			return ctx, raw, nil, false
		}
	}
	if modern {
		ctx = s.withRequestSkillMeta(ctx, p.Meta)
	}
	c := &toolCall{name: p.Name, params: p, modern: modern}
	c.entry, _ = s.currentTools().lookup(p.Name)
	r := s.checkCall(ctx, *c)
	if r != nil && r.rpc != nil {
		if s.audit.on() {
			s.audit.write(ctx, time.Now(), audit.ActionToolCall, c.name, p.Arguments, audit.OutcomeRefused, refusalReason(r))
		}
		return ctx, nil, rpcReply(m.ID, nil, r.rpc), true
	}
	pass = raw
	if bytes.Equal(bytes.TrimSpace(p.Arguments), []byte("null")) {
		pass = nullArgumentsAsEmpty(raw, m.Params)
	}
	return withCheckedCall(ctx, &checkedCall{call: c, pass: pass, refusal: r}), pass, nil, true
}
