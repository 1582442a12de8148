package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/ask"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
)

// Asking the client mid-call (docs/vox-language.md, Asking the user and
// the model): elicit() sends elicitation/create and sample() sends
// sampling/createMessage to the client that made the call, and wait for
// its answer. The wait is not the call's: steps are not counted and the
// timeout's deadline moves by the time waited, but each wait has its own
// bound (Options.Wait, the wait_ms limit) and the call's cancellation
// ends it.

// Client reaches the MCP client that made a call. Ask sends the requests
// (each a method with its params as JSON, and a key that names it where
// the protocol keys requests: the inputRequests of protocol 2026-07-28;
// "" for the server's own) and returns the client's results (JSON) in
// their order;
// it returns when ctx is done. An error that the caller must see as it
// is (the server's request for input under protocol 2026-07-28) is kept
// as the Cause of the call's error.
type Client interface {
	Ask(ctx context.Context, reqs []ask.Request) ([][]byte, error)
	// Declared reports whether the client declared the capability
	// (elicitation, sampling, roots) for this call.
	Declared(ctx context.Context, capability string) bool
	// CloseStream ends the event stream that answers the call's request
	// while the call goes on (SSE polling): the client resumes it and
	// receives the rest there. It reports whether it did.
	CloseStream(ctx context.Context) bool
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

// question is one request to the client and how its answer becomes the
// Vox value the asking builtin returns.
type question struct {
	req    ask.Request
	answer func(raw []byte) Value
}

func biElicit(th *Thread, args []Value) Value {
	q := th.elicitQuestion("elicit", args[0], args[1], th.askKey("elicit", args, 2))
	return q.answer(th.ask("elicit", q)[0])
}

func biSample(th *Thread, args []Value) Value {
	system := Str("")
	if len(args) > 2 {
		system = args[2]
	}
	q := th.sampleQuestion("sample", args[0], args[1], system, th.askKey("sample", args, 3))
	return q.answer(th.ask("sample", q)[0])
}

func biRoots(th *Thread, args []Value) Value {
	q := th.rootsQuestion("roots", th.askKey("roots", args, 0))
	return q.answer(th.ask("roots", q)[0])
}

// askCapabilities are the client capabilities client_has knows.
var askCapabilities = []string{"elicitation", "sampling", "roots"}

func biClientHas(th *Thread, args []Value) Value {
	if args[0].k != KStr || !slices.Contains(askCapabilities, args[0].Str()) {
		th.Failf("client_has: capability must be one of %s, got %s", strings.Join(askCapabilities, ", "), th.display(args[0]))
	}
	c := th.opts.Client
	return Bool(c != nil && c.Declared(th.ctx, args[0].Str()))
}

func biCloseStream(th *Thread, _ []Value) Value {
	c := th.opts.Client
	return Bool(c != nil && c.CloseStream(th.ctx))
}

// biAskAll asks several questions at once: under protocol 2026-07-28 they
// go out in one input_required result, before it one after another.
func biAskAll(th *Thread, args []Value) Value {
	if args[0].k != KObject || args[0].Object().Len() == 0 {
		th.Failf("ask_all: requests must be a non-empty map of key to {elicit: message, schema: {...}}, {sample: messages, max_tokens: n} or {roots: true}, got %s", th.display(args[0]))
	}
	reqs := args[0].Object()
	keys := reqs.Keys()
	qs := make([]question, len(keys))
	for i, k := range keys {
		v, _ := reqs.Get(k)
		fn := fmt.Sprintf("ask_all: request %q", k)
		if v.k != KObject {
			th.Failf("%s must be a map {elicit: ...}, {sample: ...} or {roots: true}, got %s", fn, v.typeName())
		}
		o := v.Object()
		field := func(name string, need bool, dflt Value) Value {
			f, ok := o.Get(name)
			if !ok {
				if need {
					th.Failf("%s needs %s", fn, name)
				}
				return dflt
			}
			return f
		}
		_, isElicit := o.Get("elicit")
		_, isSample := o.Get("sample")
		_, isRoots := o.Get("roots")
		var allowed []string
		switch {
		case isElicit && !isSample && !isRoots:
			qs[i] = th.elicitQuestion(fn, field("elicit", true, Unit), field("schema", true, Unit), k)
			allowed = []string{"elicit", "schema"}
		case isSample && !isElicit && !isRoots:
			qs[i] = th.sampleQuestion(fn, field("sample", true, Unit), field("max_tokens", true, Unit), field("system", false, Str("")), k)
			allowed = []string{"sample", "max_tokens", "system"}
		case isRoots && !isElicit && !isSample:
			qs[i] = th.rootsQuestion(fn, k)
			allowed = []string{"roots"}
		default:
			th.Failf("%s must have exactly one of elicit, sample and roots", fn)
		}
		for _, name := range o.Keys() {
			if !slices.Contains(allowed, name) {
				th.Failf("%s: unknown member %s: want %s", fn, name, strings.Join(allowed, ", "))
			}
		}
	}
	raws := th.ask("ask_all", qs...)
	out := &Object{}
	for i, k := range keys {
		out.Set(k, qs[i].answer(raws[i]))
	}
	return NewObject(out)
}

// elicitQuestion is elicit(message, schema) under key; fn names the
// builtin in errors.
func (th *Thread) elicitQuestion(fn string, message, schemaVal Value, key string) question {
	if message.k != KStr {
		th.Failf("%s: message must be a str, got %s", fn, message.typeName())
	}
	if schemaVal.k != KObject {
		th.Failf("%s: schema must be a map {\"type\": \"object\", \"properties\": {...}}, got %s", fn, schemaVal.typeName())
	}
	schemaJSON := th.EncodeJSON(schemaVal)
	schema, err := ask.CheckSchema([]byte(schemaJSON))
	if err != nil {
		th.Failf("%s: %v", fn, err)
	}
	p := &Object{}
	p.Set("message", message)
	p.Set("requestedSchema", schemaVal)
	return question{req: ask.Request{Method: ask.MethodElicit, Key: key, Params: []byte(th.EncodeJSON(NewObject(p)))},
		answer: func(raw []byte) Value {
			action, answer, err := ask.CheckAnswer(schema, raw)
			if err != nil {
				th.Failf("%s: %v", fn, err)
			}
			r := &Object{}
			r.Set("action", Str(action))
			r.Set("content", th.answerValue(fn, answer))
			return NewObject(r)
		}}
}

// sampleQuestion is sample(messages, max_tokens, system) under key.
func (th *Thread) sampleQuestion(fn string, messages, maxTokens, system Value, key string) question {
	var msgs []Value
	switch messages.k {
	case KStr:
		msgs = []Value{th.sampleMessage(fn, 0, messages)}
	case KList, KTuple:
		var elems []Value
		if messages.k == KList {
			elems = messages.List().elems
		} else {
			elems = messages.Tuple()
		}
		if len(elems) == 0 {
			th.Failf("%s: messages is empty: want at least one message", fn)
		}
		msgs = make([]Value, len(elems))
		for i, e := range elems {
			msgs[i] = th.sampleMessage(fn, i, e)
		}
	default:
		th.Failf("%s: messages must be a str or a list of messages, got %s", fn, messages.typeName())
	}
	if maxTokens.k != KInt || maxTokens.Int() <= 0 {
		th.Failf("%s: max_tokens must be an int of at least 1, got %s", fn, th.display(maxTokens))
	}
	p := &Object{}
	p.Set("messages", NewList(msgs))
	p.Set("maxTokens", maxTokens)
	if system.k != KStr {
		th.Failf("%s: system must be a str, got %s", fn, system.typeName())
	}
	if system.Str() != "" {
		p.Set("systemPrompt", system)
	}
	return question{req: ask.Request{Method: ask.MethodSample, Key: key, Params: []byte(th.EncodeJSON(NewObject(p)))},
		answer: func(raw []byte) Value {
			reply, err := ask.CheckReply(raw)
			if err != nil {
				th.Failf("%s: %v", fn, err)
			}
			r := &Object{}
			r.Set("role", Str(reply.Role))
			r.Set("content", th.answerValue(fn, reply.Content))
			r.Set("text", Str(reply.Text))
			r.Set("model", Str(reply.Model))
			r.Set("stop_reason", Str(reply.StopReason))
			return NewObject(r)
		}}
}

// rootsQuestion is roots() under key.
func (th *Thread) rootsQuestion(fn, key string) question {
	return question{req: ask.Request{Method: ask.MethodRoots, Key: key, Params: []byte("{}")},
		answer: func(raw []byte) Value {
			roots, err := ask.CheckRoots(raw)
			if err != nil {
				th.Failf("%s: %v", fn, err)
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
		}}
}

// sampleMessage reads message i of sample(): a str is the user's text; a
// map is {role: "user" | "assistant", content: str or a content block of
// text, image or audio}.
func (th *Thread) sampleMessage(fn string, i int, v Value) Value {
	role, body := Str("user"), v
	if v.k == KObject {
		o := v.Object()
		r, ok := o.Get("role")
		if !ok || r.k != KStr || r.Str() != "user" && r.Str() != "assistant" {
			th.Failf("%s: message %d needs a role \"user\" or \"assistant\", got %s", fn, i, th.display(r))
		}
		c, ok := o.Get("content")
		if !ok {
			th.Failf("%s: message %d needs a content: a str or content.text, content.image or content.audio", fn, i)
		}
		role, body = r, c
	}
	var block Value
	switch body.k {
	case KStr:
		block = ContentValue(&content.Block{Type: content.Text, Text: body.Str()})
	case KObject:
		b := th.contentBlock(th.callPos, fmt.Sprintf("%s: message %d's content", fn, i), body)
		if b.Type != content.Text && b.Type != content.Image && b.Type != content.Audio {
			th.Failf("%s: message %d's content is %s: a message carries text, an image or audio", fn, i, b.Type)
		}
		block = body
	default:
		th.Failf("%s: message %d must be a str or a map {role, content}, got %s", fn, i, body.typeName())
	}
	m := &Object{}
	m.Set("role", role)
	m.Set("content", block)
	return NewObject(m)
}

// ask sends questions to the client and waits for their answers, in
// order, with the call's limits paused and the wait bounded (see Client).
func (th *Thread) ask(fn string, qs ...question) [][]byte {
	c := th.opts.Client
	if c == nil {
		th.Failf("%s: there is no MCP client to ask: only a tool or prompt called through vox-mcp by a client can ask (not vox run or a resource)", fn)
	}
	if th.asks+len(qs) > maxAsks {
		th.Failf("%s: a call may ask its client at most %d questions", fn, maxAsks)
	}
	th.asks += len(qs)
	reqs := make([]ask.Request, len(qs))
	for i, q := range qs {
		reqs[i] = q.req
	}
	wait := th.opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	ctx, cancel := context.WithTimeout(th.ctx, wait)
	start := time.Now()
	raws, err := c.Ask(ctx, reqs)
	timedOut := ctx.Err() == context.DeadlineExceeded
	cancel()
	// The wait is not the call's time: its deadline moves by as much.
	if d := th.opts.Deadline; !d.IsZero() {
		th.opts.Deadline = d.Add(time.Since(start))
	}
	if err == nil && len(raws) != len(qs) {
		err = fmt.Errorf("%d answers to %d questions", len(raws), len(qs))
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
	var n int64
	for _, raw := range raws {
		n += int64(len(raw))
	}
	if max := th.opts.MaxValueBytes; max > 0 && n > max {
		th.limit(LimitValueSize, max)
	}
	th.allocate(n)
	return raws
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
