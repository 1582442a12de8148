// Command vox-mcp is the MCP server of a repository: it serves the catalog
// tools compiled into it, the repository's workspace tools written in Vox,
// and the installed Agent Skills, over stdio (default) or streamable HTTP.
//
// Usage:
//
//	vox-mcp [--root DIR] [--http ADDR [--store URL] [--auth-issuer URL]... [--auth-audience URI] [--auth-introspect URL]]
//	        [--workspace-tools] [--watch]
//	        [--allow-env NAME]... [--allow-write GLOB]... [--audit FILE]
//	        [--metrics ADDR [--metrics-allow-remote]] [--version]
//
// The workspace root is the working directory unless --root names another;
// without --root, a working directory that is the root of a file system or
// the home folder (where desktop clients start servers) is refused with
// exit 2 and a message on how to configure the client.
// The powers a workspace's scan config asks for (env_allow, write_globs)
// are granted only once the person ran `vox trust DIR` for what it asks
// now; --allow-env and --allow-write grant directly (docs/security.md,
// Consent).
// Workspace tools (the .vox files the root's scan config selects) are
// callable by name and found by vox_tool_search; --workspace-tools (or
// VOX_MCP_WORKSPACE_TOOLS=1) also advertises them in tools/list. --watch
// refreshes them when their files change; vox_workspace_mcp_refresh does it
// on demand.
// Logs go to stderr; VOX_LOG sets the level (debug, info, warn, error).
// --audit FILE (or VOX_MCP_AUDIT) appends the audit trail to FILE: one JSON
// line per tool call, resource read, prompt get, skill activation and
// skill run, with no argument value; it is rotated past --audit-max-size
// bytes, keeping --audit-keep old files.
//
// With --http HOST:PORT the server speaks streamable HTTP at
// http://HOST:PORT/mcp instead of stdio. VOX_MCP_TOKEN (full access) and
// VOX_MCP_READ_TOKEN (read role) require Authorization: Bearer <token> on
// every request; without a token the server listens only on loopback
// addresses (localhost, 127.0.0.0/8, ::1). --auth-issuer URL (or
// VOX_MCP_AUTH_ISSUER) makes the server an OAuth resource server beside
// the static tokens: it accepts JWT access tokens of that authorization
// server whose aud is --auth-audience (default http://ADDR/mcp), with
// scope vox:full or vox:read, and serves its protected resource metadata
// at /.well-known/oauth-protected-resource; --auth-introspect URL (one of
// the issuers) checks opaque tokens at that issuer's introspection
// endpoint with the credentials of VOX_MCP_AUTH_CLIENT_ID and
// VOX_MCP_AUTH_CLIENT_SECRET. initialize mints a signed
// Mcp-Session-Id, bound to the principal of the request's token, that
// lasts VOX_MCP_SESSION_LIFETIME (default 24h) and
// that every instance sharing VOX_MCP_SESSION_KEY (32 bytes or more; one
// is generated at start-up when unset) accepts; DELETE ends it. A request
// body must arrive within VOX_MCP_HTTP_READ_TIMEOUT (default 30s).
// --store redis://HOST:PORT/DB (Redis or Valkey; needs VOX_MCP_SESSION_KEY)
// is fleet mode: the session state and the revoked ids live in that store,
// shared by every instance, and refreshes reach every instance, so a load
// balancer needs no stickiness.
//
// --metrics HOST:PORT serves Prometheus metrics at http://HOST:PORT/metrics
// on a listener of its own, loopback only unless --metrics-allow-remote;
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
// exports the same metrics over OTLP/HTTP, with OpenTelemetry's other
// standard variables (OTEL_SERVICE_NAME, ...), and a span of every request
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alike; OTEL_TRACES_EXPORTER=none
// keeps the metrics alone). Without either, no metrics or spans are kept.
//
// Skills are found in the workspace's and the user's .vox, .cursor, .agents
// and .claude skills folders and the workspace's assets/skills, or in the
// folders of VOX_SKILL_ROOTS. vox_skill_run isolates commands with Linux
// namespaces, rlimits, cgroups where writable, seccomp and Landlock where
// the kernel has it; VOX_SKILL_SANDBOX_REQUIRE=cgroups,landlock refuses to
// run commands without those, VOX_SKILL_CGROUP_ROOT says where cgroups are
// mounted, and VOX_SKILL_SANDBOX=off runs commands without isolation
// (warned on every run). VOX_MCP_ALLOW_NETWORK=1 allows network tools,
// among them vox_skill_add from a git URL.
package main

import (
	"io"
	"os"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
)

func main() {
	// vox_skill_run re-executes this binary as the sandbox init, which must
	// take over before any other start-up code runs.
	sandbox.MaybeRunInit()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole server command behind main, so tests drive it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return serve(args, stdin, stdout, stderr)
}
