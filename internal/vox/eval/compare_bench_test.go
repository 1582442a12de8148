package eval_test

import (
	"context"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/vox-lang/vox-mcp/internal/vox"
)

// BenchmarkCompare runs the same programs in this interpreter and in
// go.starlark.net, side by side, with the step limit lifted (spec
// 60-quality: the Vox time must be at or below Starlark's on each).
// The sub-benchmarks are named Compare/<program>/impl=vox and
// impl=starlark, so benchstat puts the pairs side by side with the ratio:
//
//	go test -run '^$' -bench Compare -count 6 ./internal/vox/eval | tee bench.txt
//	benchstat -col /impl bench.txt
//
// Each Vox iteration goes through Module.Call, the path the server uses
// (argument decoding, a fresh interpreter state, result encoding); each
// Starlark iteration calls the already-loaded function.
func BenchmarkCompare(b *testing.B) {
	for _, p := range comparePrograms {
		b.Run(p.name+"/impl=vox", func(b *testing.B) { benchVox(b, p) })
		b.Run(p.name+"/impl=starlark", func(b *testing.B) { benchStarlark(b, p) })
	}
}

type compareProgram struct {
	name     string
	vox      string
	starlark string
	want     string // the result, as JSON (Vox) and as Starlark's String (Starlark)
}

var comparePrograms = []compareProgram{
	{
		name: "fib30",
		vox: `
fn fib(n: int) to int {
    if n < 2 { return n }
    return fib(n - 1) + fib(n - 2)
}
fn main() { fib(30) }
`,
		starlark: `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def main():
    return fib(30)
`,
		want: "832040",
	},
	{
		name: "loop1M",
		vox: `
fn main() {
    let mut total = 0
    for i in range(1000000) {
        total += i * 3 % 7
    }
    total
}
`,
		starlark: `
def main():
    total = 0
    for i in range(1000000):
        total += i * 3 % 7
    return total
`,
		want: "2999997",
	},
	{
		name: "list300k",
		vox: `
fn main() {
    let xs = range(300000)
    let ys = xs.map(x => (x * 7919) % 300007).filter(x => x % 3 != 0)
    let zs = sorted(ys)
    zs.fold(0, fn(acc, x) acc + x)
}
`,
		starlark: `
def main():
    xs = range(300000)
    ys = [y for y in [(x * 7919) % 300007 for x in xs] if y % 3 != 0]
    zs = sorted(ys)
    acc = 0
    for x in zs:
        acc += x
    return acc
`,
		want: "",
	},
	{
		name: "strings300k",
		vox: `
fn main() {
    let mut parts = []
    for i in range(300000) {
        parts.push(str(i))
    }
    let s = parts.join(",")
    let pieces = s.split(",")
    len(pieces) + len(s)
}
`,
		starlark: `
def main():
    parts = []
    for i in range(300000):
        parts.append(str(i))
    s = ",".join(parts)
    pieces = s.split(",")
    return len(pieces) + len(s)
`,
		want: "2288889",
	},
}

func benchVox(b *testing.B, p compareProgram) {
	m := vox.Compile(p.name+".vox", []byte(p.vox))
	if m.HasErrors() {
		b.Fatal(m.Diagnostics())
	}
	env := &vox.Env{Limits: vox.Limits{Steps: 0, Timeout: 0, MaxValueBytes: 1 << 30, MaxOutputBytes: 1 << 20}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := m.Call(ctx, "main", nil, env)
		if err != nil {
			b.Fatal(err)
		}
		if p.want != "" && string(r.JSON) != p.want {
			b.Fatalf("got %s, want %s", r.JSON, p.want)
		}
	}
}

func benchStarlark(b *testing.B, p compareProgram) {
	thread := &starlark.Thread{Name: p.name}
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{Recursion: true, While: true}, thread, p.name+".star", p.starlark, nil)
	if err != nil {
		b.Fatal(err)
	}
	main := globals["main"]
	b.ReportAllocs()
	for b.Loop() {
		v, err := starlark.Call(&starlark.Thread{Name: p.name}, main, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if p.want != "" && v.String() != p.want {
			b.Fatalf("got %s, want %s", v, p.want)
		}
	}
}

// TestCompareProgramsAgree checks that both interpreters compute the same
// result for every benchmark program.
func TestCompareProgramsAgree(t *testing.T) {
	for _, p := range comparePrograms {
		m := vox.Compile(p.name+".vox", []byte(p.vox))
		r, err := m.Call(context.Background(), "main", nil, &vox.Env{Limits: vox.Limits{MaxValueBytes: 1 << 30}})
		if err != nil {
			t.Fatalf("%s: vox: %v", p.name, err)
		}
		thread := &starlark.Thread{Name: p.name}
		globals, err := starlark.ExecFileOptions(&syntax.FileOptions{Recursion: true, While: true}, thread, p.name+".star", p.starlark, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := starlark.Call(thread, globals["main"], nil, nil)
		if err != nil {
			t.Fatalf("%s: starlark: %v", p.name, err)
		}
		if string(r.JSON) != v.String() {
			t.Errorf("%s: vox %s, starlark %s", p.name, r.JSON, v)
		}
	}
}
