package server

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/tasks"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// What a task tells the session that created it (docs/tasks.md §4,
// "Notifications"):
// under protocol 2025-11-25, notifications/tasks/status when its status
// changes, and its call's own notifications (progress, log messages) with
// _meta io.modelcontextprotocol/related-task. They go to mcp-go's session
// of this instance: over stdio the process's output, over HTTP the
// session's GET event stream (the creating request was answered with the
// task long before). Only the instance running the task sends them: in a
// fleet, a session whose streams are on another instance misses them, as
// it misses a cancel's notification sent by the instance that served it.
// Under 2026-07-28, which has no sessions, nothing is sent.

// startTask runs the call pass of task t in the background, outliving the
// request ctx that created it: it keeps the request's identity
// (principal, role, session) for the checks, and its notifications go to
// the mcp-go session session ("" none).
func (tp *taskPlane) startTask(ctx context.Context, t tasks.Task, pass []byte, session string) {
	s := tp.s
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// The request's own stream (its POST's response) is answered already.
	runCtx = toolcall.WithStream(runCtx, taskStream{p: s.tasks, task: t.ID, session: session})
	if session != "" {
		// The call reaches its client through the session: its requests
		// (elicitation, sampling, roots) on the GET stream, the task
		// input_required meanwhile (tasks_input.go).
		if v, ok := tp.sessions.Load(session); ok && mcpserver.ClientSessionFromContext(runCtx) == nil {
			runCtx = s.mcp.WithContext(runCtx, v.(mcpserver.ClientSession))
		}
		runCtx = toolcall.WithAskWatcher(runCtx, taskAsker{p: s.tasks, task: t})
	}
	tp.track(t.ID, session, cancel)
	gate, _ := ctx.Value(answerGateKey{}).(chan struct{})
	go func() {
		if gate != nil {
			select {
			case <-gate:
			case <-runCtx.Done():
			}
		}
		tp.runTask(runCtx, t, pass)
	}()
}

// answerGateKey keys the gate a transport closes once it wrote the answer
// that created a task: over stdio that answer and the task's own messages
// (its requests to the client, progress, status) share one output, and a
// task's call starts only after the answer, so that a client reads the
// task before anything of it (docs/tasks.md §4, "Asking the client").
type answerGateKey struct{}

// withAnswerGate is ctx whose task, if its request makes one, waits for
// gate to close before its call starts.
func withAnswerGate(ctx context.Context, gate chan struct{}) context.Context {
	return context.WithValue(ctx, answerGateKey{}, gate)
}

// taskSession is the mcp-go session id of the request ctx: its
// Mcp-Session-Id over HTTP, the process's session over stdio; "" without
// one.
func taskSession(ctx context.Context) string {
	if hs := httpSessionFrom(ctx); hs != nil {
		return hs.raw
	}
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

// sessionRegistered and sessionUnregistered keep the plane's sessions
// (mcp-go's hooks).
func (tp *taskPlane) sessionRegistered(_ context.Context, cs mcpserver.ClientSession) {
	tp.sessions.Store(cs.SessionID(), cs)
}

func (tp *taskPlane) sessionUnregistered(_ context.Context, cs mcpserver.ClientSession) {
	tp.sessions.CompareAndDelete(cs.SessionID(), cs)
}

// send queues n for the mcp-go session id, as mcp-go sends a session's
// notifications: dropped when the session is gone, or its queue full (no
// stream reads it).
func (tp *taskPlane) send(session string, n mcp.JSONRPCNotification) {
	if session == "" {
		return
	}
	v, ok := tp.sessions.Load(session)
	if !ok {
		return
	}
	cs := v.(mcpserver.ClientSession)
	if !cs.Initialized() {
		return
	}
	select {
	case cs.NotificationChannel() <- n:
	default:
		tp.s.log.Debug("tasks: a session's notification queue is full; a task's notification is dropped", "method", n.Method)
	}
}

// statusChanged sends notifications/tasks/status for t, which changed, to
// the session that created it, when this instance runs it; a terminal
// status once.
func (tp *taskPlane) statusChanged(t tasks.Task) {
	tp.mu.Lock()
	r, ok := tp.running[t.ID]
	if !ok || r.ended {
		tp.mu.Unlock()
		return
	}
	if t.Status.Terminal() {
		r.ended = true
	}
	session := r.session
	tp.mu.Unlock()
	b, err := json.Marshal(wireTask(t))
	if err != nil {
		return
	}
	var fields map[string]any
	if unmarshal(b, &fields) != nil {
		return
	}
	tp.send(session, mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: mcp.MethodNotificationTasksStatus, Params: mcp.NotificationParams{AdditionalFields: fields}},
	})
}

// taskStream is the toolcall.Stream of a task's call: its notifications
// carry the related-task _meta and go to the session that created it.
type taskStream struct {
	p       *taskPlane
	task    string
	session string
}

// Notify implements toolcall.Stream; a notification with nowhere to go is
// dropped (ok, so that it is not sent the session's way of ctx either).
func (ts taskStream) Notify(_ context.Context, n mcp.JSONRPCNotification) (bool, error) {
	meta := map[string]any{}
	maps.Copy(meta, n.Params.Meta)
	meta[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(ts.task)
	n.Params.Meta = meta
	ts.p.send(ts.session, n)
	return true, nil
}
