package toolcall

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/vox/ask"
)

// Asking the client mid-call (docs/tool-results.md §6): a tool sends
// elicitation/create or sampling/createMessage to the client that called
// it. A client of a protocol before 2026-07-28 gets the request on its
// session and the call waits for the answer. Protocol 2026-07-28 has no
// server-to-client requests: the call ends with an input_required result
// carrying the request, and the client calls the tool again with the
// answer. The tool then runs again from the start, and its earlier
// questions get their recorded answers (Rounds): Vox tools have no side
// effects besides what they send the client, which is withheld until the
// replay passes the last answer.

// The capability a client must declare for each method.
var askCapability = map[string]string{
	string(mcp.MethodElicitationCreate):     "elicitation",
	string(mcp.MethodSamplingCreateMessage): "sampling",
	string(mcp.MethodListRoots):             "roots",
}

// Ask sends the requests (elicitation/create, sampling/createMessage,
// roots/list) to the client of ctx and returns its results as JSON, in
// order. It fails when the client did not declare a method's capability,
// and returns an *InputRequired under protocol 2026-07-28 when the
// answers are not yet recorded, the requests under their keys ("" for
// vox-<n>). Before 2026-07-28 the requests go out one after another.
func Ask(ctx context.Context, reqs []ask.Request) ([][]byte, error) {
	c, ok := ClientFrom(ctx)
	srv := mcpserver.ServerFromContext(ctx)
	if !ok || srv == nil {
		return nil, fmt.Errorf("there is no MCP client to ask")
	}
	for _, q := range reqs {
		capName := askCapability[q.Method]
		if capName == "" {
			return nil, fmt.Errorf("unknown request method %s", q.Method)
		}
		if !declared(ctx, capName) {
			return nil, fmt.Errorf("the client did not declare the %s capability (in initialize, or in the request's _meta under protocol 2026-07-28): this tool needs a client that supports MCP %s", capName, capName)
		}
	}
	if c.Rounds != nil {
		return c.Rounds.ask(reqs)
	}
	out := make([][]byte, len(reqs))
	for i, q := range reqs {
		raw, err := askSession(ctx, srv, q)
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

// AskWatcher is told of the requests a call sends its client before
// protocol 2026-07-28: a task's call (docs/tasks.md §4, "Asking the
// client") is input_required while one is outstanding, and its
// elicitation requests carry the task's _meta.
type AskWatcher interface {
	// Asking is called before the request of method goes out; meta is
	// added to its _meta (elicitation/create: mcp-go's other requests
	// have none), and answered is called once it is answered or failed.
	Asking(method string) (meta map[string]any, answered func())
}

type askWatcherKey struct{}

// WithAskWatcher returns ctx whose requests to the client w is told of.
func WithAskWatcher(ctx context.Context, w AskWatcher) context.Context {
	return context.WithValue(ctx, askWatcherKey{}, w)
}

// askSession sends one request on the session of ctx and waits for the
// answer.
func askSession(ctx context.Context, srv *mcpserver.MCPServer, q ask.Request) ([]byte, error) {
	if err := routeError(ctx, q.Method); err != nil {
		return nil, err
	}
	var meta map[string]any
	if w, ok := ctx.Value(askWatcherKey{}).(AskWatcher); ok {
		var answered func()
		meta, answered = w.Asking(q.Method)
		defer answered()
	}
	var (
		res any
		err error
	)
	switch q.Method {
	case string(mcp.MethodElicitationCreate):
		p, perr := elicitationParams(q.Params)
		if perr != nil {
			return nil, perr
		}
		if meta != nil {
			p.Meta = &mcp.Meta{AdditionalFields: meta}
		}
		res, err = srv.RequestElicitation(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: q.Method}, Params: p})
	case string(mcp.MethodListRoots):
		res, err = srv.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: q.Method}})
	default:
		var p mcp.CreateMessageParams
		if perr := json.Unmarshal(q.Params, &p); perr != nil {
			return nil, perr
		}
		res, err = srv.RequestSampling(ctx, mcp.CreateMessageRequest{Request: mcp.Request{Method: q.Method}, CreateMessageParams: p})
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the client did not answer: %v", err)
	}
	return json.Marshal(res)
}

// elicitationParams decodes the params of elicitation/create, keeping the
// requested schema's JSON as the tool wrote it (member order, numbers).
func elicitationParams(params []byte) (mcp.ElicitationParams, error) {
	var p mcp.ElicitationParams
	var raw struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return p, err
	}
	if err := json.Unmarshal(params, &raw); err != nil {
		return p, err
	}
	p.RequestedSchema = raw.RequestedSchema
	return p, nil
}

// Asker answers the elicit() and sample() of a Vox call through Ask: the
// interpreter's context of the wait is the call's, with its Client.
type Asker struct{}

// Declared reports whether the client of ctx declared the capability.
func (Asker) Declared(ctx context.Context, capability string) bool {
	if _, ok := ClientFrom(ctx); !ok {
		return false
	}
	return declared(ctx, capability)
}

// CloseStream is CloseStream (poll.go).
func (Asker) CloseStream(ctx context.Context) bool { return CloseStream(ctx) }

// Ask is Ask.
func (Asker) Ask(ctx context.Context, reqs []ask.Request) ([][]byte, error) {
	return Ask(ctx, reqs)
}

// declared reports whether the client of ctx declared the capability:
// in the request's _meta under protocol 2026-07-28, else at initialize.
func declared(ctx context.Context, capName string) bool {
	var caps mcp.ClientCapabilities
	if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.ClientCapabilities == nil {
			return false
		}
		caps = *info.ClientCapabilities
	} else if s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
		caps = s.GetClientCapabilities()
	}
	switch capName {
	case "elicitation":
		return caps.Elicitation != nil
	case "roots":
		return caps.Roots != nil
	}
	return caps.Sampling != nil
}

// Modern reports whether the request of ctx uses protocol 2026-07-28 or
// later, where a call asks its client through input_required results.
func Modern(ctx context.Context) bool {
	return mcp.IsModernProtocol(mcpserver.RequestProtocolVersion(ctx))
}

// MaxRequestState bounds the request state a client sends back, which
// carries the answers of the earlier rounds of a call.
const MaxRequestState = 8 << 20

// Rounds is the journal of one tool call under protocol 2026-07-28: the
// answers of the rounds so far, in the order the tool asked, which the
// replay of the call returns instead of asking again. It travels in the
// request state of the input_required result, signed with the server's
// key, so a client cannot forge an answer to a question the tool did not
// ask, or carry answers to another tool or other arguments.
type Rounds struct {
	key     []byte
	tool    string
	args    string    // the hash of the canonical arguments
	answers [][]round // by round, the questions asked together
	asked   atomic.Int64
	// loose are the answers of a request without a request state: a
	// question takes the one under its key (the client answered what it
	// knew would be asked); other keys are ignored.
	loose mcp.InputResponses
}

type round struct {
	Key    string          `json:"k,omitempty"` // "" for vox-<n> (vox-<n>-<i> in a round of several)
	Method string          `json:"m"`
	Sum    string          `json:"s"` // sha256 of the request's params
	Answer json.RawMessage `json:"a,omitempty"`
}

type roundState struct {
	Tool    string    `json:"t"`
	Args    string    `json:"h"`
	Answers [][]round `json:"r"`
	Pending []round   `json:"p"`
}

// NewRounds starts the journal of a call of tool with args, from the
// request state and answers of a retried request (none on the first).
func NewRounds(key []byte, tool string, args []byte, p mcp.MultiRoundTripParams) (*Rounds, error) {
	r := &Rounds{key: key, tool: tool, args: argsHash(args)}
	if p.RequestState == "" {
		r.loose = p.InputResponses
		return r, nil
	}
	st, err := r.state(p.RequestState)
	if err != nil {
		return nil, err
	}
	n := len(st.Answers)
	for k := range st.Pending {
		id := questionID(n, k, len(st.Pending), st.Pending[k].Key)
		resp, ok := p.InputResponses[id]
		if !ok {
			return nil, fmt.Errorf("the retry does not answer the input request %s", id)
		}
		answer, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("the answer to %s cannot be read: %v", id, err)
		}
		st.Pending[k].Answer = answer
	}
	r.answers = append(st.Answers, st.Pending)
	return r, nil
}

// isObject reports whether raw is a JSON object, as every answer is.
func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// questionID is the key of question k of the n questions of round i:
// the tool's key, else vox-<i>, or vox-<i>-<k> in a round of several.
func questionID(i, k, n int, key string) string {
	switch {
	case key != "":
		return key
	case n == 1:
		return RoundID(i)
	}
	return fmt.Sprintf("%s-%d", RoundID(i), k)
}

// CheckState verifies the request state of a retried call of tool with
// args: made and signed by this server (or a fleet sharing its key), for
// this tool and these arguments. The server checks it before the call
// runs, so a tampered state is a protocol error (-32602), not a result.
func CheckState(key []byte, tool string, args []byte, state string) error {
	r := &Rounds{key: key, tool: tool, args: argsHash(args)}
	_, err := r.state(state)
	return err
}

func (r *Rounds) state(state string) (roundState, error) {
	var st roundState
	if len(state) > MaxRequestState {
		return st, fmt.Errorf("the request state is larger than %d bytes: call the tool again without it", MaxRequestState)
	}
	body, ok := r.open(state)
	if !ok {
		return st, fmt.Errorf("the request state was not made by this server (it was changed, or the server's key changed): call the tool again without it")
	}
	if err := json.Unmarshal(body, &st); err != nil || st.Tool != r.tool || st.Args != r.args {
		return st, fmt.Errorf("the request state belongs to another call (another tool or other arguments): call the tool again without it")
	}
	return st, nil
}

// RoundID is the key of the n-th question of a call in inputRequests.
func RoundID(n int) string { return fmt.Sprintf("vox-%d", n) }

// Replaying reports whether the call is still before the last recorded
// answer: what it sends the client then was sent in an earlier round.
func (r *Rounds) Replaying() bool {
	return r != nil && r.asked.Load() < int64(len(r.answers))
}

func (r *Rounds) ask(reqs []ask.Request) ([][]byte, error) {
	i := int(r.asked.Add(1) - 1)
	asked := make([]round, len(reqs))
	for k, q := range reqs {
		sum := sha256.Sum256(append([]byte(q.Method+"\x00"+q.Key+"\x00"), q.Params...))
		asked[k] = round{Key: q.Key, Method: q.Method, Sum: hex.EncodeToString(sum[:])}
	}
	if i < len(r.answers) {
		got := r.answers[i]
		same := len(got) == len(asked)
		for k := 0; same && k < len(got); k++ {
			same = got[k].Method == asked[k].Method && got[k].Sum == asked[k].Sum
		}
		if !same {
			return nil, fmt.Errorf("this call asked something else than in the round the client answered (round %d): a tool that asks must be deterministic up to its questions (no time.now, crypto.uuid or changing files before them); call the tool again", i+1)
		}
		out := make([][]byte, len(got))
		for k := range got {
			out[k] = got[k].Answer
		}
		return out, nil
	}
	// Without a request state, the client may have answered already; an
	// answer that is not an object is no answer, and the call asks.
	if r.loose != nil {
		out := make([][]byte, len(asked))
		for k := range asked {
			resp, ok := r.loose[questionID(i, k, len(asked), asked[k].Key)]
			if !ok {
				out = nil
				break
			}
			answer, err := json.Marshal(resp)
			if err != nil || !isObject(answer) {
				// Not an answer (12345, null): asked again below.
				out = nil
				break
			}
			asked[k].Answer, out[k] = answer, answer
		}
		if out != nil {
			r.answers = append(r.answers, asked)
			return out, nil
		}
	}
	st := roundState{Tool: r.tool, Args: r.args, Answers: r.answers, Pending: asked}
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	in := &InputRequired{State: r.seal(body)}
	for k, q := range reqs {
		in.Requests = append(in.Requests, ask.Request{Method: q.Method, Key: questionID(i, k, len(reqs), q.Key), Params: q.Params})
	}
	return nil, in
}

func (r *Rounds) seal(body []byte) string {
	m := hmac.New(sha256.New, r.key)
	m.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (r *Rounds) open(state string) ([]byte, bool) {
	b64, sig64, ok := strings.Cut(state, ".")
	if !ok {
		return nil, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	sig, err2 := base64.RawURLEncoding.DecodeString(sig64)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	m := hmac.New(sha256.New, r.key)
	m.Write(body)
	return body, hmac.Equal(sig, m.Sum(nil))
}

// argsHash hashes the arguments in a canonical form (keys sorted, numbers
// as written), so a client re-encoding them between rounds is the same
// call.
func argsHash(args []byte) string {
	canon := bytes.TrimSpace(args)
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	if len(canon) == 0 || string(canon) == "null" {
		canon = []byte("{}")
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// InputRequired ends a call under protocol 2026-07-28 that asks
// questions not yet answered: the server returns them as an
// input_required result (Builder), each under its key, and the client
// calls again with the answers.
type InputRequired struct {
	Requests []ask.Request // Key is the key in inputRequests
	State    string
}

func (e *InputRequired) Error() string {
	keys := make([]string, len(e.Requests))
	for i, q := range e.Requests {
		keys[i] = q.Key
	}
	return "the call waits for the client's answers to " + strings.Join(keys, ", ")
}

// Suspends marks the error as a suspension, not a failure (see
// internal/vox/eval.Suspend).
func (e *InputRequired) Suspends() {}

// Builder holds the questions, for the input_required result of a tool
// call (ToolResult) or of prompts/get (PromptResult).
func (e *InputRequired) Builder() (*mcpserver.InputRequestBuilder, error) {
	b := mcpserver.NewInputRequestBuilder(e.State)
	for _, q := range e.Requests {
		switch q.Method {
		case string(mcp.MethodElicitationCreate):
			p, err := elicitationParams(q.Params)
			if err != nil {
				return nil, err
			}
			b.Elicit(q.Key, p)
		case string(mcp.MethodSamplingCreateMessage):
			var p mcp.CreateMessageParams
			if err := json.Unmarshal(q.Params, &p); err != nil {
				return nil, err
			}
			b.Sample(q.Key, p)
		case string(mcp.MethodListRoots):
			b.Roots(q.Key)
		default:
			return nil, errors.New("unknown input request method " + q.Method)
		}
	}
	return b, nil
}
