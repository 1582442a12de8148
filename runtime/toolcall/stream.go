package toolcall

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// Stream is the connection that answers a request, when the transport
// gives the request one of its own: over streamable HTTP the POST's
// response (an SSE stream once it carries a notification), over stdio
// the process's output. A call's own notifications (progress, log
// messages) are written there, in the order the call sends them and
// before its response (docs/federation.md §9), instead of on mcp-go's
// session channel: mcp-go v1.2.1 gives every stream of a session that
// channel to read — the GET stream, and every POST of the session in
// flight — so a call's notifications would leave on whichever stream read
// them first, and its client could see 100 before 50.
type Stream interface {
	// Notify writes n as the next message of the stream and returns once
	// it is written (flushed). ok is false when the stream can carry no
	// more (the request was answered, its connection is gone): nothing was
	// written, and the caller sends n the session's way instead.
	Notify(ctx context.Context, n mcp.JSONRPCNotification) (ok bool, err error)
}

type streamKey struct{}

// WithStream returns ctx whose requests' own notifications go to s.
func WithStream(ctx context.Context, s Stream) context.Context {
	return context.WithValue(ctx, streamKey{}, s)
}

func streamFrom(ctx context.Context) Stream {
	s, _ := ctx.Value(streamKey{}).(Stream)
	return s
}
