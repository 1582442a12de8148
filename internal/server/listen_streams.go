package server

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A session of a protocol before 2026-07-28 gets the server's
// sampling/createMessage and roots/list requests on its GET event stream
// only (toolcall.WithRequestRoute): mcp-go queues them for the session's
// listening stream, whose pump starts with the session's first GET on
// this instance and then records what it is given, for the client's next
// GET to receive. A call asking a client that never opened its GET stream
// here fails at once, saying so, instead of waiting out wait_ms
// (docs/federation.md §9).

// listenGrace is how long such a call waits for the GET stream to open: a
// client opens it right after initialize, in the background, and may call
// a tool before it is up.
const listenGrace = 2 * time.Second

// routeRequest is the toolcall.WithRequestRoute check of a call of the
// HTTP session hs.
func (p *sessionPlane) routeRequest(ctx context.Context, hs *httpSession, method string) error {
	if method == string(mcp.MethodElicitationCreate) {
		return nil // it travels on the call's own stream
	}
	if p.listening.Await(ctx, hs.id.Key, hs.id.Expires, listenGrace) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s cannot reach the client: its session has no GET event stream open on this server, where the server sends a session's %s requests (protocols before 2026-07-28; elicitation travels on the call's own stream); the client must open it (GET with its %s) before calling a tool that asks for this",
		method, method, mcpserver.HeaderKeySessionID)
}
