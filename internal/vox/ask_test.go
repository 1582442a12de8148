package vox

import (
	"context"

	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/ask"
)

// fakeClient answers elicit() and sample() after delay, or when release
// is closed when set; asked reports each question.
type fakeClient struct {
	answer  string
	delay   time.Duration
	release chan struct{}
	asked   chan string
	// closable is whether the call's stream can be closed; closed counts
	// the closes.
	closable bool
	closed   int
}

func (f *fakeClient) CloseStream(context.Context) bool {
	if f.closable {
		f.closed++
	}
	return f.closable
}

func (f *fakeClient) Ask(ctx context.Context, reqs []ask.Request) ([][]byte, error) {
	raw, err := f.ask(ctx, reqs[0].Method, reqs[0].Params)
	if err != nil {
		return nil, err
	}
	out := [][]byte{raw}
	for range reqs[1:] {
		out = append(out, raw)
	}
	return out, nil
}

func (f *fakeClient) Declared(_ context.Context, capability string) bool {
	return capability == "sampling"
}

func (f *fakeClient) ask(ctx context.Context, method string, params []byte) ([]byte, error) {
	if f.asked != nil {
		f.asked <- method + " " + string(params)
	}
	wait := time.After(f.delay)
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case <-wait:
		return []byte(f.answer), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

const askSrc = `fn ask() {
    let r = elicit("name?", {type: "object", properties: {name: {type: "string", default: "x"}}, required: ["name"]})
    r["action"] + " " + r["content"]["name"]
}

fn model() {
    let r = sample(["hi", {role: "assistant", content: "hello"}, {role: "user", content: content.image("AA==", "image/png")}], 10)
    r["text"] + " " + r["model"] + " " + r["stop_reason"] + " " + r["content"]["type"]
}

fn client_roots() { json.stringify(roots()) }

fn caps() { format("{} {}", client_has("sampling"), client_has("elicitation")) }
fn bad_cap() { client_has("tools") }
fn poll() { close_stream() }

fn bad_messages() { sample([{role: "system", content: "x"}], 10) }
fn bad_tokens() { sample("hi", 0) }
fn bad_schema() { elicit("?", {type: "object", properties: {n: {type: "number", default: "one"}}}) }
`

const nameAnswer = `{"action":"accept","content":{"name":"Ada"}}`

// TestAskPausesLimits: an answer that takes longer than the call's time
// limit still lets the call finish; the wait has its own bound.
func TestAskPausesLimits(t *testing.T) {
	m := compileOK(t, askSrc)
	env := &Env{Limits: Limits{Timeout: 50 * time.Millisecond, Wait: time.Minute}, Client: &fakeClient{answer: nameAnswer, delay: 200 * time.Millisecond}}
	res, err := m.Call(context.Background(), "ask", nil, env)
	if err != nil || res.Text != "accept Ada" {
		t.Fatalf("ask = %q, %v", res.Text, err)
	}
	env.Limits.Wait = 20 * time.Millisecond
	_, err = m.Call(context.Background(), "ask", nil, env)
	var e *Error
	if !errors.As(err, &e) || e.Kind != LimitError || e.Limit != "wait_ms" || !strings.HasPrefix(e.Message, "wait_ms limit of 20 exceeded; ") {
		t.Fatalf("past the wait bound: %v", err)
	}
}

// TestAskCancelled: cancelling the call ends its wait.
func TestAskCancelled(t *testing.T) {
	m := compileOK(t, askSrc)
	f := &fakeClient{release: make(chan struct{}), asked: make(chan string, 1)}
	defer close(f.release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "ask", nil, &Env{Client: f, Limits: Limits{Wait: time.Hour}})
		done <- err
	}()
	<-f.asked
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "call canceled") {
		t.Fatalf("cancelled = %v", err)
	}
}

// TestAskFreesSlot: a call waiting for its client does not hold one of
// the concurrent-call slots.
func TestAskFreesSlot(t *testing.T) {
	defer SetMaxima(Maxima{})
	SetMaxima(Maxima{ConcurrentCalls: 1})
	m := compileOK(t, askSrc+"fn one() { 1 }\n")
	f := &fakeClient{answer: nameAnswer, release: make(chan struct{}), asked: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "ask", nil, &Env{Client: f})
		done <- err
	}()
	<-f.asked
	if _, err := m.Call(context.Background(), "one", nil, &Env{Limits: Limits{Timeout: time.Second}}); err != nil {
		t.Fatalf("while another call waits for its client: %v", err)
	}
	close(f.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAskShapes(t *testing.T) {
	m := compileOK(t, askSrc)
	f := &fakeClient{answer: `{"role":"assistant","content":{"type":"text","text":"hey"},"model":"m1","stopReason":"endTurn"}`, asked: make(chan string, 1)}
	res, err := m.Call(context.Background(), "model", nil, &Env{Client: f})
	if err != nil || res.Text != "hey m1 endTurn text" {
		t.Fatalf("model = %q, %v", res.Text, err)
	}
	want := `sampling/createMessage {"messages":[{"role":"user","content":{"type":"text","text":"hi"}},{"role":"assistant","content":{"type":"text","text":"hello"}},{"role":"user","content":{"type":"image","data":"AA==","mimeType":"image/png"}}],"maxTokens":10}`
	if got := <-f.asked; got != want {
		t.Errorf("asked\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ fn, want string }{
		{"ask", "elicit: there is no MCP client to ask"},
		{"bad_messages", `sample: message 0 needs a role "user" or "assistant", got system`},
		{"bad_tokens", "sample: max_tokens must be an int of at least 1, got 0"},
		{"bad_schema", `elicit: property "n": default must be a number, got "one"`},
	} {
		env := &Env{}
		if c.fn != "ask" {
			env.Client = &fakeClient{}
		}
		_, err := m.Call(context.Background(), c.fn, nil, env)
		var e *Error
		if !errors.As(err, &e) || e.Kind != RuntimeError || !strings.Contains(e.Message, c.want) || e.Line == 0 {
			t.Errorf("%s = %v, want %q at a position", c.fn, err, c.want)
		}
	}
}

func TestAskRoots(t *testing.T) {
	m := compileOK(t, askSrc)
	f := &fakeClient{answer: `{"roots":[{"uri":"file:///work","name":"work"},{"uri":"file:///tmp"}]}`, asked: make(chan string, 1)}
	res, err := m.Call(context.Background(), "client_roots", nil, &Env{Client: f})
	if err != nil || res.Text != `[{"uri":"file:///work","name":"work"},{"uri":"file:///tmp","name":""}]` {
		t.Fatalf("roots = %q, %v", res.Text, err)
	}
	if got := <-f.asked; got != "roots/list {}" {
		t.Errorf("asked %s", got)
	}
	_, err = m.Call(context.Background(), "client_roots", nil, &Env{Client: &fakeClient{answer: `{"roots":[{"name":"x"}]}`}})
	if err == nil || !strings.Contains(err.Error(), "roots: the client's root 0 has no uri") {
		t.Errorf("a root without a uri = %v", err)
	}
}

func TestClientHas(t *testing.T) {
	m := compileOK(t, askSrc)
	res, err := m.Call(context.Background(), "caps", nil, &Env{Client: &fakeClient{}})
	if err != nil || res.Text != "true false" {
		t.Errorf("caps = %q, %v", res.Text, err)
	}
	res, err = m.Call(context.Background(), "caps", nil, &Env{})
	if err != nil || res.Text != "false false" {
		t.Errorf("caps without a client = %q, %v", res.Text, err)
	}
	_, err = m.Call(context.Background(), "bad_cap", nil, &Env{})
	if err == nil || !strings.Contains(err.Error(), "client_has: capability must be one of elicitation, sampling, roots, got tools") {
		t.Errorf("bad_cap = %v", err)
	}
}

// close_stream() says whether the client could close the call's stream,
// and is false without a client (vox run, resources).
func TestCloseStream(t *testing.T) {
	m := compileOK(t, askSrc)
	for _, c := range []struct {
		env  *Env
		want string
	}{
		{&Env{Client: &fakeClient{closable: true}}, "true"},
		{&Env{Client: &fakeClient{}}, "false"},
		{&Env{}, "false"},
	} {
		res, err := m.Call(context.Background(), "poll", nil, c.env)
		if err != nil || res.Text != c.want {
			t.Errorf("poll = %q, %v; want %s", res.Text, err, c.want)
		}
		if f, ok := c.env.Client.(*fakeClient); ok && f.closable && f.closed != 1 {
			t.Errorf("the stream was closed %d times, want once", f.closed)
		}
	}
}

// TestAskHugeAnswer: an answer larger than max_value_bytes is the limit
// error, before it is decoded.
func TestAskHugeAnswer(t *testing.T) {
	m := compileOK(t, askSrc)
	huge := `{"action":"accept","content":{"name":"` + strings.Repeat("x", 2<<20) + `"}}`
	_, err := m.Call(context.Background(), "ask", nil, &Env{Client: &fakeClient{answer: huge}, Limits: Limits{MaxValueBytes: 1 << 20}})
	var e *Error
	if !errors.As(err, &e) || e.Kind != LimitError || e.Limit != "max_value_bytes" {
		t.Fatalf("huge answer = %v", err)
	}
}
