package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/tasks"
)

// A task that asks its client (docs/tasks.md §5): under protocol
// 2026-07-28 a call of a workspace tool that asks answers
// resultType "input_required" with its inputRequests and a signed
// requestState (input_state.go), and the client calls again with its
// inputResponses. Run as a task, that answer turns the task
// input_required instead of completing it: the store keeps the round —
// the call, its inputRequests and its requestState — and tasks/get shows
// the inputRequests. tasks/update {taskId, inputResponses} resumes it on
// the instance that serves the update (any of a fleet: the round is in the
// store): the call is made again with the answers and the state, checked
// as any 2026-07-28 call is, and runs in the background until it ends or
// asks again. An update that answers only some of the requests is kept in
// the round, and the task asks on for the rest.

// taskRound is what an input_required task keeps (tasks.Task.Input).
type taskRound struct {
	// Call is the tools/call to make again, as the task first ran it.
	Call json.RawMessage `json:"call"`
	// InputRequests are the requests still unanswered, by key.
	InputRequests json.RawMessage `json:"inputRequests"`
	RequestState  string          `json:"requestState,omitempty"`
	// InputResponses are the answers of earlier tasks/update requests
	// that answered only some of the requests (docs/tasks.md §5).
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskAsks records task t, whose call pass answered result, as
// input_required when result is an input_required result, and reports
// whether it was one: the task then waits for tasks/update, and its end
// is not recorded.
func (tp *taskPlane) taskAsks(t tasks.Task, pass []byte, result json.RawMessage) bool {
	var r struct {
		ResultType    string          `json:"resultType"`
		InputRequests json.RawMessage `json:"inputRequests"`
		RequestState  string          `json:"requestState"`
	}
	if unmarshal(result, &r) != nil || r.ResultType != string(mcp.ResultTypeInputRequired) {
		return false
	}
	tp.keepRound(t, taskRound{Call: pass, InputRequests: r.InputRequests, RequestState: r.RequestState})
	return true
}

// keepRound turns the working task t input_required with its round, or
// fails it when the round is too large to keep.
func (tp *taskPlane) keepRound(t tasks.Task, r taskRound) {
	s := tp.s
	round, err := json.Marshal(r)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err == nil && len(round) > tasks.MaxResultBytes {
		err = fmt.Errorf("the call and the input it asks for have %d bytes, over the %d a task keeps", len(round), tasks.MaxResultBytes)
	}
	if err != nil {
		ended, ferr := tp.store.Finish(ctx, t.ID, tasks.Failed, fmt.Sprintf("%s asked its client, and the round cannot be kept: %v", t.Tool, err), nil)
		if ferr == nil || errors.Is(ferr, tasks.ErrTerminal) {
			tp.statusChanged(ended)
		}
		return
	}
	asked, err := tp.store.Ask(ctx, t.ID, "waiting for the client's input: answer its inputRequests with tasks/update", round)
	switch {
	case err == nil, errors.Is(err, tasks.ErrTerminal): // cancelled meanwhile: that stays
		tp.statusChanged(asked)
	case !errors.Is(err, tasks.ErrNotFound):
		s.log.Warn("tasks: recording that a task asks failed", "task", t.ID, "tool", t.Tool, "err", err)
	}
}

// tasksUpdateModern answers the extension's tasks/update {taskId,
// inputResponses}: the task that asks is resumed with the answers once
// every request of its round is answered, and asks on for the others
// until then; the acknowledgement is {resultType: "complete"}. A task that
// asks for nothing (working, or ended) gets -32602.
func (tp *taskPlane) tasksUpdateModern(ctx context.Context, id, params json.RawMessage) []byte {
	s := tp.s
	taskID, e := taskIDParam("tasks/update", params)
	if e != nil {
		return rpcReply(id, nil, e)
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if unmarshal(params, &p) != nil || len(p.InputResponses) == 0 || p.InputResponses[0] != '{' {
		return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: `tasks/update needs params {"taskId": "...", "inputResponses": {...}}: the answers to the inputRequests tasks/get shows, by their keys`})
	}
	// A task of 2025-11-25 input_required waits for its client's answer
	// on its session, not for an update: it keeps no round.
	t, err := tp.store.Get(ctx, tp.taskPrincipal(ctx), taskID)
	var raw []byte
	if err == nil && (t.Status != tasks.InputRequired || t.Input == "") {
		err = tasks.ErrNotAsking
	}
	if err == nil {
		t, raw, err = tp.store.Resume(ctx, tp.taskPrincipal(ctx), taskID)
	}
	if errors.Is(err, tasks.ErrNotAsking) || errors.Is(err, tasks.ErrTerminal) {
		return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("tasks/update: task %s asks for no input (it is %s): poll it with tasks/get, whose inputRequests say when it asks", taskID, t.Status)})
	}
	if err != nil {
		return rpcReply(id, nil, taskError("tasks/update", taskID, err))
	}
	round, pending, err := answerRound(raw, p.InputResponses)
	if err == nil && pending {
		// Some requests are still unanswered: the task asks on for them,
		// with the answers so far kept in its round.
		tp.keepRound(t, round)
		return rpcReply(id, map[string]any{"resultType": "complete"}, nil)
	}
	var call []byte
	if err == nil {
		call, err = resumedCall(round)
	}
	var head rpcMessage
	if err == nil {
		var ok bool
		if head, ok = decodeHead(call); !ok {
			err = errors.New("it does not decode")
		}
	}
	if err != nil {
		tp.failResumed(t, &rpcError{Code: mcp.INTERNAL_ERROR, Message: "the task's call cannot be made again: " + err.Error()})
		return rpcReply(id, map[string]any{"resultType": "complete"}, nil)
	}
	// Checked as any 2026-07-28 call: the role, the skill's allowlist, the
	// request state's signature (call_checks.go).
	cctx, pass, refused, ok := s.shimCall(ctx, call, &head, true)
	switch {
	case refused != nil:
		var out storedOutcome
		_ = unmarshal(refused, &out)
		tp.failResumed(t, out.Error)
	case !ok:
		tp.failResumed(t, &rpcError{Code: mcp.INTERNAL_ERROR, Message: "the task's call cannot be made again: its params do not decode"})
	default:
		tp.startTask(cctx, t, pass, "")
	}
	return rpcReply(id, map[string]any{"resultType": "complete"}, nil)
}

// answerRound adds the client's inputResponses to the round raw and
// reports whether requests of it are still unanswered: an answered
// request leaves the round's inputRequests, and an answer to a key the
// round does not ask is dropped.
func answerRound(raw []byte, inputResponses json.RawMessage) (taskRound, bool, error) {
	var round taskRound
	var asks, answers map[string]json.RawMessage
	if err := unmarshal(raw, &round); err != nil {
		return round, false, err
	}
	if err := unmarshal(round.InputRequests, &asks); err != nil {
		return round, false, fmt.Errorf("its inputRequests: %w", err)
	}
	if err := unmarshal(inputResponses, &answers); err != nil {
		return round, false, err
	}
	if round.InputResponses == nil {
		round.InputResponses = map[string]json.RawMessage{}
	}
	for key, answer := range answers {
		if _, asked := asks[key]; asked {
			round.InputResponses[key] = answer
			delete(asks, key)
		}
	}
	var err error
	round.InputRequests, err = json.Marshal(asks)
	return round, len(asks) > 0, err
}

// resumedCall is the call of round made again with the client's answers
// and the round's requestState.
func resumedCall(round taskRound) ([]byte, error) {
	var msg, params map[string]json.RawMessage
	if err := unmarshal(round.Call, &msg); err != nil {
		return nil, err
	}
	if err := unmarshal(msg["params"], &params); err != nil {
		return nil, err
	}
	answers, err := json.Marshal(round.InputResponses)
	if err != nil {
		return nil, err
	}
	params["inputResponses"] = answers
	delete(params, "requestState")
	if round.RequestState != "" {
		params["requestState"], _ = json.Marshal(round.RequestState)
	}
	return rewriteParams(round.Call, params), nil
}

// failResumed ends task t, resumed by tasks/update, with the JSON-RPC
// error its call was refused with.
func (tp *taskPlane) failResumed(t tasks.Task, e *rpcError) {
	s := tp.s
	if e == nil {
		e = &rpcError{Code: mcp.INTERNAL_ERROR, Message: "the task's call was refused"}
	}
	raw, _ := json.Marshal(storedOutcome{Error: e})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tp.store.Finish(ctx, t.ID, tasks.Failed, e.Message, raw); err != nil && !errors.Is(err, tasks.ErrTerminal) && !errors.Is(err, tasks.ErrNotFound) {
		s.log.Warn("tasks: recording the end of a task failed", "task", t.ID, "tool", t.Tool, "err", err)
	}
}

// taskAsker is the toolcall.AskWatcher of a task's call under protocol
// 2025-11-25 (docs/tasks.md §4, "Asking the client"): while a request of
// the call to its client is outstanding the task is input_required
// (notified to its session), and its elicitation requests carry the
// related-task _meta.
type taskAsker struct {
	p    *taskPlane
	task tasks.Task
}

// Asking implements toolcall.AskWatcher.
func (a taskAsker) Asking(method string) (map[string]any, func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if t, err := a.p.store.Ask(ctx, a.task.ID, "waiting for the client's answer to "+method, nil); err == nil {
		a.p.statusChanged(t)
	}
	return map[string]any{mcp.RelatedTaskMetaKey: mcp.RelatedTaskMeta(a.task.ID)}, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if t, _, err := a.p.store.Resume(ctx, a.task.Principal, a.task.ID); err == nil {
			a.p.statusChanged(t)
		}
	}
}
