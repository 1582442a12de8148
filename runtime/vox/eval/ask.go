package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/vox/ask"
	"github.com/vox-lang/vox-mcp/runtime/vox/content"
)

// Asking the client mid-call (docs/vox-language.md, Asking the user and
// the model): elicit() sends elicitation/create and sample() sends
// sampling/createMessage to the client that made the call, and wait for
// its answer. The wait is not the call's: steps are not counted and the
// timeout's deadline moves by the time waited, but each wait has its own
// bound (Options.Wait, the wait_ms limit) and the call's cancellation
// ends it.

// Client reaches the MCP client that made a call. Ask sends the request
// method with its params (JSON) and returns the client's result (JSON);
// key, when not "", names the request where the protocol keys requests
// (the inputRequests of protocol 2026-07-28);
// it returns when ctx is done. An error that the caller must see as it
// is (the server's request for input under protocol 2026-07-28) is kept
// as the Cause of the call's error.
type Client interface {
	Ask(ctx context.Context, method, key string, params []byte) ([]byte, error)
}

// DefaultWait bounds one wait for the client's answer when Options.Wait
// is 0: a human may take minutes, but not forever.
const DefaultWait = 10 * time.Minute

// maxAsks bounds the questions of one call, so that a loop cannot ask
// the user without end.
const maxAsks = 64

// Suspend marks an error of Client.Ask that ends the call without being
// a failure of the tool: the server asks the client for input and will
// run the call again with the answer (protocol 2026-07-28).
type Suspend interface {
	error
	Suspends()
}

func biElicit(th *Thread, args []Value) Value {
	if args[0].k != KStr {
		th.Failf("elicit: message must be a str, got %s", args[0].typeName())
	}
	if args[1].k != KObject {
		th.Failf("elicit: schema must be a map {\"type\": \"object\", \"properties\": {...}}, got %s", args[1].typeName())
	}
	schemaJSON := th.EncodeJSON(args[1])
	schema, err := ask.CheckSchema([]byte(schemaJSON))
	if err != nil {
		th.Failf("elicit: %v", err)
	}
	p := &Object{}
	p.Set("message", args[0])
	p.Set("requestedSchema", args[1])
	raw := th.ask("elicit", ask.MethodElicit, th.askKey("elicit", args, 2), NewObject(p))
	action, answer, err := ask.CheckAnswer(schema, raw)
	if err != nil {
		th.Failf("elicit: %v", err)
	}
	r := &Object{}
	r.Set("action", Str(action))
	r.Set("content", th.answerValue("elicit", answer))
	return NewObject(r)
}

func biSample(th *Thread, args []Value) Value {
	var msgs []Value
	switch args[0].k {
	case KStr:
		msgs = []Value{th.sampleMessage(0, args[0])}
	case KList, KTuple:
		var elems []Value
		if args[0].k == KList {
			elems = args[0].List().elems
		} else {
			elems = args[0].Tuple()
		}
		if len(elems) == 0 {
			th.Failf("sample: messages is empty: want at least one message")
		}
		msgs = make([]Value, len(elems))
		for i, e := range elems {
			msgs[i] = th.sampleMessage(i, e)
		}
	default:
		th.Failf("sample: messages must be a str or a list of messages, got %s", args[0].typeName())
	}
	if args[1].k != KInt || args[1].Int() <= 0 {
		th.Failf("sample: max_tokens must be an int of at least 1, got %s", th.display(args[1]))
	}
	p := &Object{}
	p.Set("messages", NewList(msgs))
	p.Set("maxTokens", args[1])
	if len(args) > 2 {
		if args[2].k != KStr {
			th.Failf("sample: system must be a str, got %s", args[2].typeName())
		}
		if args[2].Str() != "" {
			p.Set("systemPrompt", args[2])
		}
	}
	reply, err := ask.CheckReply(th.ask("sample", ask.MethodSample, th.askKey("sample", args, 3), NewObject(p)))
	if err != nil {
		th.Failf("sample: %v", err)
	}
	r := &Object{}
	r.Set("role", Str(reply.Role))
	r.Set("content", th.answerValue("sample", reply.Content))
	r.Set("text", Str(reply.Text))
	r.Set("model", Str(reply.Model))
	r.Set("stop_reason", Str(reply.StopReason))
	return NewObject(r)
}

func biRoots(th *Thread, args []Value) Value {
	roots, err := ask.CheckRoots(th.ask("roots", ask.MethodRoots, th.askKey("roots", args, 0), NewObject(&Object{})))
	if err != nil {
		th.Failf("roots: %v", err)
	}
	out := make([]Value, len(roots))
	var size int64
	for i, r := range roots {
		o := &Object{}
		o.Set("uri", Str(r.URI))
		o.Set("name", Str(r.Name))
		out[i] = NewObject(o)
		size += 16 + int64(len(r.URI)+len(r.Name))
	}
	th.checkSize(size)
	return NewList(out)
}

// sampleMessage reads message i of sample(): a str is the user's text; a
// map is {role: "user" | "assistant", content: str or a content block of
// text, image or audio}.
func (th *Thread) sampleMessage(i int, v Value) Value {
	role, body := Str("user"), v
	if v.k == KObject {
		o := v.Object()
		r, ok := o.Get("role")
		if !ok || r.k != KStr || r.Str() != "user" && r.Str() != "assistant" {
			th.Failf("sample: message %d needs a role \"user\" or \"assistant\", got %s", i, th.display(r))
		}
		c, ok := o.Get("content")
		if !ok {
			th.Failf("sample: message %d needs a content: a str or content.text, content.image or content.audio", i)
		}
		role, body = r, c
	}
	var block Value
	switch body.k {
	case KStr:
		block = ContentValue(&content.Block{Type: content.Text, Text: body.Str()})
	case KObject:
		b := th.contentBlock(th.callPos, fmt.Sprintf("sample: message %d's content", i), body)
		if b.Type != content.Text && b.Type != content.Image && b.Type != content.Audio {
			th.Failf("sample: message %d's content is %s: a message carries text, an image or audio", i, b.Type)
		}
		block = body
	default:
		th.Failf("sample: message %d must be a str or a map {role, content}, got %s", i, body.typeName())
	}
	m := &Object{}
	m.Set("role", role)
	m.Set("content", block)
	return NewObject(m)
}

// ask sends one request to the client and waits for its answer, with the
// call's limits paused and the wait bounded (see Client).
func (th *Thread) ask(fn, method, key string, params Value) []byte {
	c := th.opts.Client
	if c == nil {
		th.Failf("%s: there is no MCP client to ask: only a tool or prompt called through vox-mcp by a client can ask (not vox run or a resource)", fn)
	}
	if th.asks >= maxAsks {
		th.Failf("%s: a call may ask its client at most %d times", fn, maxAsks)
	}
	th.asks++
	body := th.EncodeJSON(params)
	wait := th.opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	ctx, cancel := context.WithTimeout(th.ctx, wait)
	start := time.Now()
	raw, err := c.Ask(ctx, method, key, []byte(body))
	timedOut := ctx.Err() == context.DeadlineExceeded
	cancel()
	// The wait is not the call's time: its deadline moves by as much.
	if d := th.opts.Deadline; !d.IsZero() {
		th.opts.Deadline = d.Add(time.Since(start))
	}
	if err != nil {
		var s Suspend
		var e *Error
		switch {
		case errors.As(err, &e):
			panic(e)
		case errors.As(err, &s):
			panic(&Error{Kind: RuntimeError, Message: s.Error(), Cause: s})
		case th.ctx.Err() != nil:
			th.canceled()
		case timedOut:
			th.limit(LimitWait, wait.Milliseconds())
		}
		th.Failf("%s: %v", fn, err)
	}
	if max := th.opts.MaxValueBytes; max > 0 && int64(len(raw)) > max {
		th.limit(LimitValueSize, max)
	}
	th.allocate(int64(len(raw)))
	return raw
}

// askKey is the optional key argument i of elicit or sample.
func (th *Thread) askKey(fn string, args []Value, i int) string {
	if len(args) <= i {
		return ""
	}
	if args[i].k != KStr {
		th.Failf("%s: key must be a str, got %s", fn, args[i].typeName())
	}
	return args[i].Str()
}

// answerValue decodes JSON from the client into a Vox value, within the
// value-size limit.
func (th *Thread) answerValue(fn string, data []byte) Value {
	v, err := th.ParseJSON(string(data))
	if err != nil {
		th.Failf("%s: the client's answer cannot be read: %v", fn, err)
	}
	return v
}
