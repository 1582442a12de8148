package toolcall

import "context"

// SSE polling (SEP-1699; docs/federation.md §8, "Resumability"): a call
// may end the event stream that answers its request while it goes on
// running. The client, told by the stream's priming event which event id
// to resume from and how long to wait (retry), sends GET with
// Last-Event-ID and receives the rest of the call — its notifications and
// its result — on that stream instead. The transport that can do so puts
// its closer in the request's context.

type streamCloserKey struct{}

// WithStreamCloser returns ctx whose call may end its stream with
// closeStream, which reports whether it did.
func WithStreamCloser(ctx context.Context, closeStream func() bool) context.Context {
	return context.WithValue(ctx, streamCloserKey{}, closeStream)
}

// CloseStream ends the event stream that answers the request of ctx, and
// reports whether it did: false where there is none the client can
// resume (stdio, protocol 2026-07-28, a session of a version before
// 2025-11-25, a response that is not a primed event stream yet, a
// connection that cannot be ended early).
func CloseStream(ctx context.Context) bool {
	switch f := ctx.Value(streamCloserKey{}).(type) {
	case func() bool:
		return f != nil && f()
	case Transport:
		return f.CloseStream()
	}
	return false
}
