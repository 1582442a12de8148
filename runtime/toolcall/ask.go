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

// Ask sends method (elicitation/create or sampling/createMessage) with
// params to the client of ctx and returns its result as JSON. It fails
// when the client did not declare the method's capability, and returns
// an *InputRequired under protocol 2026-07-28 when the answer is not yet
// recorded; key names the request there ("" for vox-<n>).
func Ask(ctx context.Context, method, key string, params []byte) ([]byte, error) {
	c, ok := ClientFrom(ctx)
	srv := mcpserver.ServerFromContext(ctx)
	capName := askCapability[method]
	if !ok || srv == nil || capName == "" {
		return nil, fmt.Errorf("there is no MCP client to ask")
	}
	if !declared(ctx, capName) {
		return nil, fmt.Errorf("the client did not declare the %s capability (in initialize, or in the request's _meta under protocol 2026-07-28): this tool needs a client that supports MCP %s", capName, capName)
	}
	if c.Rounds != nil {
		return c.Rounds.ask(method, key, params)
	}
	var (
		res any
		err error
	)
	switch method {
	case string(mcp.MethodElicitationCreate):
		p, perr := elicitationParams(params)
		if perr != nil {
			return nil, perr
		}
		res, err = srv.RequestElicitation(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: method}, Params: p})
	case string(mcp.MethodListRoots):
		res, err = srv.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: method}})
	default:
		var p mcp.CreateMessageParams
		if perr := json.Unmarshal(params, &p); perr != nil {
			return nil, perr
		}
		res, err = srv.RequestSampling(ctx, mcp.CreateMessageRequest{Request: mcp.Request{Method: method}, CreateMessageParams: p})
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

// Ask is Ask.
func (Asker) Ask(ctx context.Context, method, key string, params []byte) ([]byte, error) {
	return Ask(ctx, method, key, params)
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
	args    string // the hash of the canonical arguments
	answers []round
	asked   atomic.Int64
	// loose are the answers of a request without a request state: a
	// question takes the one under its key (the client answered what it
	// knew would be asked); other keys are ignored.
	loose mcp.InputResponses
}

type round struct {
	Key    string          `json:"k,omitempty"` // "" for vox-<n>
	Method string          `json:"m"`
	Sum    string          `json:"s"` // sha256 of the request's params
	Answer json.RawMessage `json:"a,omitempty"`
}

type roundState struct {
	Tool    string  `json:"t"`
	Args    string  `json:"h"`
	Answers []round `json:"r"`
	Pending round   `json:"p"`
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
	id := st.Pending.Key
	if id == "" {
		id = RoundID(len(st.Answers))
	}
	resp, ok := p.InputResponses[id]
	if !ok {
		return nil, fmt.Errorf("the retry does not answer the input request %s", id)
	}
	answer, err := json.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("the answer to %s cannot be read: %v", id, err)
	}
	st.Pending.Answer = answer
	r.answers = append(st.Answers, st.Pending)
	return r, nil
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

func (r *Rounds) ask(method, key string, params []byte) ([]byte, error) {
	i := int(r.asked.Add(1) - 1)
	sum := sha256.Sum256(append([]byte(method+"\x00"+key+"\x00"), params...))
	sumHex := hex.EncodeToString(sum[:])
	id := key
	if id == "" {
		id = RoundID(i)
	}
	if i < len(r.answers) {
		a := r.answers[i]
		if a.Method != method || a.Sum != sumHex {
			return nil, fmt.Errorf("this call asked something else than in the round the client answered (question %d): a tool that asks must be deterministic up to its questions (no time.now, crypto.uuid or changing files before them); call the tool again", i+1)
		}
		return a.Answer, nil
	}
	if resp, ok := r.loose[id]; ok {
		answer, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("the answer to %s cannot be read: %v", id, err)
		}
		r.answers = append(r.answers, round{Key: key, Method: method, Sum: sumHex, Answer: answer})
		return answer, nil
	}
	st := roundState{Tool: r.tool, Args: r.args, Answers: r.answers, Pending: round{Key: key, Method: method, Sum: sumHex}}
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return nil, &InputRequired{ID: id, Method: method, Params: params, State: r.seal(body)}
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

// InputRequired ends a call under protocol 2026-07-28 that asks a
// question not yet answered: the server returns it as an input_required
// result (Result) and the client calls again with the answer.
type InputRequired struct {
	ID     string
	Method string
	Params []byte
	State  string
}

func (e *InputRequired) Error() string {
	return "the call waits for the client's answer to " + e.ID
}

// Suspends marks the error as a suspension, not a failure (see
// runtime/vox/eval.Suspend).
func (e *InputRequired) Suspends() {}

// Builder holds the question, for the input_required result of a tool
// call (ToolResult) or of prompts/get (PromptResult).
func (e *InputRequired) Builder() (*mcpserver.InputRequestBuilder, error) {
	b := mcpserver.NewInputRequestBuilder(e.State)
	switch e.Method {
	case string(mcp.MethodElicitationCreate):
		p, err := elicitationParams(e.Params)
		if err != nil {
			return nil, err
		}
		b.Elicit(e.ID, p)
	case string(mcp.MethodSamplingCreateMessage):
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(e.Params, &p); err != nil {
			return nil, err
		}
		b.Sample(e.ID, p)
	case string(mcp.MethodListRoots):
		b.Roots(e.ID)
	default:
		return nil, errors.New("unknown input request method " + e.Method)
	}
	return b, nil
}
