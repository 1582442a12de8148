package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// EndpointPath is the path of the streamable HTTP endpoint.
const EndpointPath = "/mcp"

// EnvHTTPReadTimeout is how long a client may take to send a request
// (headers and body), as a Go duration; default 30s.
const EnvHTTPReadTimeout = "VOX_MCP_HTTP_READ_TIMEOUT"

// HTTP transport limits (docs/federation.md §8).
const (
	// defaultReadTimeout bounds the time to receive one request, its body
	// included: a 64 MiB body still arrives at 2.2 MB/s, while a client
	// that trickles its body holds a connection for at most this long.
	// Responses are not bounded: a call may run for minutes and a GET
	// event stream for the whole session.
	defaultReadTimeout = 30 * time.Second
	// readHeaderTimeout bounds the request line and headers.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout is how long a kept-alive connection may wait for its
	// next request.
	idleTimeout = 2 * time.Minute
	// shutdownGrace bounds how long a stopping server waits for calls in
	// flight.
	shutdownGrace = 5 * time.Second
)

// ReadTimeoutFromEnv reads VOX_MCP_HTTP_READ_TIMEOUT; 0 when unset.
func ReadTimeoutFromEnv(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvHTTPReadTimeout))
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration, such as 30s", EnvHTTPReadTimeout, v)
	}
	return d, nil
}

// HTTPOptions configure ListenAndServeHTTP.
type HTTPOptions struct {
	// Addr is HOST:PORT to listen on; a port of 0 picks a free one.
	Addr string
	// Auth holds the bearer tokens; see CheckListenAddr for when they
	// are required.
	Auth Auth
	// Ready, when set, is called with the bound address once the server
	// accepts connections (the log line says the same for people).
	Ready func(net.Addr)
	// ReadTimeout bounds the time to receive one request, body included
	// (VOX_MCP_HTTP_READ_TIMEOUT); 0 means 30s.
	ReadTimeout time.Duration
}

// CheckListenAddr refuses to serve a non-loopback address without a token
// or an OAuth issuer: anyone who can reach it could call every tool.
// Loopback means localhost, 127.0.0.0/8 or ::1; an empty host (":8080")
// listens on every interface and is not loopback.
func CheckListenAddr(addr string, auth Auth) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want HOST:PORT, for example 127.0.0.1:8080 (%v)", addr, err)
	}
	if transport.IsLoopback(host) || auth.Enabled() {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return fmt.Errorf("refusing to listen on %s (%s) without a token: it is not a loopback address, so anyone who can reach it could call every tool; "+
		"set %s (full access) and/or %s (read role), give --auth-issuer URL (OAuth), or listen on a loopback address such as 127.0.0.1:%s",
		addr, where, EnvToken, EnvReadToken, portOf(addr))
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// HTTPHandler is the streamable HTTP endpoint with authentication, for
// tests and for embedding under another mux (serve it at EndpointPath).
// Session ids are signed (sessions.go): initialize mints one that every
// instance with the same VOX_MCP_SESSION_KEY verifies without a lookup,
// DELETE revokes it, and a forged, expired or revoked id gets 404. The
// per-session state (the active skill) and the revoked set live in this
// instance's memory, so routing must be sticky on Mcp-Session-Id for
// them to follow a client, unless Options.SharedStore (fleet mode) keeps
// them in a store every instance shares. mcp-go's DNS-rebinding protection stays on: a
// request that reaches a loopback listener with a Host other than
// localhost gets 403.
func (s *Server) HTTPHandler(auth Auth) http.Handler {
	h, _ := s.httpHandler(auth, nil, 0)
	return h
}

func (s *Server) httpHandler(auth Auth, hs *http.Server, readTimeout time.Duration) (http.Handler, *mcpserver.StreamableHTTPServer) {
	s.sessions.announceKey()
	if auth.Enabled() {
		s.httpAuth.Store(true)
	}
	events := transport.NewEventStore(s.sessions.events)
	opts := []mcpserver.StreamableHTTPOption{
		mcpserver.WithStreamableHTTPLogger(s.log.With("component", "mcp-go")),
		mcpserver.WithSessionIdManagerResolver(s.sessions),
		// mcp-go keeps a session's transport state (its registration for
		// notifications) until the session has been idle this long, or
		// DELETE; an id never outlives its lifetime.
		mcpserver.WithSessionIdleTTL(s.sessions.ids.Lifetime()),
		// Every event of a session's SSE streams gets an id and is kept,
		// bounded, for a GET with Last-Event-ID (transport/events.go).
		mcpserver.WithEventStore(events),
	}
	if hs != nil {
		// Shutdown of the streamable server then also ends the long-lived
		// GET streams before stopping hs, which would otherwise wait for them.
		opts = append(opts, mcpserver.WithStreamableHTTPServer(hs))
	}
	streamable := mcpserver.NewStreamableHTTPServer(s.mcp, opts...)
	if readTimeout <= 0 {
		readTimeout = defaultReadTimeout
	}
	ep := &endpoint{s: s, p: s.sessions, next: streamable, events: events, readTimeout: readTimeout}
	return transport.RejectRebinding(s.requireToken(auth, ep)), streamable
}

// endpoint is the MCP endpoint in front of mcp-go's streamable server: it
// reads request bodies under a deadline, and decides every request's
// session before mcp-go sees it — mcp-go answers 404 for any refused id,
// opens a GET stream for any id or none, and ignores DELETE — so that a
// request of protocol 2026-07-28 (no sessions) and initialize pass, a
// missing id gets 400, an id the server did not issue or that ended gets
// 404, and DELETE revokes.
type endpoint struct {
	s           *Server
	p           *sessionPlane
	next        http.Handler
	events      transport.EventStore
	readTimeout time.Duration
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The deadline covers what is left of the request; the listener's
	// ReadTimeout covered the headers. It is lifted once the body is in,
	// so that neither a long call nor an event stream is cut: net/http
	// cancels the request when a read of the connection fails.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(e.readTimeout)) // not every ResponseWriter supports it (httptest's recorder)

	switch r.Method {
	case http.MethodPost:
		body, ok := e.readBody(w, r)
		if !ok {
			return
		}
		_ = rc.SetReadDeadline(time.Time{}) // lift it
		if transport.IsBatch(body) {
			e.serveBatch(w, r, body)
			return
		}
		// A body that is no JSON object with a string method is mcp-go's
		// to refuse (-32700: it decodes the same way); a request of
		// 2026-07-28 has no session, and initialize starts one. Anything
		// else is of a session, and mcp-go serves it as such only once it
		// is verified here (requestSessionIDs.Validate).
		// The head is decoded once here for every later look (modern,
		// the shim's methods): a call costs one decode beyond mcp-go's.
		msg, ok := decodeHead(body)
		if !ok {
			e.dispatch(w, r.WithContext(withHTTP(r.Context())), body, nil, isModern(r.Header, body))
			return
		}
		if modern := isModernMessage(r.Header, &msg); modern || msg.Method == string(mcp.MethodInitialize) {
			ctx := withHTTP(r.Context())
			if modern {
				// The call's own notifications are written to this
				// response (transport/stream.go); the protocol has no
				// resumability, so they are recorded nowhere.
				ps := transport.NewPostStream(r.Context(), w, nil, nil)
				defer ps.End()
				ctx, w = transport.WithPostStream(ctx, ps), ps
			}
			e.dispatch(w, r.WithContext(ctx), body, &msg, modern)
			return
		}
		sp := &sessionPost{e: e, header: r.Header}
		hs, ok := e.session(w, r, &sp.session)
		if !ok {
			return
		}
		// The POST's plumbing is one allocation (sessionPost): its
		// tracking, priming, stream and the writer mcp-go gets. The
		// call's own notifications are written to this response
		// (transport/stream.go), recorded like mcp-go's events; the call
		// may close its stream for the client to resume it
		// (toolcall.CloseStream, SSE polling); its sampling and roots
		// requests reach the client only on its GET stream
		// (transport/listen.go).
		sp.hs, sp.sessionID = hs, r.Header.Get(mcpserver.HeaderKeySessionID)
		ctx := e.p.trackInto(r.Context(), hs.id.Key, &sp.open)
		defer sp.open.done()
		ctx, fw := sp.post.Start(ctx, r.Context(), w, sp, e.events.Aliases(), r.ProtoAtLeast(1, 1))
		sp.ctx = ctx
		defer sp.post.End()
		e.dispatch(fw, r.WithContext(ctx), body, &msg, false)
	case http.MethodGet:
		if isModern(r.Header, nil) {
			e.next.ServeHTTP(w, r.WithContext(withHTTP(r.Context()))) // 405: 2026-07-28 has no GET stream
			return
		}
		_ = rc.SetReadDeadline(time.Time{}) // lift it
		e.serveStream(w, r)
	case http.MethodDelete:
		if isModern(r.Header, nil) {
			e.next.ServeHTTP(w, r.WithContext(withHTTP(r.Context()))) // 405: 2026-07-28 has no sessions to end
			return
		}
		hs, ok := e.session(w, r, nil)
		if !ok || !e.p.end(r.Context(), w, hs) {
			return
		}
		// mcp-go drops the session's transport state and answers 200.
		e.next.ServeHTTP(w, r.WithContext(withHTTPSession(r.Context(), hs)))
	default:
		e.next.ServeHTTP(w, r.WithContext(withHTTP(r.Context())))
	}
}

// session verifies the request's session id, answering the refusal.
// into is as for verify.
func (e *endpoint) session(w http.ResponseWriter, r *http.Request, into *httpSession) (*httpSession, bool) {
	hs, serr := e.p.verify(r.Context(), r.Header.Get(mcpserver.HeaderKeySessionID), roleFrom(r.Context()), httpPrincipal(r.Context()), into)
	if serr != nil {
		e.s.log.Debug("http: session refused", "method", r.Method, "status", serr.status, "why", serr.text, "remote", r.RemoteAddr)
		http.Error(w, serr.text, serr.status)
		return nil, false
	}
	return hs, true
}

// serveStream serves a GET event stream of a verified session; it ends
// when the session does (DELETE) or its id expires.
func (e *endpoint) serveStream(w http.ResponseWriter, r *http.Request) {
	hs, ok := e.session(w, r, nil)
	if !ok {
		return
	}
	ctx, open := e.p.track(withHTTPSession(r.Context(), hs), hs.id.Key)
	defer open.done()
	ctx, cancel := context.WithDeadline(ctx, hs.id.Expires)
	defer cancel()
	if r.Header.Get("Last-Event-ID") == "" {
		// The session's listening stream (a resume is not one), once
		// mcp-go accepts it (transport/listen.go).
		w = &transport.ListenWriter{ResponseWriter: w, Opened: func() { e.p.listening.Opened(hs.id.Key, hs.id.Expires) }}
	}
	e.next.ServeHTTP(w, r.WithContext(ctx))
}

// readBody reads a POST body before the read deadline, answering a
// refusal (transport.ReadBody) and logging a body that did not arrive in
// time.
func (e *endpoint) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := transport.ReadBody(w, r, e.readTimeout, EnvHTTPReadTimeout)
	if err != nil && transport.IsTimeout(err) {
		e.s.log.Debug("http: request body not received in time", "remote", r.RemoteAddr, "read", len(body), "timeout", e.readTimeout)
	}
	return body, err == nil
}

// routes serves the MCP endpoint at EndpointPath and, with OAuth, the
// protected resource metadata at its well-known paths (public: it tells
// a client where to get a token).
func routes(auth Auth, endpoint http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, endpoint)
	if v := auth.OAuth; v != nil {
		meta := ResourceMetadataHandler(v)
		for _, p := range ResourceMetadataPaths(v.Audience()) {
			mux.Handle(p, meta)
		}
	}
	return mux
}

// ListenAndServeHTTP serves streamable HTTP on opts.Addr until ctx is
// cancelled, then shuts down gracefully. It refuses a non-loopback address
// without a token (CheckListenAddr).
func (s *Server) ListenAndServeHTTP(ctx context.Context, opts HTTPOptions) error {
	if err := CheckListenAddr(opts.Addr, opts.Auth); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Addr, err)
	}
	readTimeout := cmp.Or(opts.ReadTimeout, defaultReadTimeout)
	hs := &http.Server{
		ReadHeaderTimeout: readHeaderTimeout,
		// ReadTimeout bounds every request, also those the endpoint never
		// sees (another path, whose body net/http would otherwise drain
		// without a deadline); the endpoint lifts it once a body is in.
		ReadTimeout: readTimeout,
		IdleTimeout: idleTimeout,
		ErrorLog:    log.New(slogWriter{s.log.With("component", "net/http")}, "", 0),
	}
	handler, streamable := s.httpHandler(opts.Auth, hs, readTimeout)
	hs.Handler = routes(opts.Auth, handler)

	roles := "no token: full access on loopback"
	switch {
	case opts.Auth.Token != "" && opts.Auth.ReadToken != "":
		roles = "full and read tokens"
	case opts.Auth.Token != "":
		roles = "full token"
	case opts.Auth.ReadToken != "":
		roles = "read token only"
	}
	if v := opts.Auth.OAuth; v != nil {
		roles = "OAuth (" + strings.Join(v.Issuers(), ", ") + "), static tokens: " + roles
		if !opts.Auth.hasStatic() {
			roles = "OAuth (" + strings.Join(v.Issuers(), ", ") + ")"
		}
		s.log.Info("oauth resource server", "resource", v.Audience(), "metadata", ResourceMetadataURL(v.Audience()))
	}
	s.log.Info("vox-mcp serving streamable HTTP", "url", "http://"+ln.Addr().String()+EndpointPath, "auth", roles, "root", s.root)
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}

	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		stopped <- streamable.Shutdown(sctx)
	}()
	err = hs.Serve(ln)
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err := <-stopped; err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			s.log.Warn("http: calls still running after the shutdown grace period were cut off", "grace", shutdownGrace)
			return nil
		}
		return err
	}
	return nil
}
