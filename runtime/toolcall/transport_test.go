package toolcall

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// fakeTransport records what a call asked of it.
type fakeTransport struct {
	notified, closed int
	routed           string
}

func (f *fakeTransport) Notify(context.Context, mcp.JSONRPCNotification) (bool, error) {
	f.notified++
	return true, nil
}
func (f *fakeTransport) CloseStream() bool { f.closed++; return true }
func (f *fakeTransport) RouteRequest(_ context.Context, method string) error {
	f.routed = method
	return errors.New("no stream")
}

// transportNode is a context node carrying a Transport, as the HTTP
// transport's POST node does.
type transportNode struct {
	context.Context
	t Transport
}

func (n transportNode) Value(key any) any {
	if v, ok := TransportValue(n.t, key); ok {
		return v
	}
	return n.Context.Value(key)
}

// TestTransportValueStandsForTheThreeValues: one node answers what
// WithStream, WithStreamCloser and WithRequestRoute carry, and a value
// set inside it still wins, as with the three.
func TestTransportValueStandsForTheThreeValues(t *testing.T) {
	f := &fakeTransport{}
	ctx := transportNode{context.Background(), f}
	if s := streamFrom(ctx); s != Stream(f) {
		t.Fatalf("stream = %v, want the transport", s)
	}
	if !CloseStream(ctx) || f.closed != 1 {
		t.Fatalf("CloseStream did not reach the transport (closed %d)", f.closed)
	}
	if err := routeError(ctx, "sampling/createMessage"); err == nil || f.routed != "sampling/createMessage" {
		t.Fatalf("routeError = %v, routed %q", err, f.routed)
	}
	inner := WithStreamCloser(WithRequestRoute(ctx, func(context.Context, string) error { return nil }), func() bool { return false })
	if CloseStream(inner) || routeError(inner, "roots/list") != nil || f.closed != 1 {
		t.Fatal("the values set inside the node did not win")
	}
	if CloseStream(context.Background()) || routeError(context.Background(), "roots/list") != nil {
		t.Fatal("a context without a transport closed or refused")
	}
}
