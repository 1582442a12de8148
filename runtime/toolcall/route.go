package toolcall

import "context"

// A session of a protocol before 2026-07-28 receives the server's
// sampling/createMessage and roots/list requests on its GET event stream
// only: mcp-go v1.2.1 queues them for the session's listening stream,
// while elicitation/create travels on the call's own POST stream. A
// client that never opened that stream never sees them, and the call
// would wait out its wait_ms. The HTTP transport therefore puts in a
// call's context a check that a request can reach the client
// (WithRequestRoute), and asking fails at once with its error.

type requestRouteKey struct{}

// WithRequestRoute returns ctx whose calls check, with route, that a
// request of the method can reach the client before sending it; route
// returns an error saying why not.
func WithRequestRoute(ctx context.Context, route func(ctx context.Context, method string) error) context.Context {
	return context.WithValue(ctx, requestRouteKey{}, route)
}

// routeError is why a request of the method cannot reach the client of
// ctx, nil when it can (or the transport does not say).
func routeError(ctx context.Context, method string) error {
	switch route := ctx.Value(requestRouteKey{}).(type) {
	case func(context.Context, string) error:
		if route != nil {
			return route(ctx, method)
		}
	case Transport:
		return route.RouteRequest(ctx, method)
	}
	return nil
}
