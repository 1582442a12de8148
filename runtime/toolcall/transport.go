package toolcall

import "context"

// Transport is what a transport gives a call in one context value of its
// own instead of three: its stream (WithStream), the closing of that
// stream (WithStreamCloser) and the check of its requests' route
// (WithRequestRoute). An HTTP POST then pays one allocation for them,
// not three plus the closures (docs/benchmarks.md, "The HTTP rows under
// load: where a call's CPU goes").
type Transport interface {
	Stream
	// CloseStream is what WithStreamCloser's closeStream does.
	CloseStream() bool
	// RouteRequest is what WithRequestRoute's route does.
	RouteRequest(ctx context.Context, method string) error
}

// TransportValue is what a context node of a transport answers for key so
// that the node stands for WithStream, WithStreamCloser and
// WithRequestRoute of t at once; ok is false for every other key, which
// the node asks its parent for.
func TransportValue(t Transport, key any) (v any, ok bool) {
	switch key.(type) {
	case streamKey:
		return Stream(t), true
	case streamCloserKey, requestRouteKey:
		return t, true // CloseStream and routeError tell it from a func
	}
	return nil, false
}
