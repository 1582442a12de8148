package eval

import (
	"context"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

func compileSrc(t *testing.T, src string) *Program {
	t.Helper()
	f, diags := syntax.Parse("t.vox", []byte(src))
	mod := resolve.File(f, Universe([]string{"fs", "env", "json", "path", "time", "process"}), &diags)
	if diags.HasErrors() {
		t.Fatalf("%v", diags)
	}
	return Compile("t.vox", mod)
}

// runOn runs fn of p on th as Program.Run does, without recycling.
func runOn(th *Thread, p *Program, fn string, args string) (Value, error) {
	return th.run(func() Value {
		f, _ := p.Func(fn)
		slots := th.alloc(f.nlocals)
		th.bindJSON(f, slots, []byte(args))
		return th.invoke(f, slots, nil)
	})
}

// TestRecycleClearsEverything runs a call that fills the slot stack (deep
// enough to grow it by several chunks), frames, constants and locals, then
// recycles the thread: nothing of the call may remain in it.
func TestRecycleClearsEverything(t *testing.T) {
	p := compileSrc(t, `
let SECRET = ["secret", {k: [1, 2]}]
fn deep(n: int) {
    let a = SECRET
    let b = "x" + str(n)
    let keep = fn() b
    if n == 0 { return keep() }
    deep(n - 1)
}
`)
	th := newThread(context.Background(), p, &Options{MaxDepth: 5000})
	th.SetLocal("root", "value")
	v, err := runOn(th, p, "deep", `{"n":3000}`)
	if err != nil || v.Str() != "x0" {
		t.Fatalf("%v %v", v, err)
	}
	if len(th.chunks) < 3 || len(th.frames) < 3000 {
		t.Fatalf("the call did not grow the stack: %d chunks, %d frames", len(th.chunks), len(th.frames))
	}
	th.recycle(nil)
	total := 0
	for _, c := range th.chunks {
		total += len(c)
		for i, v := range c {
			if v != (Value{}) {
				t.Fatalf("slot %d kept %v", i, v)
			}
		}
	}
	if total > keepValues {
		t.Errorf("the pooled stack keeps %d values", total)
	}
	if len(th.frames) > keepFrames {
		t.Errorf("the pooled thread keeps %d frames", len(th.frames))
	}
	for _, fr := range th.frames {
		if fr.slots != nil || fr.free != nil || fr.ret != (Value{}) {
			t.Fatal("a frame kept values")
		}
	}
	for i := range th.consts {
		if th.consts[i] != (Value{}) || th.constInit[i] != 0 {
			t.Fatal("a constant kept its value")
		}
	}
	if th.locals != nil || th.ctx != nil || th.prog != nil || th.opts != nil || th.optsBuf.Namespaces != nil {
		t.Fatal("the thread kept the call's context, program, options or locals")
	}

	// A recycled thread starts the next call from scratch.
	th2 := newThread(context.Background(), p, &Options{Steps: 100})
	if th2.steps != 0 || th2.depth != 0 || th2.nest != 0 || th2.sp != 0 || th2.stepLimit != 100 || th2.Local("root") != nil {
		t.Fatalf("a new call starts with steps %d depth %d nest %d sp %d", th2.steps, th2.depth, th2.nest, th2.sp)
	}
	th2.recycle(nil)
}

// TestInternalErrorDropsThread: after an internal error (a recovered Go
// panic) the thread's state is not trusted and it is not pooled.
func TestInternalErrorDropsThread(t *testing.T) {
	p := compileSrc(t, "fn f() { 1 }\n")
	th := newThread(context.Background(), p, &Options{})
	th.recycle(&Error{Kind: Internal, Message: "internal error: boom"})
	if th.prog != p {
		t.Fatal("a thread was recycled after an internal error")
	}
}

// TestLazyCompile: bodies are compiled on the first call only, and once.
func TestLazyCompile(t *testing.T) {
	p := compileSrc(t, "fn f(x = 1) { g(x) }\nfn g(y) { y + 1 }\nfn unused() { 2 }\n")
	for _, f := range p.funcs {
		if f.ready.Load() {
			t.Fatalf("%s compiled before its first call", f.name)
		}
	}
	before := compiles.Load()
	res, err := p.Run(context.Background(), "f", nil, &Options{}, false)
	if err != nil || string(res.JSON) != "2" {
		t.Fatalf("%s %v", res.JSON, err)
	}
	f, _ := p.Func("f")
	g, _ := p.Func("g")
	u, _ := p.Func("unused")
	if !f.ready.Load() || !g.ready.Load() || !f.defaults[0].ready.Load() || u.ready.Load() {
		t.Fatal("compiled the wrong functions")
	}
	if n := compiles.Load() - before; n != 3 {
		t.Fatalf("%d bodies compiled, want 3 (f, its default, g)", n)
	}
	if _, err := p.Run(context.Background(), "f", nil, &Options{}, false); err != nil || compiles.Load()-before != 3 {
		t.Fatal("a body was compiled twice")
	}
	p.Precompile()
	if !u.ready.Load() || compiles.Load()-before != 4 {
		t.Fatal("Precompile left a body uncompiled or compiled one again")
	}
}
