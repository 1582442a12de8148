// Package server is the MCP plane of vox-mcp: it registers every tool the
// product serves with mcp-go — the catalog tools of the catalog it is
// given, the workspace tools written in Vox, the skill macro tools —
// behind one tool middleware (recovery, and the one ordered list of checks
// on a call of call_checks.go), decides what tools/list advertises with an
// AfterListTools hook, and serves stdio and streamable HTTP (http.go, with
// bearer tokens and the read role in auth.go, and signed session ids, the
// revoked set and the per-session state in sessions.go).
//
// The server knows no catalog tool: it is built from an untyped table of
// rows (Options.Catalog) and handlers (Options.Handlers), and never
// imports generated code (docs/architecture.md). cmd/vox-mcp passes the
// generated tables, the workspace snapshot and the typed handlers adapted
// by the generated catalog.Bind; handlers reach the server through
// Services.
//
// Conventions for the files of this package:
//   - every source of tools contributes toolEntry values; syncTools merges
//     them (catalog wins, then workspace, then skills), re-registers with
//     mcp-go only when a definition changed, and rebuilds the search index;
//   - handler failures are error results (isError), never Go errors that
//     mcp-go would turn into JSON-RPC -32603.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/session"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/internal/tasks"
	"github.com/vox-lang/vox-mcp/internal/telemetry"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// Name is the server name announced at initialize.
const Name = "vox-mcp"

// Options configure a Server.
type Options struct {
	// Root is the workspace root; "" means the working directory.
	Root string
	// Consent decides what the workspace's calls may do beyond reading
	// it (docs/security.md, "Consent: a repository grants itself
	// nothing"): the powers its scan config asks for once vox trust
	// recorded them, and the operator's --allow-env and --allow-write.
	// Nil grants nothing.
	Consent *workspace.Consent
	// Logger receives the server's logs; nil means a discarding logger.
	Logger *slog.Logger
	// Catalog is the compiled catalog to serve; nil means none.
	Catalog *registry.Catalog
	// Handlers builds the handler table of the catalog's tools once the
	// server's services exist; nil means no handlers (every catalog tool
	// answers with an error result).
	Handlers HandlerTable
	// AllowNetwork meets the "network" requirement
	// (VOX_MCP_ALLOW_NETWORK=1).
	AllowNetwork bool
	// Skills says where skills live; nil means the standard roots under
	// Root and the user's home, or VOX_SKILL_ROOTS.
	Skills *skills.Config
	// SkillSandboxOff runs vox_skill_run without isolation
	// (VOX_SKILL_SANDBOX=off), with a warning on every run.
	SkillSandboxOff bool
	// SkillSandbox says how vox_skill_run uses the host: what it requires
	// and where cgroups are mounted (sandbox.ConfigFromEnv reads
	// VOX_SKILL_SANDBOX_REQUIRE and VOX_SKILL_CGROUP_ROOT).
	SkillSandbox sandbox.Config
	// WorkspaceTools advertises the workspace tools in tools/list (see
	// WorkspaceToolsAdvertised); they are callable by name either way.
	WorkspaceTools bool
	// Snapshot is the generated workspace snapshot to start from when it
	// describes Root; nil means none (the first scan fills the surface).
	Snapshot *workspace.Snapshot
	// SurfaceCacheDir is the folder of the surface cache
	// (workspace_cache.go): the descriptors of each root's last scan,
	// served at the next start until its first scan ends when they still
	// describe the workspace. "" caches nothing. It must lie outside
	// every workspace.
	SurfaceCacheDir string
	// Surface, when set, is a fixed workspace surface served instead of
	// scanning Root (the app binaries of "vox gen app"); Snapshot is then
	// ignored and refreshes fail.
	Surface *workspace.Surface
	// Name is announced at initialize; "" means Name (vox-mcp).
	Name string
	// Instructions are announced at initialize; "" means vox-mcp's.
	Instructions string
	// NoSkills serves no skills (no skill tools' data, no skill://
	// resources, no macro tools): the app binaries of "vox gen app".
	NoSkills bool
	// SessionKeys sign the HTTP session ids (VOX_MCP_SESSION_KEY, see
	// SessionConfigFromEnv): the first signs, all verify. nil means a key
	// generated for this server, so its ids die with it.
	SessionKeys [][]byte
	// SessionLifetime is how long a session id is valid; 0 means
	// session.Lifetime (24h).
	SessionLifetime time.Duration
	// EventStore records the SSE events of HTTP sessions for resumption
	// (Last-Event-ID); nil means a bounded in-memory store
	// (session.NewMemoryEventStore with its default bounds).
	EventStore session.EventStore
	// SharedStore, when set, is fleet mode (--store; internal/fleet): the
	// per-session state and the revoked set live in it, shared by every
	// instance, and refreshes are announced through it. It requires
	// SessionKeys. nil keeps both in this instance's memory.
	SharedStore SharedStore
	// Metrics, when set, records the requests, sessions, skill runs and
	// refreshes (internal/telemetry, metrics.go); nil records nothing.
	Metrics *telemetry.Metrics
	// Tracing, when set, makes a span of every request and of the work
	// under it (internal/telemetry, tracing.go); nil makes none.
	Tracing *telemetry.Tracing
	// ReturnStartupMemory returns the heap that the start-up work freed to
	// the operating system once that work has ended (startup_memory.go):
	// the command sets it; tests, which start many servers in one
	// process, leave it off.
	ReturnStartupMemory bool
	// Audit, when set, receives one line per tool call, resource read,
	// prompt get, skill activation and skill run (audit.go,
	// docs/security.md "Audit trail"); nil audits nothing. The caller
	// closes it after the server stopped.
	Audit *audit.Log
	// Tasks keeps the durable tasks (docs/tasks.md): in fleet mode the
	// fleet's store, so that any instance answers for them; nil means an
	// in-memory store of this process.
	Tasks tasks.Store
}

// Server is one vox-mcp instance.
type Server struct {
	opts     Options
	services *Services
	root     string
	log      *slog.Logger
	mcp      *mcpserver.MCPServer
	catalog  []toolEntry

	// syncMu serialises syncTools; tools is the merged set it published.
	syncMu sync.Mutex
	tools  atomic.Pointer[toolSet]
	// registered is the set mcp-go has, which the next sync changes (nil
	// before the first and after mcp-go refused one: it registers all).
	registered *btree.BTreeG[namedEntry]
	// lastPlain and lastSkills are the entries of the sources other than
	// the workspace and of the skills at the last sync, by name.
	lastPlain     []map[string]*toolEntry
	lastSkills    map[string]*toolEntry
	catalogByName map[string]*toolEntry
	// listed is the set mcp-go has registered, whose prepared tools/list
	// the shim answers (tools_list.go); nil after a registration failed.
	// listMu is held while one is under way.
	listMu sync.RWMutex
	listed atomic.Pointer[toolSet]

	// sources contribute tools besides the catalog (workspace, skills).
	sources []toolSource
	// requirements evaluate the catalog's mcp.requires at call time.
	requirements map[string]func() (bool, string)
	// skills is the skills system: registry, resources, macro tools and
	// the allowlist of the active skill (skills.go).
	skills *skillPlane
	// sessions are the session ids, the revoked set and the per-session
	// state, the active skill among it (sessions.go).
	sessions *sessionPlane
	// tasks run and answer for the durable tasks (tasks.go).
	tasks *taskPlane
	// audit writes the audit trail's lines of the plane (audit.go).
	audit *auditor

	// workspace serves the .vox tools and resources (workspace.go).
	workspace *workspaceSource
	// expanded are the subscribed URIs that a workspace resource template
	// expands (subscriptions.go).
	expanded expandedSubscriptions
	// resourceSources contribute resources; resMu serialises
	// syncResources and registeredResources is what mcp-go has.
	resourceSources     []resourceSource
	resMu               sync.Mutex
	registeredResources map[string]mcp.Resource
	// registeredTemplates are the workspace resource templates mcp-go
	// has (resource_templates.go), by URI template; resMu guards them.
	registeredTemplates map[string]registeredTemplate

	// promptSources contribute prompts (workspace first, then skills);
	// promptMu serialises syncPrompts, registeredPrompts is what mcp-go
	// has and promptOrigins the source of each served prompt, for the
	// read role (prompts.go).
	promptSources     []promptSource
	promptMu          sync.Mutex
	registeredPrompts map[string]promptEntry
	promptOrigins     atomic.Pointer[map[string]string]

	// httpAuth is set when the HTTP endpoint requires tokens, so that a
	// full-access request is token:full, not anonymous (principal.go).
	httpAuth atomic.Bool

	// stdioServed is 1 while ServeStdio serves (vox.mcp.sessions.open,
	// metrics.go).
	stdioServed atomic.Int32
}

// New builds a server: the catalog tools with their handlers, the
// visibility hook and the middleware chain. It does not start serving.
func New(opts Options) (*Server, error) {
	root := opts.Root
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.Catalog == nil {
		opts.Catalog = &registry.Catalog{}
	}
	s := &Server{opts: opts, root: abs, log: logger}
	s.audit = &auditor{trail: opts.Audit, s: s}
	s.tasks = newTaskPlane(s, opts.Tasks)

	hooks := &mcpserver.Hooks{}
	// A task's notifications reach the session that created it
	// (tasks_notify.go).
	hooks.AddOnRegisterSession(s.tasks.sessionRegistered)
	hooks.AddOnUnregisterSession(s.tasks.sessionUnregistered)
	hooks.AddAfterListTools(s.hideUnadvertised)
	// A served surface-cache record is checked once the tools were listed
	// (workspace.go).
	hooks.AddAfterListTools(s.toolsListed)
	// The skill file template is advertised, not registered (completion.go).
	hooks.AddAfterListResourceTemplates(s.listSkillTemplate)
	// The HTTP read role may send only some requests (auth.go).
	hooks.AddOnRequestInitialization(s.readRoleRequest)
	// Calls of workspace tools wait for the first scan (workspace.go).
	hooks.AddOnRequestInitialization(s.waitFirstScan)
	// logging/setLevel (logging.go) and resources/subscribe
	// (subscriptions.go) are kept per session.
	hooks.AddOnRequestInitialization(s.recordSessionState)
	// The version an HTTP session negotiated decides on priming events
	// (shim_events.go, transport/events.go).
	hooks.AddAfterInitialize(s.recordProtocolVersion)
	// A call of a tool no tool has is answered before the middleware
	// (audit.go).
	hooks.AddOnError(s.audit.unknownTool)
	// Under 2026-07-28 tasks are an extension (tasks_modern.go).
	hooks.AddAfterDiscover(hideTasksCapability)
	// Every request mcp-go serves is timed when metrics are on (metrics.go).
	addMetricsHooks(hooks, opts.Metrics)
	// And traced when traces are on (tracing.go).
	addTracingHooks(hooks, opts.Tracing)
	name := opts.Name
	if name == "" {
		name = Name
	}
	s.mcp = mcpserver.NewMCPServer(name, buildinfo.Version(), append([]mcpserver.ServerOption{
		mcpserver.WithToolCapabilities(true),
		mcpserver.WithResourceCapabilities(true, true),
		mcpserver.WithLogging(),
		mcpserver.WithPromptCapabilities(true),
		mcpserver.WithPromptFilter(s.readRolePrompts),
		mcpserver.WithCompletions(),
		mcpserver.WithPromptCompletionProvider(completer{s}),
		mcpserver.WithResourceCompletionProvider(completer{s}),
		mcpserver.WithHooks(hooks),
		mcpserver.WithToolHandlerMiddleware(s.middleware),
		mcpserver.WithResourceHandlerMiddleware(s.audit.resources),
		mcpserver.WithPromptHandlerMiddleware(s.audit.prompts),
		mcpserver.WithInstructions(cmp.Or(opts.Instructions, instructions)),
		// skills/list and skills/get are served by the shim (shim_skills.go).
		mcpserver.WithExtensions(shimExtensions(opts)),
		// Declared for initialize; the shim serves the tasks from the
		// task store, never mcp-go's own map (tasks.go).
		mcpserver.WithTaskCapabilities(true, true, true),
	}, tracingOptions(opts.Tracing)...)...,
	)
	s.requirements = s.defaultRequirements()

	if s.sessions, err = newSessionPlane(s, opts); err != nil {
		return nil, err
	}
	s.services = &Services{s: s}
	var table map[string]toolcall.Handler
	if opts.Handlers != nil {
		table = opts.Handlers(s.services)
	}
	if s.catalog, err = s.bindCatalog(opts.Catalog, table); err != nil {
		return nil, err
	}
	s.catalogByName = make(map[string]*toolEntry, len(s.catalog))
	for i := range s.catalog {
		if _, taken := s.catalogByName[s.catalog[i].tool.Name]; !taken {
			s.catalogByName[s.catalog[i].tool.Name] = &s.catalog[i]
		}
	}
	if !opts.NoSkills {
		s.initSkills()
	}
	s.workspace = newWorkspaceSource(s, opts.WorkspaceTools)
	s.sources = append(s.sources, s.workspace)
	s.resourceSources = append(s.resourceSources, s.workspace)
	// Workspace prompts come first: one shadows the skill prompt of its
	// name (syncPrompts). The sources are complete before the first scan
	// starts, which syncs the prompts from its goroutine.
	s.promptSources = append(s.promptSources, s.workspace)
	if s.skills != nil {
		s.promptSources = append(s.promptSources, s.skills)
	}
	switch {
	case opts.Surface != nil:
		s.workspace.fix(opts.Surface)
	default:
		// The snapshot (when it describes the root) is installed before
		// the first registration; the scan runs in the background.
		s.workspace.start(opts.Snapshot)
	}
	if err := s.syncTools(); err != nil {
		return nil, err
	}
	s.syncResources()
	if s.skills != nil {
		s.skills.scheduleSelfTest()
	}
	s.syncPrompts()
	s.sessions.joinFleet()
	opts.Metrics.SetOpenSessions(s.openSessions)
	return s, nil
}

const instructions = "vox-mcp serves this repository's tools. Use vox_tool_search to find a tool " +
	"(also workspace tools that tools/list does not advertise) and call it by name."

// MCP returns the underlying mcp-go server (for transports and tests).
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

// Root is the absolute workspace root.
func (s *Server) Root() string { return s.root }

// Services is what the server offers the handlers of catalog tools (the
// same value Options.Handlers received).
func (s *Server) Services() *Services { return s.services }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// StdioWorkers is the number of tool calls served at once over stdio
// (mcp-go's default is 5).
const StdioWorkers = 32

// ServeStdio serves the MCP protocol on in and out until in is closed or
// ctx is cancelled. mcp-go's stdio session is a process-wide singleton: at
// most one ServeStdio may run per process.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	st := mcpserver.NewStdioServer(s.mcp)
	mcpserver.WithWorkerPoolSize(StdioWorkers)(st)
	mcpserver.WithQueueSize(4 * StdioWorkers)(st)
	st.SetErrorLogger(log.New(slogWriter{s.log}, "", 0))
	// The process is the stdio session (metrics.go).
	s.opts.Metrics.SessionStarted("pipe")
	s.stdioServed.Store(1)
	defer s.stdioServed.Store(0)
	// The shim (shim_stdio.go) reads the input before mcp-go does.
	err := s.listenStdio(ctx, st, in, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// slogWriter adapts mcp-go's *log.Logger output to slog at error level.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Error(strings.TrimSpace(string(p)), "component", "mcp-go")
	return len(p), nil
}

// NewLogger returns a text logger on w at the level named by level
// ("debug", "info", "warn", "error"; "" means info), as VOX_LOG sets it.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "", "info":
		l = slog.LevelInfo
	case "debug":
		l = slog.LevelDebug
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return slog.New(slog.NewTextHandler(w, nil)), fmt.Errorf("VOX_LOG=%q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// EnvTrue reports whether an environment variable holds an enabling value
// (1, true, yes; case-insensitive).
func EnvTrue(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "1", "true", "yes":
		return true
	}
	return false
}
