package vox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/vox-lang/vox-mcp/internal/vox/ask"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
)

// Limits bound one call (docs/vox-language.md, Limits). Zero means
// unlimited for Steps, Timeout and MaxAllocBytes (vox run --steps 0; a
// server never passes zero, see Maxima); a zero MaxDepth, MaxOutputBytes or
// MaxValueBytes means the default.
type Limits struct {
	Steps          int64
	MaxDepth       int
	Timeout        time.Duration
	MaxOutputBytes int64
	MaxValueBytes  int64
	MaxAllocBytes  int64 // the bytes of values one call may allocate in all
	// Wait bounds each wait of elicit() and sample() for the client's
	// answer, during which the other limits pause (wait_ms).
	Wait time.Duration
}

// DefaultLimits returns the defaults: 10,000,000 steps, call depth 256, 10
// s, 1 MiB of result, 16 MiB per value, 256 MiB allocated per call, 10
// minutes of waiting for each answer of the client.
func DefaultLimits() Limits {
	return Limits{Steps: 10_000_000, MaxDepth: 256, Timeout: 10 * time.Second, MaxOutputBytes: 1 << 20, MaxValueBytes: 16 << 20, MaxAllocBytes: 256 << 20, Wait: eval.DefaultWait}
}

// Maxima are the process-wide bounds of the interpreter, which belong to
// whoever runs it, not to the repository (docs/vox-language.md, Limits):
// the most a repository's scan config may set for each limit (it may only
// lower them), how many calls run at once, and after how many allocated
// bytes a call returns memory to the operating system.
type Maxima struct {
	Limits          Limits // every field set; zero fields take DefaultLimits'
	ConcurrentCalls int    // calls beyond it wait, up to their timeout; 0: DefaultMaxima's
	// FreeOSMemoryAfter: a call that allocated at least this many bytes
	// ends with debug.FreeOSMemory, so that the peak of one large call
	// does not stay in the process; 0: DefaultMaxima's, < 0: never.
	FreeOSMemoryAfter int64
	// Hint ends the error of a call that waited for a free slot until its
	// timeout; "" names no flag.
	Hint string
}

// DefaultMaxima returns the defaults: DefaultLimits, 4 concurrent calls,
// memory returned after a call that allocated 64 MiB.
func DefaultMaxima() Maxima {
	return Maxima{Limits: DefaultLimits(), ConcurrentCalls: 4, FreeOSMemoryAfter: 64 << 20}
}

// bounds is the process-wide bounds with the semaphore of their calls.
type bounds struct {
	m     Maxima
	slots *semaphore.Weighted
}

var current atomic.Pointer[bounds]

func init() { SetMaxima(Maxima{}) }

// SetMaxima sets the process-wide bounds; vox-mcp calls it once at start
// from its flags and environment. Zero fields take the defaults.
func SetMaxima(m Maxima) {
	def := DefaultMaxima()
	m.Limits = fill(m.Limits, def.Limits)
	if m.ConcurrentCalls <= 0 {
		m.ConcurrentCalls = def.ConcurrentCalls
	}
	if m.FreeOSMemoryAfter == 0 {
		m.FreeOSMemoryAfter = def.FreeOSMemoryAfter
	}
	current.Store(&bounds{m: m, slots: semaphore.NewWeighted(int64(m.ConcurrentCalls))})
}

// CurrentMaxima returns the process-wide bounds.
func CurrentMaxima() Maxima { return current.Load().m }

// fill sets the zero fields of l from def.
func fill(l, def Limits) Limits {
	if l.Steps <= 0 {
		l.Steps = def.Steps
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = def.MaxDepth
	}
	if l.Timeout <= 0 {
		l.Timeout = def.Timeout
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = def.MaxOutputBytes
	}
	if l.MaxValueBytes <= 0 {
		l.MaxValueBytes = def.MaxValueBytes
	}
	if l.MaxAllocBytes <= 0 {
		l.MaxAllocBytes = def.MaxAllocBytes
	}
	if l.Wait <= 0 {
		l.Wait = def.Wait
	}
	return l
}

// Lower returns the limits of max lowered by the values req sets (> 0):
// what a repository's config may do. A zero or larger value keeps the
// maximum, so a config can neither lift a limit (0 once meant unlimited)
// nor raise it.
func Lower(max Limits, req Limits) Limits {
	low := func(v, m int64) int64 {
		if v > 0 && v < m {
			return v
		}
		return m
	}
	max.Steps = low(req.Steps, max.Steps)
	max.MaxDepth = int(low(int64(req.MaxDepth), int64(max.MaxDepth)))
	max.Timeout = time.Duration(low(int64(req.Timeout), int64(max.Timeout)))
	max.MaxOutputBytes = low(req.MaxOutputBytes, max.MaxOutputBytes)
	max.MaxValueBytes = low(req.MaxValueBytes, max.MaxValueBytes)
	max.MaxAllocBytes = low(req.MaxAllocBytes, max.MaxAllocBytes)
	max.Wait = time.Duration(low(int64(req.Wait), int64(max.Wait)))
	return max
}

// DefaultLimitHint is appended to limit errors; <key> is the limit's key.
const DefaultLimitHint = "raise limits.<key> in contracts/mcp/workspace-mcp-surface.v1.yaml"

// Env is what a call may reach and how far it may go.
type Env struct {
	Root string // workspace root for fs.*
	// Powers are what env.get may read and fs.write may write, as the
	// person running the interpreter granted them (docs/security.md,
	// "Consent: a repository grants itself nothing"); nil grants nothing.
	Powers *capability.Powers
	Limits Limits       // see Limits for zero values
	Log    *slog.Logger // print() writes here (never stdout); nil discards
	Stdout io.Writer    // when set, print() writes its line here instead (vox run of a script)
	// Progress receives what progress(done, total, message) reports
	// during a call; nil drops the reports.
	Progress func(done, total float64, message string)
	// Client reaches the MCP client that made the call, for elicit() and
	// sample(); nil fails them with an error that says so.
	Client    Client
	LimitHint string // appended to limit errors, <key> replaced; default DefaultLimitHint
	// OnReads, when set, receives the files a resource read read
	// (Result.Reads), after the read, whether it failed or not.
	OnReads func(files []string)
}

// Client is how elicit() and sample() reach the client of a call (see
// eval.Client).
type Client = eval.Client

// Result is the outcome of a successful call.
type Result struct {
	JSON []byte // compact JSON of the result value (Ok/Some unwrapped, None → null)
	Text string // the string itself for a Str result, else the compact JSON
	// Shape is decided by the declared result type (docs/tool-results.md
	// §2); Blocks are the content blocks of the content shapes.
	Shape  schema.Shape
	Blocks []content.Block
	Steps  int64 // the steps the call took, counted against Limits.Steps
	// Reads are the files under the root the call read with fs.read,
	// fs.read_bytes or fs.read_base64 (slash paths, at most 64, in order).
	Reads []string
}

// Error is the error of Call and ReadResource; Kind classifies it and
// Message is the exact text of the spec. Path, Line and Col locate a
// runtime error when known (Positioned formats them).
type Error = eval.Error

// ErrorKind classifies errors.
type ErrorKind = eval.ErrorKind

// The error kinds.
const (
	ArgumentError = eval.ArgumentError // the arguments do not fit the signature
	ErrValue      = eval.ErrValue      // the function returned Err(e); Message is e's display form
	RuntimeError  = eval.RuntimeError  // evaluation failed
	LimitError    = eval.LimitError    // a limit was exceeded; Limit names it
	Internal      = eval.Internal      // an internal panic, recovered
)

// Call runs any function of the module (tool, resource function or plain
// fn) with a JSON object of named arguments (nil or empty means {}). It
// honours ctx (cancellation and deadline stop the interpreter) and
// env.Limits (nil env: DefaultLimits, no fs root, no environment). Errors
// are *Error.
func (m *Module) Call(ctx context.Context, fn string, args []byte, env *Env) (res Result, err error) {
	if sch := m.inputSchemas[fn]; sch != nil {
		if err := checkInputSchema(sch, args); err != nil {
			return res, err
		}
	}
	r, err := m.run(ctx, fn, args, env, runCall)
	return Result{JSON: r.JSON, Text: r.Text, Shape: r.Shape, Blocks: r.Blocks, Steps: r.Steps, Reads: r.Reads}, err
}

// ReadResource calls the resource function of uri; it must return Str or
// Ok(Str), which is base64 when the resource's MIME type is not text
// (content.IsText): the server then sends it as a blob.
func (m *Module) ReadResource(ctx context.Context, uri string, env *Env) (string, error) {
	return m.ReadTemplate(ctx, uri, nil, env)
}

// ReadTemplate is ReadResource for a resource whose URI is a template
// (docs/vox-language.md, Resources with URI parameters): uri is the
// template as declared, vars the decoded value of each of its variables,
// passed to the function's str parameters of the same names.
func (m *Module) ReadTemplate(ctx context.Context, uri string, vars map[string]string, env *Env) (string, error) {
	for _, r := range m.resources {
		if r.URI == uri {
			var args []byte
			if len(vars) > 0 {
				args, _ = json.Marshal(vars) // a map of strings always encodes
			}
			res, err := m.run(ctx, r.Func, args, env, runResource)
			if env != nil && env.OnReads != nil {
				env.OnReads(res.Reads) // a failed read too: the file may appear
			}
			if err != nil {
				return "", err
			}
			// A MIME type that is not text makes the body a blob, which
			// the function returns as base64 (docs/vox-language.md, Tools
			// and resources).
			if !content.IsText(r.MIMEType) {
				if err := content.CheckBase64(res.Text); err != nil {
					return "", &Error{Kind: RuntimeError, Path: m.path, Line: r.Line, Col: r.Col,
						Message: fmt.Sprintf("resource %s has the MIME type %s, which is not text, so %s must return its body as base64 (fs.read_base64 reads a file so): %v", uri, r.MIMEType, r.Func, err)}
				}
			}
			return res.Text, nil
		}
	}
	return "", &Error{Kind: RuntimeError, Message: "unknown resource: " + uri}
}

// Complete calls fn, a completion function (docs/vox-language.md,
// Completion) declared fn() to list[str], and returns its list.
func (m *Module) Complete(ctx context.Context, fn string, env *Env) ([]string, error) {
	res, err := m.run(ctx, fn, nil, env, runCall)
	if err != nil {
		return nil, err
	}
	var out []string
	if err := json.Unmarshal(res.JSON, &out); err != nil {
		return nil, &Error{Kind: RuntimeError, Message: fmt.Sprintf("completion function %s must return a list of strings, got %s", fn, res.JSON)}
	}
	return out, nil
}

// GetPrompt calls the workspace prompt name with its string arguments
// (docs/vox-language.md, Prompts) and returns its messages: the str of a
// prompt declared to str is one user message of text, a prompt declared
// to list[Message] gives its checked list.
func (m *Module) GetPrompt(ctx context.Context, name string, args map[string]string, env *Env) ([]content.Message, error) {
	i := slices.IndexFunc(m.prompts, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		return nil, &Error{Kind: RuntimeError, Message: "unknown prompt: " + name}
	}
	if args == nil {
		args = map[string]string{}
	}
	raw, _ := json.Marshal(args) // a map of strings always encodes
	kind := runCall
	if m.prompts[i].Messages {
		kind = runMessages
	}
	res, err := m.run(ctx, name, raw, env, kind)
	if err != nil {
		return nil, err
	}
	if kind == runMessages {
		return res.Messages, nil
	}
	return []content.Message{{Role: content.RoleUser, Block: content.Block{Type: content.Text, Text: res.Text}}}, nil
}

// runKind says how run reads a function's result.
type runKind uint8

const (
	runCall     runKind = iota // a tool or plain function: its declared type shapes it
	runResource                // a resource: str
	runMessages                // a prompt declared to list[Message]
)

func (m *Module) run(ctx context.Context, fn string, args []byte, env *Env, kind runKind) (res eval.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Kind: Internal, Message: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}
		}
	}()
	if m.hasErrors || m.resolved() == nil {
		first := ""
		for _, d := range m.diags {
			if d.Severity == diag.Error {
				first = fmt.Sprintf(": %d:%d: %s", d.Line, d.Col, d.Message)
				break
			}
		}
		return res, &Error{Kind: RuntimeError, Message: fmt.Sprintf("%s does not compile%s", m.path, first)}
	}
	if env == nil {
		env = &Env{Limits: DefaultLimits()}
	}
	lim := env.Limits
	def := DefaultLimits()
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = def.MaxDepth
	}
	if lim.MaxOutputBytes <= 0 {
		lim.MaxOutputBytes = def.MaxOutputBytes
	}
	if lim.MaxValueBytes <= 0 {
		lim.MaxValueBytes = def.MaxValueBytes
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The timeout is a deadline the interpreter polls with the context,
	// not a context of its own: deriving one (a timer, a goroutine-safe
	// cancel) cost more than running a small tool.
	var deadline time.Time
	if lim.Timeout > 0 {
		deadline = time.Now().Add(lim.Timeout)
	}
	// At most Maxima.ConcurrentCalls calls run at once: each call is
	// bounded, but calls side by side were not (three holding large
	// strings drove a server to 2 GB). A call waits for a slot up to its
	// timeout.
	b := current.Load()
	mx, sem := &b.m, b.slots
	if !sem.TryAcquire(1) {
		if err := acquireBy(ctx, sem, deadline); err != nil {
			msg := fmt.Sprintf("too many interpreter calls at once: the limit of %d concurrent calls stayed reached until this call's timeout", mx.ConcurrentCalls)
			if mx.Hint != "" {
				msg += "; " + mx.Hint
			}
			return res, &Error{Kind: LimitError, Limit: "concurrent_calls", Message: msg}
		}
	}
	var sc *slotClient
	defer func() {
		if sc == nil || !sc.lost {
			sem.Release(1)
		}
	}()
	hint := env.LimitHint
	if hint == "" {
		hint = DefaultLimitHint
	}
	opts := eval.Options{
		Steps:          lim.Steps,
		MaxDepth:       lim.MaxDepth,
		MaxOutputBytes: lim.MaxOutputBytes,
		MaxValueBytes:  lim.MaxValueBytes,
		MaxAllocBytes:  lim.MaxAllocBytes,
		TimeoutMS:      lim.Timeout.Milliseconds(),
		Deadline:       deadline,
		Hint:           hint,
		Log:            env.Log,
		Stdout:         env.Stdout,
		Progress:       env.Progress,
		Wait:           lim.Wait,
		Namespaces:     m.namespaces(env),
		Messages:       kind == runMessages,
	}
	if env.Client != nil {
		// A call waiting for its client gives its slot back meanwhile, so
		// that calls waiting for people cannot starve the others.
		sc = &slotClient{ctx: ctx, inner: env.Client, sem: sem, timeout: lim.Timeout, limit: mx.ConcurrentCalls, hint: mx.Hint}
		opts.Client = sc
	}
	prog := m.program()
	if prog == nil {
		return res, &Error{Kind: Internal, Message: "internal error: " + m.path + " could not be prepared for calls"}
	}
	res, err = prog.Run(ctx, fn, args, &opts, kind == runResource)
	if after := mx.FreeOSMemoryAfter; after > 0 && res.Allocated >= after {
		// Give the memory of a large call back now rather than keep the
		// peak of every large call resident until the runtime's
		// scavenger gets to it.
		debug.FreeOSMemory()
	}
	return res, err
}

// slotClient releases the call's interpreter slot while it waits for the
// client's answer and takes one again before the call goes on, waiting
// for it up to the call's timeout as a call starting does.
type slotClient struct {
	ctx     context.Context // the call's
	lost    bool            // the slot could not be taken again
	inner   Client
	sem     *semaphore.Weighted
	timeout time.Duration
	limit   int
	hint    string
}

func (c *slotClient) Declared(ctx context.Context, capability string) bool {
	return c.inner.Declared(ctx, capability)
}

func (c *slotClient) CloseStream(ctx context.Context) bool { return c.inner.CloseStream(ctx) }

func (c *slotClient) Ask(ctx context.Context, reqs []ask.Request) ([][]byte, error) {
	c.sem.Release(1)
	raw, err := c.inner.Ask(ctx, reqs)
	var deadline time.Time
	if c.timeout > 0 {
		deadline = time.Now().Add(c.timeout)
	}
	if !c.sem.TryAcquire(1) {
		if aerr := acquireBy(c.ctx, c.sem, deadline); aerr != nil {
			c.lost = true // run has no slot to give back
			msg := fmt.Sprintf("too many interpreter calls at once: the limit of %d concurrent calls stayed reached until this call's timeout, after its client answered", c.limit)
			if c.hint != "" {
				msg += "; " + c.hint
			}
			return nil, &Error{Kind: LimitError, Limit: "concurrent_calls", Message: msg}
		}
	}
	return raw, err
}

// acquireBy waits for a slot of sem until ctx is done or the deadline
// (none when zero) passes.
func acquireBy(ctx context.Context, sem *semaphore.Weighted, deadline time.Time) error {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return sem.Acquire(ctx, 1)
}

// nsCache is the capability namespaces of the last environment a module
// was called with.
type nsCache struct {
	root   string
	powers *capability.Powers
	ns     map[string]eval.Namespace
}

// namespaces returns the capability namespaces for env. Calls of one
// module nearly always share one environment, so the namespaces of the
// last one are kept rather than built on every call; the map is never
// written after it is built, so concurrent calls share it.
func (m *Module) namespaces(env *Env) map[string]eval.Namespace {
	if c := m.ns.Load(); c != nil && c.root == env.Root && c.powers == env.Powers {
		return c.ns
	}
	c := &nsCache{root: env.Root, powers: env.Powers}
	c.ns = capability.Namespaces(capability.Config{Root: c.root, Powers: c.powers})
	m.ns.Store(c)
	return c.ns
}
