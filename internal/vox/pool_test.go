package vox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Calls reuse pooled interpreter states and compile function bodies on
// their first call. These tests check that nothing of one call reaches the
// next and that first calls racing each other are safe (run with -race).

const poolSrc = `
let SEEN = []
let LABEL = "a"

@tool "Remembers"
fn remember(x: int) to int {
    let mut seen = SEEN
    seen.push(x)
    len(seen) * 1000 + sum(seen) + len(SEEN) * 100000
}

fn change_constant() { SEEN.push(1) }

fn locals(n: int) to int {
    let a = n
    let b = [a, a]
    let c = {k: b}
    len(c.k) + a
}

fn deep(n: int) to int { if n == 0 { return 0 }
    1 + deep(n - 1) }

fn spin() { loop { } }

fn label() { LABEL + str(len(SEEN)) }
`

const otherSrc = `
let A = "other-a"
let B = [1]
let C = {x: 2}
fn label() { A + str(len(B)) + str(C.x) }
`

// TestPooledCallsDoNotLeak alternates calls that fill constants, frames
// and the slot stack, fail at limits or in the middle, and run another
// module: every call sees a fresh state.
func TestPooledCallsDoNotLeak(t *testing.T) {
	m := compileOK(t, poolSrc)
	other := compileOK(t, otherSrc)
	limited := &Env{Limits: Limits{Steps: 5000, MaxDepth: 64}}
	for i := range 50 {
		r, err := call(t, m, "remember", fmt.Sprintf(`{"x":%d}`, i), nil)
		if err != nil || string(r.JSON) != fmt.Sprint(1000+i) {
			t.Fatalf("remember %d: %s %v (a constant leaked from an earlier call)", i, r.JSON, err)
		}
		if r, err := call(t, m, "label", "", nil); err != nil || r.Text != "a0" {
			t.Fatalf("label: %q %v", r.Text, err)
		}
		if r, err := call(t, other, "label", "", nil); err != nil || r.Text != "other-a12" {
			t.Fatalf("other label: %q %v", r.Text, err)
		}
		if _, err := call(t, m, "deep", `{"n":100}`, limited); err == nil || err.Limit != "max_depth" ||
			err.Message != "max_depth limit of 64 exceeded; raise limits.max_depth in contracts/mcp/workspace-mcp-surface.v1.yaml" {
			t.Fatalf("deep: %#v", err)
		}
		if _, err := call(t, m, "spin", "", limited); err == nil || err.Limit != "steps" ||
			err.Message != "steps limit of 5000 exceeded; raise limits.steps in contracts/mcp/workspace-mcp-surface.v1.yaml" {
			t.Fatalf("spin: %#v", err)
		}
		// The steps of the failed calls are not carried over: 60 levels
		// of recursion fit in the limits.
		if r, err := call(t, m, "deep", `{"n":60}`, limited); err != nil || string(r.JSON) != "60" {
			t.Fatalf("deep 60 after limit errors: %s %v", r.JSON, err)
		}
		if r, err := call(t, m, "locals", `{"n":7}`, nil); err != nil || string(r.JSON) != "9" {
			t.Fatalf("locals: %s %v", r.JSON, err)
		}
		if _, err := call(t, m, "remember", `{"x":"no"}`, nil); err == nil || err.Kind != ArgumentError {
			t.Fatalf("argument error: %v", err)
		}
		if _, err := call(t, m, "change_constant", "", nil); err == nil ||
			err.Message != "cannot change constant SEEN: push changes its receiver; copy it into a variable first" {
			t.Fatalf("change_constant: %v", err)
		}
	}
}

// TestDeepThenShallowCalls grows the slot stack far beyond its first chunk
// and then runs small calls: the trimmed, recycled stack serves them.
func TestDeepThenShallowCalls(t *testing.T) {
	m := compileOK(t, `
fn deep(n: int) to int {
    let a = n
    let b = n
    let c = n
    let d = n
    if n == 0 { return 0 }
    1 + deep(n - 1)
}
`)
	env := &Env{Limits: Limits{MaxDepth: 10000, Steps: 0}}
	for range 5 {
		if r, err := call(t, m, "deep", `{"n":9000}`, env); err != nil || string(r.JSON) != "9000" {
			t.Fatalf("deep 9000: %s %v", r.JSON, err)
		}
		if r, err := call(t, m, "deep", `{"n":3}`, env); err != nil || string(r.JSON) != "3" {
			t.Fatalf("deep 3: %s %v", r.JSON, err)
		}
	}
}

// TestConcurrentFirstCalls makes the first calls of every function of fresh
// modules from many goroutines at once: each body is compiled once, under
// the program's lock, and every call gets the right answer.
func TestConcurrentFirstCalls(t *testing.T) {
	var src strings.Builder
	for i := range 20 {
		fmt.Fprintf(&src, `
fn f%d(n: int, k: int = %d) to int {
    let add = fn(x) x + k
    let xs = [n, n + 1, n + 2].map(add)
    match xs.len() { 3 => sum(xs), _ => -1 }
}
`, i, i)
	}
	for round := range 10 {
		m := compileOK(t, src.String())
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 20 {
					i := (j + g + round) % 20
					r, err := m.Call(context.Background(), fmt.Sprintf("f%d", i), []byte(`{"n":1}`), nil)
					if want := fmt.Sprint(6 + 3*i); err != nil || string(r.JSON) != want {
						t.Errorf("f%d: %s %v, want %s", i, r.JSON, err, want)
					}
				}
			}()
		}
		wg.Wait()
	}
}
