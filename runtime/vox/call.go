package vox

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/vox/capability"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/vox/eval"
)

// Limits bound one call (docs/vox-language.md, Limits). Zero means unlimited for Steps and
// Timeout only; a zero MaxDepth, MaxOutputBytes or MaxValueBytes means the
// default.
type Limits struct {
	Steps          int64
	MaxDepth       int
	Timeout        time.Duration
	MaxOutputBytes int64
	MaxValueBytes  int64
}

// DefaultLimits returns the defaults: 1,000,000 steps, call depth 256, 10
// s, 1 MiB of result, 16 MiB per value.
func DefaultLimits() Limits {
	return Limits{Steps: 1_000_000, MaxDepth: 256, Timeout: 10 * time.Second, MaxOutputBytes: 1 << 20, MaxValueBytes: 16 << 20}
}

// DefaultLimitHint is appended to limit errors; <key> is the limit's key.
const DefaultLimitHint = "raise limits.<key> in contracts/mcp/workspace-mcp-surface.v1.yaml"

// Env is what a call may reach and how far it may go.
type Env struct {
	Root      string       // workspace root for fs.*
	EnvAllow  []string     // the only names env.get may read
	Limits    Limits       // see Limits for zero values
	Log       *slog.Logger // print() writes here (never stdout); nil discards
	LimitHint string       // appended to limit errors, <key> replaced; default DefaultLimitHint
}

// Result is the outcome of a successful call.
type Result struct {
	JSON []byte // compact JSON of the result value (Ok/Some unwrapped, None → null)
	Text string // the string itself for a Str result, else the compact JSON
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
	r, err := m.run(ctx, fn, args, env, false)
	return Result{JSON: r.JSON, Text: r.Text}, err
}

// ReadResource calls the resource function of uri; it must return Str or
// Ok(Str).
func (m *Module) ReadResource(ctx context.Context, uri string, env *Env) (string, error) {
	for _, r := range m.resources {
		if r.URI == uri {
			res, err := m.run(ctx, r.Func, nil, env, true)
			if err != nil {
				return "", err
			}
			return res.Text, nil
		}
	}
	return "", &Error{Kind: RuntimeError, Message: "unknown resource: " + uri}
}

func (m *Module) run(ctx context.Context, fn string, args []byte, env *Env, resource bool) (res eval.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Kind: Internal, Message: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}
		}
	}()
	if m.hasErrors || m.res == nil {
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
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, lim.Timeout, eval.ErrTimeout)
		defer cancel()
	}
	hint := env.LimitHint
	if hint == "" {
		hint = DefaultLimitHint
	}
	opts := eval.Options{
		Steps:          lim.Steps,
		MaxDepth:       lim.MaxDepth,
		MaxOutputBytes: lim.MaxOutputBytes,
		MaxValueBytes:  lim.MaxValueBytes,
		TimeoutMS:      lim.Timeout.Milliseconds(),
		Hint:           hint,
		Log:            env.Log,
		Namespaces:     m.namespaces(env),
	}
	prog := m.program()
	if prog == nil {
		return res, &Error{Kind: Internal, Message: "internal error: " + m.path + " could not be prepared for calls"}
	}
	return prog.Run(ctx, fn, args, &opts, resource)
}

// nsCache is the capability namespaces of the last environment a module
// was called with.
type nsCache struct {
	root     string
	envAllow []string
	ns       map[string]eval.Namespace
}

// namespaces returns the capability namespaces for env. Calls of one
// module nearly always share one environment, so the namespaces of the
// last one are kept rather than built on every call; the map is never
// written after it is built, so concurrent calls share it.
func (m *Module) namespaces(env *Env) map[string]eval.Namespace {
	if c := m.ns.Load(); c != nil && c.root == env.Root && slices.Equal(c.envAllow, env.EnvAllow) {
		return c.ns
	}
	c := &nsCache{root: env.Root, envAllow: slices.Clone(env.EnvAllow)}
	c.ns = capability.Namespaces(capability.Config{Root: c.root, EnvAllow: c.envAllow})
	m.ns.Store(c)
	return c.ns
}
