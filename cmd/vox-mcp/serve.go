package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/vox-lang/vox-mcp/cmd/vox-mcp/handlers"
	"github.com/vox-lang/vox-mcp/generated/catalog"
	generatedworkspace "github.com/vox-lang/vox-mcp/generated/workspace"
	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/fleet"
	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/internal/session"
	"github.com/vox-lang/vox-mcp/internal/tasks"
	"github.com/vox-lang/vox-mcp/internal/telemetry"
	"github.com/vox-lang/vox-mcp/internal/trust"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// serve parses the server's flags and serves stdio until stdin closes, or
// streamable HTTP (--http), until the process is interrupted.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cliutil.NewFlagSet("vox-mcp", stderr)
	showVersion := fs.Bool("version", false, "print the version and commit, then exit")
	root := fs.String("root", "", "workspace root (default: the working directory)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (HOST:PORT, endpoint /mcp) instead of stdio")
	workspaceTools := fs.Bool("workspace-tools", false, "advertise the workspace tools in tools/list (also VOX_MCP_WORKSPACE_TOOLS=1); they are callable by name either way")
	watch := fs.Bool("watch", false, "refresh the workspace tools when .vox files or the scan config change, and reload a skill when its folder changes")
	storeURL := fs.String("store", "", "with --http: keep the session state and the revoked set in the Redis or Valkey at `URL` (redis://HOST:PORT/DB), shared by every instance (fleet mode; needs "+server.EnvSessionKey+")")
	auditPath := fs.String("audit", os.Getenv("VOX_MCP_AUDIT"), "append one JSON line per tool call, resource read, prompt get, skill activation and skill run to `FILE` (created 0600, rotated by size; also VOX_MCP_AUDIT)")
	auditMaxSize := fs.Int64("audit-max-size", audit.DefaultMaxSize, "rotate the --audit file once it would pass `BYTES`")
	auditKeep := fs.Int("audit-keep", audit.DefaultKeep, "keep `N` rotated --audit files (FILE.1 newest .. FILE.N)")
	var operator trust.Operator
	fs.Var((*cliutil.Strings)(&operator.Env), "allow-env", "let env.get read the variable `NAME`, whatever vox trust recorded: the operator's grant, for CI and containers (repeatable)")
	fs.Var((*cliutil.Strings)(&operator.Write), "allow-write", "let fs.write write the workspace paths matching `GLOB`, protected ones (.git, .vox files, the scan config, ...) included, whatever vox trust recorded (repeatable)")
	var authIssuers []string
	fs.Var((*cliutil.Strings)(&authIssuers), "auth-issuer", "with --http: accept the OAuth access tokens (JWTs) of the authorization server `URL` (repeatable; also "+oauth.EnvIssuer+")")
	authAudience := fs.String("auth-audience", "", "with --auth-issuer: this server's canonical resource `URI`, the URL clients use (default http://ADDR/mcp from --http; also "+oauth.EnvAudience+")")
	authIntrospect := fs.String("auth-introspect", "", "with --auth-issuer: send the access tokens that are not JWTs to the introspection endpoint of the issuer `URL` (RFC 7662; credentials from "+oauth.EnvClientID+" and "+oauth.EnvClientSecret+"; also "+oauth.EnvIntrospect+")")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (HOST:PORT, loopback unless --metrics-allow-remote; OTLP export is configured by OTEL_EXPORTER_OTLP_ENDPOINT)")
	metricsRemote := fs.Bool("metrics-allow-remote", false, "let --metrics listen on a non-loopback address")
	limits := addLimitFlags(fs)
	rest, err := cliutil.Parse(fs, args)
	if err != nil {
		if cliutil.IsHelp(err) {
			return cliutil.ExitOK
		}
		return cliutil.ExitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "vox-mcp: unexpected argument %q\n", rest[0])
		return cliutil.ExitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Line("vox-mcp"))
		return cliutil.ExitOK
	}
	if err := limits.apply(); err != nil {
		fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
		return cliutil.ExitUsage
	}
	if err := checkStartDir(*root); err != nil {
		fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
		return cliutil.ExitUsage
	}
	auth := server.AuthFromEnv(os.Getenv)
	if auth.OAuth, err = oauthValidator(*httpAddr, authIssuers, *authAudience, *authIntrospect); err != nil {
		fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
		return cliutil.ExitUsage
	}
	var sessionKeys [][]byte
	var sessionLifetime, readTimeout time.Duration
	if *httpAddr != "" {
		// Refuse an unsafe address or setting before anything starts.
		if err := server.CheckListenAddr(*httpAddr, auth); err != nil {
			fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
			return cliutil.ExitUsage
		}
		if sessionKeys, sessionLifetime, err = server.SessionConfigFromEnv(os.Getenv); err == nil {
			readTimeout, err = server.ReadTimeoutFromEnv(os.Getenv)
		}
		if err != nil {
			fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
			return cliutil.ExitUsage
		}
	}
	if *metricsAddr != "" {
		if err := telemetry.CheckAddr(*metricsAddr, *metricsRemote); err != nil {
			fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
			return cliutil.ExitUsage
		}
	}
	if *storeURL != "" && (*httpAddr == "" || len(sessionKeys) == 0) {
		msg := server.ErrStoreNeedsKey.Error()
		if *httpAddr == "" {
			msg = "--store shares the sessions of HTTP instances: use it with --http ADDR (over stdio the process is the session)"
		}
		fmt.Fprintf(stderr, "vox-mcp: %s\n", msg)
		return cliutil.ExitUsage
	}
	logger, err := server.NewLogger(stderr, os.Getenv("VOX_LOG"))
	if err != nil {
		logger.Warn(err.Error())
	}
	var auditLog *audit.Log
	if *auditPath != "" {
		if *auditMaxSize <= 0 || *auditKeep <= 0 {
			fmt.Fprintf(stderr, "vox-mcp: --audit-max-size and --audit-keep want positive numbers\n")
			return cliutil.ExitUsage
		}
		opts := audit.Options{MaxSize: *auditMaxSize, Keep: *auditKeep, Logger: logger.With("component", "audit")}
		if len(sessionKeys) > 0 {
			// Instances sharing VOX_MCP_SESSION_KEY hash a session alike.
			opts.SessionKey = audit.SessionKeyFrom(sessionKeys[0])
		}
		if auditLog, err = audit.Open(*auditPath, opts); err != nil {
			fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
			return cliutil.ExitUsage
		}
		defer auditLog.Close()
	}
	// Metrics (docs/metrics.md): nil, and no SDK initialised,
	// unless --metrics or OTEL_EXPORTER_OTLP_*ENDPOINT asks for them.
	metrics, err := telemetry.Start(context.Background(), telemetry.Config{
		PrometheusAddr: *metricsAddr,
		AllowRemote:    *metricsRemote,
		Getenv:         os.Getenv,
		ServiceVersion: buildinfo.Version(),
		Logger:         logger.With("component", "metrics"),
	})
	if err != nil {
		fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
		return cliutil.ExitProblem
	}
	if metrics != nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := metrics.Shutdown(ctx); err != nil {
				logger.Warn("metrics: the last export failed", "err", err)
			}
		}()
		if a := metrics.Addr(); a != nil {
			logger.Info("vox-mcp serving metrics", "url", "http://"+a.String()+telemetry.MetricsPath)
		}
	}
	// Traces (docs/metrics.md §4): nil, and no SDK initialised, unless
	// OTEL_EXPORTER_OTLP_*ENDPOINT asks for them.
	tcfg := telemetry.Config{Getenv: os.Getenv, ServiceVersion: buildinfo.Version(), Logger: logger.With("component", "traces")}
	if len(sessionKeys) > 0 {
		// The spans' session hash is the audit trail's (docs/security.md,
		// "Audit trail"): one key derived from the fleet's secret.
		tcfg.SessionKey = audit.SessionKeyFrom(sessionKeys[0])
	}
	tracing, err := telemetry.StartTracing(context.Background(), tcfg)
	if err != nil {
		fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
		return cliutil.ExitProblem
	}
	if tracing != nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tracing.Shutdown(ctx); err != nil {
				logger.Warn("traces: the last export failed", "err", err)
			}
		}()
	}
	var shared server.SharedStore
	var events session.EventStore
	var taskStore tasks.Store
	if *storeURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		store, err := fleet.Open(ctx, fleet.Options{URL: *storeURL, Logger: logger.With("component", "fleet")})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "vox-mcp: %v\n", err)
			return cliutil.ExitProblem
		}
		defer store.Close()
		shared = store
		// Resumable streams too: Last-Event-ID works on any instance.
		events = store.Events(cmp.Or(sessionLifetime, session.Lifetime))
		// Durable tasks too: any instance answers for them (docs/tasks.md).
		taskStore = store.Tasks(taskLease(logger))
	}
	srv, err := server.New(server.Options{
		Catalog:         catalog.Catalog,
		Handlers:        handlers.Table,
		Snapshot:        generatedworkspace.Snapshot,
		SurfaceCacheDir: surfaceCacheDir(logger),
		Root:            *root,
		Consent:         workspace.DefaultConsent(operator, nil),
		Logger:          logger,
		AllowNetwork:    server.EnvTrue("VOX_MCP_ALLOW_NETWORK"),
		SkillSandboxOff: skillSandboxOff(logger),
		SkillSandbox:    sandbox.ConfigFromEnv(os.Getenv),
		WorkspaceTools:  server.WorkspaceToolsAdvertised(*workspaceTools, os.LookupEnv, logger),
		SessionKeys:     sessionKeys,
		SessionLifetime: sessionLifetime,
		SharedStore:     shared,
		EventStore:      events,
		Tasks:           taskStore,
		Metrics:         metrics,
		Tracing:         tracing,
		// One process, one server: the heap its start-up freed goes back
		// to the system once that work ends (docs/benchmarks.md).
		ReturnStartupMemory: true,
		Audit:               auditLog,
	})
	if err != nil {
		logger.Error("vox-mcp cannot start", "err", err)
		return cliutil.ExitProblem
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *watch {
		go func() {
			if err := srv.WatchWorkspace(ctx); err != nil {
				logger.Error("cannot watch the workspace; use vox_workspace_mcp_refresh", "err", err)
			}
		}()
		go func() {
			if err := srv.WatchSkills(ctx); err != nil {
				logger.Error("cannot watch the skill folders; a changed skill is read again at the next start", "err", err)
			}
		}()
	}
	if *httpAddr != "" {
		return serveHTTP(ctx, srv, server.HTTPOptions{Addr: *httpAddr, Auth: auth, ReadTimeout: readTimeout})
	}
	logger.Info("vox-mcp serving stdio", "root", srv.Root(), "version", buildinfo.Version())
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil {
		logger.Error("vox-mcp stopped", "err", err)
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// oauthValidator is the OAuth configuration of the flags, or else of
// VOX_MCP_AUTH_ISSUER, VOX_MCP_AUTH_AUDIENCE and VOX_MCP_AUTH_INTROSPECT;
// nil when no issuer is given. The audience defaults to the endpoint's
// URL on the listen address, which is the URL clients use only when they
// use that address. The introspection's credentials come from the
// environment only (docs/security.md, OAuth).
func oauthValidator(httpAddr string, issuers []string, audience, introspect string) (*oauth.Validator, error) {
	cfg := oauth.ConfigFromEnv(os.Getenv)
	if len(issuers) > 0 {
		cfg.Issuers = issuers
	}
	if audience != "" {
		cfg.Audience = audience
	}
	if introspect == "" && cfg.Introspect != nil {
		introspect = cfg.Introspect.Issuer
	}
	cfg.Introspect = nil
	if introspect != "" {
		cfg.Introspect = oauth.IntrospectionFromEnv(introspect, os.Getenv)
	}
	if len(cfg.Issuers) == 0 {
		switch {
		case cfg.Audience != "":
			return nil, errors.New("--auth-audience without --auth-issuer: give the authorization server's URL too")
		case cfg.Introspect != nil:
			return nil, errors.New("--auth-introspect without --auth-issuer: give the authorization server's URL too")
		}
		return nil, nil
	}
	if httpAddr == "" {
		return nil, errors.New("--auth-issuer protects the HTTP transport: use it with --http ADDR (over stdio the client started the process)")
	}
	if cfg.Audience == "" {
		host, port, err := net.SplitHostPort(httpAddr)
		if err != nil || host == "" || port == "0" || net.ParseIP(host).IsUnspecified() {
			return nil, fmt.Errorf("--http %s names no address clients use: give --auth-audience https://HOST/mcp, the URL of the endpoint as clients reach it", httpAddr)
		}
		cfg.Audience = "http://" + net.JoinHostPort(host, port) + server.EndpointPath
	}
	return oauth.New(cfg)
}

// serveHTTP serves streamable HTTP until ctx ends.
func serveHTTP(ctx context.Context, srv *server.Server, opts server.HTTPOptions) int {
	err := srv.ListenAndServeHTTP(ctx, opts)
	if err != nil {
		srv.Logger().Error("vox-mcp stopped", "err", err)
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// surfaceCacheDir is the folder of the surface cache
// (docs/federation.md §6): vox-mcp/surfaces in the user's cache folder
// ($XDG_CACHE_HOME, else ~/.cache), or none with
// VOX_MCP_SURFACE_CACHE=off or without a cache folder.
func surfaceCacheDir(logger *slog.Logger) string {
	if switchedOff(logger, "VOX_MCP_SURFACE_CACHE", "the surface cache stays on (set off to start without it)") {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		logger.Debug("no user cache folder: starting without the surface cache", "err", err)
		return ""
	}
	return filepath.Join(dir, "vox-mcp", "surfaces")
}

// skillSandboxOff reads VOX_SKILL_SANDBOX: "off" opts out of the sandbox
// (the server warns on every run).
func skillSandboxOff(logger *slog.Logger) bool {
	return switchedOff(logger, "VOX_SKILL_SANDBOX", "the sandbox stays on (set off to run skill commands without isolation)")
}

// switchedOff reads an on/off environment switch that defaults to on:
// "off" (any case, spaces around it ignored) is true; empty or "on" is
// false; anything else is false with a warning whose hint says what
// stays on, so a typo never turns a protection off.
func switchedOff(logger *slog.Logger, name, staysOn string) bool {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(name))); v {
	case "off":
		return true
	case "", "on":
	default:
		logger.Warn(name+" has an unrecognised value; "+staysOn, "value", v)
	}
	return false
}

// taskLease is the lease of this instance's tasks in fleet mode:
// VOX_MCP_TASK_LEASE (a Go duration, at least 1s), else
// tasks.DefaultLease (docs/tasks.md, "Leases").
func taskLease(logger *slog.Logger) time.Duration {
	v := os.Getenv("VOX_MCP_TASK_LEASE")
	if v == "" {
		return tasks.DefaultLease
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		logger.Warn("VOX_MCP_TASK_LEASE=" + v + " is not a duration of at least 1s (such as 15s); using " + tasks.DefaultLease.String())
		return tasks.DefaultLease
	}
	return d
}
