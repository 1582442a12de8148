package toolcall

import (
	"context"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Client is how a call reaches the client that made it while it runs
// (docs/architecture.md §4): the server puts it in the context of every
// tool call and resource read, with what the calling session asked for.
// Notifications go to the session of the request's context only — the
// same stream that answers the request over HTTP — never to other
// sessions.
type Client struct {
	// LogLevel is the least severe level the session receives as
	// notifications/message: the request's log level under protocol
	// 2026-07-28, or the server's default. "" means none. Read it with
	// Level, which answers what logging/setLevel set for a session
	// (WithSessionLevel).
	LogLevel mcp.LoggingLevel
	// ProgressToken is the request's _meta.progressToken; nil means the
	// client asked for no progress.
	ProgressToken mcp.ProgressToken
	// Rounds, under protocol 2026-07-28, is the journal of the call's
	// questions answered in earlier rounds (ask.go); while the call
	// replays them, progress and log notifications are withheld, as they
	// were sent in those rounds.
	Rounds *Rounds
	// sessionLevel, when set, reads LogLevel when the call first logs
	// instead of before every call: the session's level lives in the
	// session store, a Redis round trip in fleet mode, and most calls log
	// nothing.
	sessionLevel *lazyLevel
}

// lazyLevel is a log level read once, on first use.
type lazyLevel struct {
	once  sync.Once
	read  func() mcp.LoggingLevel
	level mcp.LoggingLevel
}

// WithSessionLevel returns c reading its LogLevel with read, once, when
// the call first logs; read is not called for a call that never logs.
func (c Client) WithSessionLevel(read func() mcp.LoggingLevel) Client {
	c.sessionLevel = &lazyLevel{read: read}
	return c
}

// Level is the least severe level the session receives ("" for none).
func (c Client) Level() mcp.LoggingLevel {
	if l := c.sessionLevel; l != nil {
		l.once.Do(func() { l.level = l.read() })
		return l.level
	}
	return c.LogLevel
}

type clientKey struct{}

// WithClient returns ctx carrying c.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom is the Client of ctx; ok is false outside a served request.
func ClientFrom(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}

// SendProgress sends notifications/progress to the session of ctx when
// its request carried a progress token, and does nothing otherwise.
// progress should grow with every call; total is 0 when unknown.
func SendProgress(ctx context.Context, progress, total float64, message string) error {
	c, _ := ClientFrom(ctx)
	if c.ProgressToken == nil || c.Rounds.Replaying() {
		return nil
	}
	srv := mcpserver.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	params := map[string]any{"progressToken": c.ProgressToken, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	return sendInOrder(ctx, srv, string(mcp.MethodNotificationProgress), params)
}

// sendInOrder sends a call's notification on the request's own Stream
// when it has one; otherwise (or once that stream can carry no more) it
// goes to the session of ctx through mcp-go. A call without an mcp-go
// session in ctx is one the server runs itself (a task's, whose Stream
// knows where its notifications go).
func sendInOrder(ctx context.Context, srv *mcpserver.MCPServer, method string, params map[string]any) error {
	if st := streamFrom(ctx); st != nil {
		if cs := mcpserver.ClientSessionFromContext(ctx); cs == nil || cs.Initialized() {
			n := mcp.JSONRPCNotification{
				JSONRPC:      mcp.JSONRPC_VERSION,
				Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}},
			}
			if ok, err := st.Notify(ctx, n); ok {
				return err
			}
		}
	}
	return srv.SendNotificationToClient(ctx, method, params)
}

// SendLog sends notifications/message to the session of ctx when level is
// at least as severe as the session's level; logger names the source (a
// tool, a resource).
func SendLog(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	c, _ := ClientFrom(ctx)
	if least := c.Level(); least == "" || !level.ShouldSendTo(least) || c.Rounds.Replaying() {
		return nil
	}
	srv := mcpserver.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	params := map[string]any{"level": level, "data": data}
	if logger != "" {
		params["logger"] = logger
	}
	return sendInOrder(ctx, srv, string(mcp.MethodNotificationMessage), params)
}

// LogLevel maps a slog level to the MCP level of the same severity.
func LogLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return mcp.LoggingLevelDebug
	case l < slog.LevelWarn:
		return mcp.LoggingLevelInfo
	case l < slog.LevelError:
		return mcp.LoggingLevelWarning
	}
	return mcp.LoggingLevelError
}

// ClientLogger returns a logger that writes to next and sends every record
// to the calling session of ctx as notifications/message, named logger:
// what a Vox tool prints (info) and logs during a call reaches the client
// that made the call.
func ClientLogger(ctx context.Context, next *slog.Logger, logger string) *slog.Logger {
	if _, ok := ClientFrom(ctx); !ok {
		return next
	}
	return slog.New(&clientHandler{ctx: ctx, next: next.Handler(), logger: logger})
}

type clientHandler struct {
	ctx    context.Context
	next   slog.Handler
	logger string
}

func (h *clientHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *clientHandler) Handle(ctx context.Context, r slog.Record) error {
	SendLog(h.ctx, LogLevel(r.Level), h.logger, r.Message)
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *clientHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientHandler{ctx: h.ctx, next: h.next.WithAttrs(attrs), logger: h.logger}
}

func (h *clientHandler) WithGroup(name string) slog.Handler {
	return &clientHandler{ctx: h.ctx, next: h.next.WithGroup(name), logger: h.logger}
}
