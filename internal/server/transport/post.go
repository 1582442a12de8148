package transport

import (
	"context"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// Post is the plumbing of one POST of a session, allocated as one struct
// (inside the server's record of the POST) instead of one piece at a
// time (docs/benchmarks.md, "The HTTP rows under load: where a call's
// CPU goes"): the priming event (Primer) and its writer, the call's
// stream (PostStream), and one context node carrying the primer, what
// WithPostStream carries, and what toolcall.WithStreamCloser and
// toolcall.WithRequestRoute would carry one value at a time. The writer
// mcp-go gets (FinishedWriter) is the one piece apart: mcp-go keeps it
// for the session's life, and alone it is 32 bytes, where keeping it
// inside would keep all of this.
type Post struct {
	Stream   PostStream
	finished *FinishedWriter
	primer   Primer
	priming  primingWriter
	node     postContext
	owner    PostOwner
	chunked  bool
}

// PostOwner is what the server decides for a POST: whether it is primed,
// where its events are recorded, and whether a request of the call can
// reach the client (toolcall.Transport's RouteRequest).
type PostOwner interface {
	PrimingWanter
	Recorder
	RouteRequest(ctx context.Context, method string) error
	// ContextValue is what the POST's context node answers for a key of
	// the owner's (ok true), so that the owner needs no node of its own.
	ContextValue(key any) (v any, ok bool)
}

// Start readies p for the POST answered on w, whose context is ctx and
// whose connection's context is conn; chunked: the response may be ended
// early (CloseStream). The context and the writer returned are the
// call's: mcp-go gets the writer. End must be called once it is answered.
func (p *Post) Start(ctx, conn context.Context, w http.ResponseWriter, owner PostOwner, aliases *sync.Map, chunked bool) (context.Context, *FinishedWriter) {
	p.owner, p.chunked = owner, chunked
	p.primer.wanted = owner
	p.priming = primingWriter{ResponseWriter: w, p: &p.primer}
	p.Stream.init(conn, &p.priming, owner, aliases)
	p.finished = NewFinishedWriter(&p.Stream)
	p.node = postContext{Context: ctx, p: p}
	return &p.node, p.finished
}

// End ends the POST's stream and drops the response writer (PostStream.End,
// FinishedWriter.Finish).
func (p *Post) End() {
	p.finished.Finish()
	p.Stream.End()
}

// Notify implements toolcall.Stream: the call's stream.
func (p *Post) Notify(ctx context.Context, n mcp.JSONRPCNotification) (bool, error) {
	return p.Stream.Notify(ctx, n)
}

// CloseStream implements toolcall.Transport (PostStream.CloseStream).
func (p *Post) CloseStream() bool { return p.Stream.CloseStream(&p.primer, p.chunked) }

// RouteRequest implements toolcall.Transport: the owner's.
func (p *Post) RouteRequest(ctx context.Context, method string) error {
	return p.owner.RouteRequest(ctx, method)
}

// postContext is the POST's one context node.
type postContext struct {
	context.Context
	p *Post
}

func (c *postContext) Value(key any) any {
	switch key.(type) {
	case postStreamKey:
		return &c.p.Stream
	case primerKey:
		return &c.p.primer
	}
	if v, ok := toolcall.TransportValue(c.p, key); ok {
		return v
	}
	if v, ok := c.p.owner.ContextValue(key); ok {
		return v
	}
	return c.Context.Value(key)
}
