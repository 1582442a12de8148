package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The pre-dispatch shim (docs/federation.md §8, "The shim") sits in front
// of mcp-go on both transports and handles what mcp-go v1.2.1 cannot:
//
//   - methods mcp-go has no way to register (it answers -32601 and no hook
//     sees them): the skills extension's skills/list and skills/get
//     (shim_skills.go), served here with the session already verified and
//     the read role applied from the method table below;
//   - tools/call with "arguments": null, which it passes to the tool as
//     null instead of {};
//   - requests that make the server keep what the client sent, whose
//     values over their bounds it answers with -32602 (kept_state.go);
//   - the durable tasks of protocol 2025-11-25: a tools/call with
//     params.task, and tasks/get, tasks/list, tasks/cancel and
//     tasks/result, answered from the task store (tasks.go), and those of
//     2026-07-28's tasks extension (tasks_modern.go);
//   - JSON-RPC batches, which it answers with a parse error: for a session
//     that negotiated 2025-03-26 (the only version with batches) the shim
//     splits a batch, dispatches each message, and answers as an array;
//     later versions get the error the specification asks for.

// shimMethod is a method the shim serves itself.
type shimMethod struct {
	// readRole says whether the HTTP read role may call it
	// (docs/security.md, "The HTTP plane").
	readRole bool
	serve    func(s *Server, params json.RawMessage) (any, *rpcError)
}

// shimMethods are the methods the shim answers instead of mcp-go.
var shimMethods = map[string]shimMethod{
	methodSkillsList: {readRole: true, serve: (*Server).skillsList},
	methodSkillsGet:  {readRole: true, serve: (*Server).skillsGet},
}

// preDispatch looks at one message before mcp-go. A method the shim serves
// is answered here (answered; reply is nil for a notification); anything
// else is passed on as pass, rewritten where mcp-go would misread it. A
// message that does not decode is passed on unchanged, for mcp-go's error.
// modern marks a request of protocol 2026-07-28, whose results carry the
// fields that era requires.
func (s *Server) preDispatch(ctx context.Context, raw []byte, modern bool) (pass, reply []byte, answered bool) {
	_, pass, reply, answered = s.preDispatchCtx(ctx, raw, modern)
	return pass, reply, answered
}

// preDispatchCtx is preDispatch returning the context mcp-go is to serve
// the message in: for a tools/call it carries the verdict of the checks
// on the call (call_checks.go).
func (s *Server) preDispatchCtx(ctx context.Context, raw []byte, modern bool) (_ context.Context, pass, reply []byte, answered bool) {
	m, ok := decodeHead(raw)
	if !ok {
		return ctx, raw, nil, false
	}
	return s.preDispatchHead(ctx, raw, &m, modern)
}

// preDispatchHead is preDispatchCtx for a message whose head m is decoded
// already (nil: it does not decode).
func (s *Server) preDispatchHead(ctx context.Context, raw []byte, head *rpcMessage, modern bool) (_ context.Context, pass, reply []byte, answered bool) {
	if head == nil {
		return ctx, raw, nil, false
	}
	if s.opts.Metrics == nil && s.opts.Tracing == nil {
		return s.dispatchHead(ctx, raw, head, modern)
	}
	// A request answered here is timed and traced here: mcp-go's hooks
	// and tracing never see it (metrics.go, tracing.go).
	start := time.Now()
	ctx, pass, reply, answered = s.dispatchHead(ctx, raw, head, modern)
	if answered && len(head.ID) > 0 {
		s.shimAnswered(head.Method, start, reply)
		s.shimSpan(ctx, head, headerFrom(ctx), start, reply)
	}
	return ctx, pass, reply, answered
}

// dispatchHead is preDispatchHead for a decoded head.
func (s *Server) dispatchHead(ctx context.Context, raw []byte, head *rpcMessage, modern bool) (_ context.Context, pass, reply []byte, answered bool) {
	m := *head
	if serve, ok := taskMethods[m.Method]; ok || (modern && modernTaskMethods[m.Method] != nil) {
		switch {
		case len(m.ID) == 0:
			return ctx, nil, nil, true // a notification of a request method: nothing to answer
		case modern && modernTaskMethods[m.Method] == nil:
			// Not mcp-go's map either (tasks.go).
			return ctx, nil, errorReply(m.ID, mcp.METHOD_NOT_FOUND, m.Method+" is a method of protocol 2025-11-25's tasks, which 2026-07-28's tasks extension does not have: poll with tasks/get, whose answer holds the result"), true
		case modern:
			return ctx, nil, s.tasks.serveModernTask(ctx, m.Method, m.ID, m.Params), true
		}
		return ctx, nil, serve(s.tasks, ctx, m.ID, m.Params), true
	}
	if sm, ok := shimMethods[m.Method]; ok && s.skills != nil {
		if len(m.ID) == 0 {
			return ctx, nil, nil, true // a notification of a request method: nothing to answer
		}
		if !sm.readRole && roleFrom(ctx) == roleRead {
			return ctx, nil, errorReply(m.ID, mcp.INVALID_REQUEST, fmt.Sprintf("read role may not call %s: use a full-access token", m.Method)), true
		}
		result, e := sm.serve(s, m.Params)
		if e == nil && modern {
			result = modernResult(result)
		}
		return ctx, nil, rpcReply(m.ID, result, e), true
	}
	if reply, answered := s.keptStateReply(ctx, raw, &m, modern); answered {
		return ctx, nil, reply, true
	}
	if m.Method == string(mcp.MethodToolsCall) {
		if reply, answered := s.tasks.taskCall(ctx, &raw, &m, modern); answered {
			return ctx, nil, reply, true
		}
		if modern && len(m.ID) > 0 {
			// The checks on a 2026-07-28 call, on its params decoded
			// once (call_checks.go); any other call is checked by the
			// middleware on mcp-go's decode.
			cctx, pass, reply, ok := s.shimCall(ctx, raw, &m, modern)
			if reply != nil {
				return cctx, nil, reply, true
			}
			if ok {
				// A call of a client that declares the tasks extension
				// may become a task (tasks_modern.go).
				if cc, _ := checkedCallFrom(cctx); cc != nil {
					if reply, answered := s.tasks.modernTaskCall(cctx, pass, &m, cc.call.params); answered {
						return ctx, nil, reply, true
					}
				}
				return cctx, pass, nil, false
			}
		}
		return ctx, nullArgumentsAsEmpty(raw, m.Params), nil, false
	}
	if m.Method == string(mcp.MethodResourcesRead) && len(m.ID) > 0 {
		if reply, ok := s.unknownResource(ctx, m.ID, m.Params, modern); ok {
			return ctx, nil, reply, true
		}
	}
	return ctx, raw, nil, false
}

// modernResult adds what protocol 2026-07-28 requires of a result: its
// type, and cache hints (none: private, not to be reused).
func modernResult(result any) any {
	b, err := json.Marshal(result)
	if err != nil {
		return result
	}
	var fields map[string]any
	if unmarshal(b, &fields) != nil {
		return result
	}
	fields["resultType"] = mcp.ResultTypeComplete
	fields["ttlMs"] = 0
	fields["cacheScope"] = mcp.CacheScopePrivate
	return fields
}

// nullArgumentsAsEmpty rewrites a tools/call whose params hold
// "arguments": null to carry {} instead, as a missing arguments member
// means; any other message is returned as it is.
func nullArgumentsAsEmpty(raw, params json.RawMessage) []byte {
	var p map[string]json.RawMessage
	if !bytes.Contains(params, []byte("null")) || unmarshal(params, &p) != nil {
		return raw
	}
	args, ok := p["arguments"]
	if !ok || !bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		return raw
	}
	p["arguments"] = json.RawMessage("{}")
	var msg map[string]json.RawMessage
	if unmarshal(raw, &msg) != nil {
		return raw
	}
	var err error
	if msg["params"], err = json.Marshal(p); err != nil {
		return raw
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return raw
	}
	return out
}
