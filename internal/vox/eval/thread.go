package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// ErrorKind classifies the errors of a call.
type ErrorKind uint8

// The error kinds.
const (
	ArgumentError ErrorKind = iota // the JSON arguments do not fit the signature
	ErrValue                       // the function returned Err(e)
	RuntimeError                   // evaluation failed
	LimitError                     // a limit was exceeded
	Internal                       // a bug: an internal panic, recovered
)

func (k ErrorKind) String() string {
	switch k {
	case ArgumentError:
		return "argument error"
	case ErrValue:
		return "error value"
	case RuntimeError:
		return "runtime error"
	case LimitError:
		return "limit error"
	}
	return "internal error"
}

// Error is the error of a call. Message is the exact text of the spec
// ("missing argument: x", "undefined: db", ...); the position, when known,
// is where evaluation failed.
type Error struct {
	Kind    ErrorKind
	Message string
	Path    string
	Line    int
	Col     int
	Limit   string // for LimitError: the key (steps, max_depth, timeout_ms, ...)
	Max     int64  // for LimitError: the limit's value, which the message states
	// Stack is the call stack where a limit stopped the call, innermost
	// first, at most MaxStack entries (consecutive calls at the same place
	// are one); Elided counts the outer calls left out. The first entry's
	// position is the error's.
	Stack  []StackFrame
	Elided int
	// Cause is the error of the client that ended the call, when the
	// server must see it as it is (a Suspend: see Client).
	Cause error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Positioned returns "path:line:col: message" when the position is known.
func (e *Error) Positioned() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Message)
}

// StackFrame is one function call in progress: the function and where
// in it the call was (the statement it was running).
type StackFrame struct {
	Func      string
	Line, Col int
	Times     int // consecutive calls at the same place (a recursion), at least 1
}

// MaxStack bounds Error.Stack: a recursion stopped by max_depth would
// otherwise list hundreds of frames of the same function.
const MaxStack = 16

// Traceback returns the stack as lines "\n  in f at path:line:col",
// innermost first, " (n calls)" after one that stands for n calls at the
// same place, then "\n  ... n more" for the frames left out; "" when
// there is no stack.
func (e *Error) Traceback() string {
	var b strings.Builder
	for _, f := range e.Stack {
		fmt.Fprintf(&b, "\n  in %s at %s:%d:%d", f.Func, e.Path, f.Line, f.Col)
		if f.Times > 1 {
			fmt.Fprintf(&b, " (%d calls)", f.Times)
		}
	}
	if e.Elided > 0 {
		fmt.Fprintf(&b, "\n  ... %d more", e.Elided)
	}
	return b.String()
}

// Limit keys, as in the scan config's limits.
const (
	LimitSteps     = "steps"
	LimitDepth     = "max_depth"
	LimitTimeout   = "timeout_ms"
	LimitOutput    = "max_output_bytes"
	LimitValueSize = "max_value_bytes"
	LimitAlloc     = "max_alloc_bytes"
	LimitWait      = "wait_ms"
)

// MaxDepthCap bounds the call depth whatever the configuration says, so
// that a deep recursion is an error and never a Go stack overflow.
const MaxDepthCap = 10000

// maxGoNesting bounds the sum of the nesting of the functions on the call
// stack: a deep recursion through deeply nested expressions fails with the
// max_depth limit before the Go stack (1 GB) could overflow.
const maxGoNesting = 300_000

// maxNesting bounds the recursion of printing, comparing, encoding and
// decoding values.
const maxNesting = 512

// Options configure a call.
type Options struct {
	Steps          int64 // 0: unlimited
	MaxDepth       int
	MaxOutputBytes int64
	MaxValueBytes  int64
	MaxAllocBytes  int64 // the bytes of values a call may allocate in all; 0: unlimited
	TimeoutMS      int64 // for the message of the timeout limit
	// Deadline, when set, ends a call still running then with the timeout
	// limit. It is polled with the context: a deadline costs the caller no
	// context and timer of its own per call (docs/vox-language.md, Limits).
	Deadline time.Time
	Hint     string // ends limit errors: <key> is the limit's key, <flag> the key with dashes, <KEY> upper case; "" for the default
	Log      *slog.Logger
	Stdout   io.Writer // when set, print writes its line here, not to Log
	// Progress receives what progress() reports (done, total, message);
	// nil drops the reports.
	Progress func(done, total float64, message string)
	// Client reaches the MCP client that made the call, for elicit() and
	// sample(); nil fails them (vox run, resources, prompts).
	Client Client
	// Wait bounds each wait for the client's answer; 0 is DefaultWait.
	Wait       time.Duration
	Namespaces map[string]Namespace
	// Messages marks the call of a prompt declared to list[Message]
	// (docs/vox-language.md, Prompts): its result is read into
	// Result.Messages, and a value that is not a list of messages fails
	// the call at the declared result type.
	Messages bool
}

// Namespace is a capability namespace: fs, env, json, path, time.
type Namespace interface {
	// Call runs ns.method(args); names holds argument names ("" for
	// positional arguments). It returns false when the method does not
	// exist.
	Call(th *Thread, method string, args []Value, names []string) (Value, bool)
}

// NamespaceFields is implemented by a namespace whose fields are values:
// std, whose fields are the other namespaces (std.fs.read is fs.read).
type NamespaceFields interface {
	Field(th *Thread, name string) (Value, bool)
}

// ErrTimeout is the cause a caller that derives a context for the timeout
// limit gives it (instead of Options.Deadline); the thread then reports
// the limit rather than a cancellation.
var ErrTimeout = errors.New("vox call timed out")

type frame struct {
	th    *Thread
	slots []Value
	free  []*Value
	ret   Value
	fn    *Func
	pos   syntax.Pos // the statement running, or the function's head before the first
}

// step counts w steps of the statement at pos, which is where the frame
// is from now on: a limit that stops the call names it (Error.Stack).
func (fr *frame) step(w int64, pos syntax.Pos) {
	fr.pos = pos
	th := fr.th
	th.steps += w
	if th.steps >= th.nextCheck {
		th.checkSlow()
	}
}

// Thread is the state of one call. It is not safe for concurrent use; each
// call takes its own from a pool and gives it back when the call ends.
type Thread struct {
	ctx        context.Context
	done       <-chan struct{}
	prog       *Program
	opts       *Options
	optsBuf    Options // opts points here: the caller's Options need not escape
	steps      int64
	stepLimit  int64 // math.MaxInt64 when unlimited
	allocated  int64 // bytes of values allocated so far (see allocate)
	allocLimit int64 // math.MaxInt64 when unlimited
	nextCheck  int64
	depth      int
	maxDepth   int
	nest       int // the sum of Func.nest over the calls in progress
	frames     []*frame
	chunks     [][]Value
	chunk      int
	cur        []Value
	sp         int
	hw         int // the highest sp reached in any chunk: what recycle clears
	consts     []Value
	constInit  []uint8 // 0 not started, 1 running, 2 done

	locals  map[string]any
	callPos syntax.Pos // the call being made to a builtin, method or namespace

	// progressReports and lastProgress are what progress() sent so far.
	progressReports int
	lastProgress    float64
	// asks counts what elicit() and sample() asked the client.
	asks int
	// reads are the files the call read (NoteRead), at most MaxReads.
	reads []string
}

// MaxReads bounds the files a call records as read (Result.Reads): a
// resource that reads more is told of changes to the first ones only.
const MaxReads = 64

// NoteRead records that the call read the file at rel (slash-separated,
// relative to the workspace root), once, for Result.Reads: a subscribed
// resource is read again when one of its files changes
// (docs/federation.md §11).
func (th *Thread) NoteRead(rel string) {
	if len(th.reads) >= MaxReads || slices.Contains(th.reads, rel) {
		return
	}
	th.reads = append(th.reads, rel)
}

// pollEvery is how many steps pass between checks of the context.
const pollEvery = 4096

// The slot stack starts with one chunk of firstChunk values and grows by
// chunks of at least growChunk; a pooled thread keeps at most keepValues
// of them, so that one deep recursion does not pin memory in the pool.
const (
	firstChunk = 512
	growChunk  = 8192
	keepValues = firstChunk + growChunk
	keepFrames = 64
)

// threads recycles call states: a call's slot stack, frames and constant
// table would otherwise be allocated afresh on every call, which costs more
// than running a small tool. Everything a call leaves behind is cleared
// when the thread is put back (recycle), so no value of one call can reach
// another.
var threads = sync.Pool{New: func() any { return new(Thread) }}

// newThread returns a reset thread for one call of p; the caller gives it
// back with recycle.
func newThread(ctx context.Context, p *Program, opts *Options) *Thread {
	th := threads.Get().(*Thread)
	th.ctx, th.done, th.prog = ctx, ctx.Done(), p
	th.optsBuf = *opts
	th.opts = &th.optsBuf
	th.steps, th.depth, th.nest, th.allocated = 0, 0, 0, 0
	th.progressReports, th.lastProgress, th.asks = 0, 0, 0
	th.reads = th.reads[:0]
	th.allocLimit = opts.MaxAllocBytes
	if th.allocLimit <= 0 {
		th.allocLimit = math.MaxInt64
	}
	th.stepLimit = opts.Steps
	if th.stepLimit <= 0 {
		th.stepLimit = math.MaxInt64
	}
	th.maxDepth = opts.MaxDepth
	if th.maxDepth <= 0 {
		th.maxDepth = 256
	}
	if th.maxDepth > MaxDepthCap {
		th.maxDepth = MaxDepthCap
	}
	th.nextCheck = min(pollEvery, th.stepLimit)
	if th.chunks == nil {
		th.chunks = [][]Value{make([]Value, firstChunk)}
	}
	th.chunk, th.cur, th.sp, th.hw = 0, th.chunks[0], 0, 0
	n := len(p.consts)
	if cap(th.consts) < n {
		th.consts = make([]Value, n)
		th.constInit = make([]uint8, n)
	}
	th.consts, th.constInit = th.consts[:n], th.constInit[:n]
	return th
}

// recycle clears everything the call left in th and puts it back in the
// pool. A thread whose call ended in an internal error is dropped instead:
// its state is not trusted.
func (th *Thread) recycle(err error) {
	if e, ok := err.(*Error); ok && e.Kind == Internal {
		return
	}
	kept := 0
	for i, c := range th.chunks {
		if kept+len(c) > keepValues && i > 0 {
			clear(th.chunks[i:])
			th.chunks = th.chunks[:i]
			break
		}
		kept += len(c)
		clear(c[:min(th.hw, len(c))])
	}
	clear(th.consts)
	clear(th.constInit)
	if len(th.frames) > keepFrames {
		clear(th.frames[keepFrames:])
		th.frames = th.frames[:keepFrames]
	}
	for _, fr := range th.frames {
		fr.slots, fr.free, fr.ret = nil, nil, Value{}
	}
	th.cur = nil
	th.locals = nil
	th.ctx, th.done, th.prog, th.opts = nil, nil, nil, nil
	th.optsBuf = Options{}
	th.callPos = syntax.Pos{}
	threads.Put(th)
}

// Context returns the call's context.
func (th *Thread) Context() context.Context { return th.ctx }

// Local returns a value a namespace stored for this call.
func (th *Thread) Local(key string) any { return th.locals[key] }

// SetLocal stores a value for this call (capabilities keep their open
// workspace root here).
func (th *Thread) SetLocal(key string, v any) {
	if th.locals == nil {
		th.locals = map[string]any{}
	}
	th.locals[key] = v
}

// step counts w steps.
func (th *Thread) step(w int64) {
	th.steps += w
	if th.steps >= th.nextCheck {
		th.checkSlow()
	}
}

// checkSlow enforces the step limit and polls the context.
func (th *Thread) checkSlow() {
	if th.steps > th.stepLimit {
		th.limit(LimitSteps, th.stepLimit)
	}
	select {
	case <-th.done:
		th.canceled()
	default:
	}
	if d := th.opts.Deadline; !d.IsZero() && !time.Now().Before(d) {
		th.limit(LimitTimeout, th.opts.TimeoutMS)
	}
	th.nextCheck = th.steps + pollEvery
	if th.nextCheck > th.stepLimit {
		th.nextCheck = th.stepLimit + 1
	}
	if th.nextCheck < 0 { // overflow when unlimited
		th.nextCheck = math.MaxInt64
	}
}

func (th *Thread) canceled() {
	if context.Cause(th.ctx) == ErrTimeout {
		th.limit(LimitTimeout, th.opts.TimeoutMS)
	}
	panic(&Error{Kind: RuntimeError, Message: "call canceled: " + th.ctx.Err().Error()})
}

// limit raises the error of an exceeded limit, at the statement the
// innermost call is running and with the calls in progress.
func (th *Thread) limit(key string, n int64) {
	e := th.limitError(key, n)
	th.trace(e)
	panic(e)
}

// limitError is the error of an exceeded limit, without a position.
func (th *Thread) limitError(key string, n int64) *Error {
	hint := "raise limits." + key + " in contracts/mcp/workspace-mcp-surface.v1.yaml"
	if th.opts.Hint != "" {
		hint = strings.NewReplacer("<key>", key, "<flag>", strings.ReplaceAll(key, "_", "-"), "<KEY>", strings.ToUpper(key)).Replace(th.opts.Hint)
	}
	return &Error{Kind: LimitError, Limit: key, Max: n, Message: fmt.Sprintf("%s limit of %d exceeded; %s", key, n, hint)}
}

// trace records in e the calls in progress, innermost first, and the
// innermost one's position as e's. Frame 0 is never a call's (invoke
// counts the depth from 1).
func (th *Thread) trace(e *Error) {
	for d := th.depth; d >= 1 && d < len(th.frames); d-- {
		fr := th.frames[d]
		if fr.fn == nil || !fr.pos.IsValid() {
			continue
		}
		line, col := int(fr.pos.Line), int(fr.pos.Col)
		if n := len(e.Stack); n > 0 && e.Elided == 0 {
			if top := &e.Stack[n-1]; top.Func == fr.fn.name && top.Line == line && top.Col == col {
				top.Times++
				continue
			}
		}
		if len(e.Stack) == MaxStack {
			e.Elided++
			continue
		}
		e.Stack = append(e.Stack, StackFrame{Func: fr.fn.name, Line: line, Col: col, Times: 1})
	}
	if len(e.Stack) > 0 {
		e.Path, e.Line, e.Col = th.prog.path, e.Stack[0].Line, e.Stack[0].Col
	}
}

// Fail raises a runtime error at pos.
func (th *Thread) Fail(pos syntax.Pos, format string, args ...any) {
	panic(&Error{Kind: RuntimeError, Message: fmt.Sprintf(format, args...), Path: th.prog.path, Line: int(pos.Line), Col: int(pos.Col)})
}

// Failf raises a runtime error at the builtin, method or namespace call
// being made.
func (th *Thread) Failf(format string, args ...any) {
	th.Fail(th.callPos, format, args...)
}

// checkSize enforces the value-size limit on a string or list of n bytes.
func (th *Thread) checkSize(n int64) {
	if max := th.opts.MaxValueBytes; max > 0 && n > max {
		th.limit(LimitValueSize, max)
	}
}

// stackMark is a position in the slot stack.
type stackMark struct{ chunk, sp int }

func (th *Thread) mark() stackMark { return stackMark{th.chunk, th.sp} }

func (th *Thread) release(m stackMark) {
	if m.chunk != th.chunk {
		th.chunk = m.chunk
		th.cur = th.chunks[m.chunk]
	}
	th.sp = m.sp
}

// alloc returns n zeroed slots. Frames live on a stack of chunks, so a
// call allocates nothing on the heap unless the stack grows.
func (th *Thread) alloc(n int) []Value {
	if th.sp+n > len(th.cur) {
		th.chunk++
		if th.chunk == len(th.chunks) {
			th.chunks = append(th.chunks, make([]Value, max(growChunk, 2*n)))
		} else if len(th.chunks[th.chunk]) < n {
			th.chunks[th.chunk] = make([]Value, 2*n)
		}
		th.cur = th.chunks[th.chunk]
		th.sp = 0
	}
	s := th.cur[th.sp : th.sp+n : th.sp+n]
	th.sp += n
	if th.sp > th.hw {
		th.hw = th.sp
	}
	clear(s)
	return s
}

// invoke runs fn with its parameters already in slots.
func (th *Thread) invoke(fn *Func, slots []Value, free []*Value) Value {
	if th.depth >= th.maxDepth {
		th.limit(LimitDepth, int64(th.maxDepth))
	}
	if !fn.ready.Load() {
		fn.compile()
	}
	code := &fn.code
	th.depth++
	th.nest += code.nest
	if th.nest > maxGoNesting {
		th.limit(LimitDepth, int64(th.maxDepth))
	}
	if th.depth >= len(th.frames) {
		th.frames = append(th.frames, &frame{th: th})
		for len(th.frames) <= th.depth {
			th.frames = append(th.frames, &frame{th: th})
		}
	}
	fr := th.frames[th.depth]
	fr.slots, fr.free, fr.ret, fr.fn, fr.pos = slots, free, Unit, fn, syntax.Pos{}
	if fn.rf != nil {
		fr.pos = fn.rf.Pos
	}
	for _, i := range fn.cellParams {
		c := new(Value)
		*c = slots[i]
		slots[i] = cellValue(c)
	}
	th.step(1)
	var v Value
	if code.recover {
		v = th.invokeRecover(code, fr)
	} else {
		b, c := code.body(fr)
		if c == ctrlReturn {
			v = fr.ret
		} else {
			v = b
		}
	}
	fr.slots, fr.free, fr.fn = nil, nil, nil
	th.depth--
	th.nest -= code.nest
	return v
}

// earlyReturn unwinds to the function call when '?' meets Err or None, or
// when a return sits inside an expression.
type earlyReturn struct {
	depth int
	v     Value
}

func (th *Thread) invokeRecover(code *funcCode, fr *frame) (v Value) {
	depth := th.depth
	defer func() {
		if r := recover(); r != nil {
			if er, ok := r.(*earlyReturn); ok && er.depth == depth {
				v = er.v
				return
			}
			panic(r)
		}
	}()
	b, c := code.body(fr)
	if c == ctrlReturn {
		return fr.ret
	}
	return b
}

// constant returns module constant i, computing it on first use in this
// call.
func (th *Thread) constant(i int, pos syntax.Pos) Value {
	switch th.constInit[i] {
	case 2:
		return th.consts[i]
	case 1:
		th.Fail(pos, "constant %s refers to itself", th.prog.consts[i].name)
	}
	th.constInit[i] = 1
	fn := th.prog.consts[i]
	m := th.mark()
	v := th.invoke(fn, th.alloc(fn.nlocals), nil)
	th.release(m)
	th.consts[i] = v
	th.constInit[i] = 2
	return v
}

// run calls f with recovery: every panic becomes an *Error.
func (th *Thread) run(f func() Value) (v Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				if e.Path == "" && e.Line != 0 {
					e.Path = th.prog.path
				}
				err = e
			case *earlyReturn:
				err = &Error{Kind: Internal, Message: "internal error: unhandled early return"}
			default:
				err = &Error{Kind: Internal, Message: fmt.Sprintf("internal error: %v\n%s", r, debug.Stack())}
			}
		}
	}()
	return f(), nil
}

// charge counts the work of allocating n bytes: one step per KiB, so that
// a call cannot allocate without bound in few steps.
func (th *Thread) charge(n int64) {
	if n >= 1024 {
		th.step(n >> 10)
	}
}

// allocate counts n bytes of values allocated against the call's
// allocation budget (max_alloc_bytes), and their work as charge does.
// Every place that builds a string, list or map in proportion to its
// input calls it: concatenation, repeat, join, replace, split, map,
// slices, sorting, templates, conversions to text, JSON and fs.read. The
// budget bounds what one call can make the process hold or collect, even
// when each value stays under max_value_bytes.
func (th *Thread) allocate(n int64) {
	th.allocated += n
	if th.allocated > th.allocLimit {
		th.limit(LimitAlloc, th.allocLimit)
	}
	if n >= 1024 {
		th.step(n >> 10)
	}
}

// Charge counts the bytes a namespace function allocated for its result
// (see allocate).
func (th *Thread) Charge(n int64) { th.allocate(n) }

// CheckSize enforces the value-size limit on a string or list of n bytes
// built by a namespace function.
func (th *Thread) CheckSize(n int64) { th.checkSize(n) }

// Work counts the work of scanning n bytes, or of n comparable units of
// work, by a namespace function: one step per KiB, as the builtins count
// theirs (see charge).
func (th *Thread) Work(n int64) { th.charge(n) }

// Display returns the display form of v (docs/vox-language.md, Values).
func (th *Thread) Display(v Value) string { return th.display(v) }

// Log writes the display forms of args, separated by spaces, to the
// call's log at level: what print and log.<level> do. The message counts
// against the allocation budget.
func (th *Thread) Log(level slog.Level, args []Value) {
	parts := make([]string, len(args))
	var n int64
	for i, a := range args {
		parts[i] = th.display(a)
		n += int64(len(parts[i])) + 1
	}
	th.allocate(n)
	if log := th.opts.Log; log != nil {
		log.LogAttrs(context.Background(), level, strings.Join(parts, " "), slog.String("vox_path", th.prog.path))
	}
}

// MaxValueBytes returns the value-size limit (0: none).
func (th *Thread) MaxValueBytes() int64 { return th.opts.MaxValueBytes }
