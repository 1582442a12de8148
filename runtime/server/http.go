package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// EndpointPath is the path of the streamable HTTP endpoint.
const EndpointPath = "/mcp"

// HTTP transport limits.
const (
	// maxRequestBody bounds one POST body: far above any real call (a
	// 10 MB argument still reaches the tool, which answers with an error
	// result), low enough that one request cannot exhaust memory.
	maxRequestBody = 64 << 20
	// sessionIdleTTL is how long the transport keeps a session's state
	// (its registration for notifications) after its last request when the
	// client never ends it with DELETE. A day, so that an agent left open
	// overnight still receives list_changed on its GET stream.
	sessionIdleTTL = 24 * time.Hour
	// shutdownGrace bounds how long a stopping server waits for calls in
	// flight.
	shutdownGrace = 5 * time.Second
)

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
}

// CheckListenAddr refuses to serve a non-loopback address without a token:
// anyone who can reach it could call every tool. Loopback means localhost,
// 127.0.0.0/8 or ::1; an empty host (":8080") listens on every interface
// and is not loopback.
func CheckListenAddr(addr string, auth Auth) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want HOST:PORT, for example 127.0.0.1:8080 (%v)", addr, err)
	}
	if isLoopback(host) || auth.Enabled() {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return fmt.Errorf("refusing to listen on %s (%s) without a token: it is not a loopback address, so anyone who can reach it could call every tool; "+
		"set %s (full access) and/or %s (read role), or listen on a loopback address such as 127.0.0.1:%s",
		addr, where, EnvToken, EnvReadToken, portOf(addr))
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// isLoopback reports whether a listen host is loopback: "localhost", an
// address in 127.0.0.0/8, or ::1 (IPv4-mapped forms included).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// HTTPHandler is the streamable HTTP endpoint with authentication, for
// tests and for embedding under another mux (serve it at EndpointPath).
// Sessions use mcp-go's default StatelessGeneratingSessionIdManager:
// initialize mints an Mcp-Session-Id that every instance accepts without a
// lookup, so instances behind a load balancer interoperate; the active
// skill is the only per-session state, so routing must be sticky on
// Mcp-Session-Id for it to follow a client. mcp-go's DNS-rebinding
// protection stays on: a request that reaches a loopback listener with a
// Host other than localhost gets 403.
func (s *Server) HTTPHandler(auth Auth) http.Handler {
	h, _ := s.httpHandler(auth, nil)
	return h
}

func (s *Server) httpHandler(auth Auth, hs *http.Server) (http.Handler, *mcpserver.StreamableHTTPServer) {
	opts := []mcpserver.StreamableHTTPOption{
		mcpserver.WithStreamableHTTPLogger(s.log.With("component", "mcp-go")),
		mcpserver.WithSessionIdleTTL(sessionIdleTTL),
	}
	if hs != nil {
		// Shutdown of the streamable server then also ends the long-lived
		// GET streams before stopping hs, which would otherwise wait for them.
		opts = append(opts, mcpserver.WithStreamableHTTPServer(hs))
	}
	streamable := mcpserver.NewStreamableHTTPServer(s.mcp, opts...)
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		streamable.ServeHTTP(w, r)
	})
	return s.requireToken(auth, limited), streamable
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
	hs := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(slogWriter{s.log.With("component", "net/http")}, "", 0),
	}
	handler, streamable := s.httpHandler(opts.Auth, hs)
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, handler)
	hs.Handler = mux

	roles := "no token: full access on loopback"
	switch {
	case opts.Auth.Token != "" && opts.Auth.ReadToken != "":
		roles = "full and read tokens"
	case opts.Auth.Token != "":
		roles = "full token"
	case opts.Auth.ReadToken != "":
		roles = "read token only"
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
