package vox

import (
	"fmt"
	"strings"
	"testing"
)

// TestLargeScopes resolves functions with more locals than the resolver
// searches without its counts (bigScope): shadowing, captures by lambdas,
// globals and undefined names must resolve as in small functions.
func TestLargeScopes(t *testing.T) {
	var b strings.Builder
	b.WriteString("let K = 5\nfn helper(x) { x * 2 }\nfn big(n: int) {\n    let v0 = n\n")
	for i := 1; i < 400; i++ {
		fmt.Fprintf(&b, "    let v%d = v%d + 1\n", i, i-1)
	}
	b.WriteString(`    let add = fn(x) x + v399 + K
    let v0 = 1000
    let shadow = if true { let v1 = 7
        v1 + v0 } else { 0 }
    [helper(v10), add(1), shadow, v0, len([v5, v6])]
}
fn big_undefined() {
`)
	for i := range 300 {
		fmt.Fprintf(&b, "    let u%d = %d\n", i, i)
	}
	b.WriteString("    missing_name + u1\n}\n")
	m := compileOK(t, b.String())
	r, err := call(t, m, "big", `{"n":1}`, nil)
	if err != nil || string(r.JSON) != "[22,406,1007,1000,2]" {
		t.Fatalf("big: %s %v", r.JSON, err)
	}
	_, err = call(t, m, "big_undefined", "", nil)
	if err == nil || err.Message != "undefined: missing_name" {
		t.Fatalf("big_undefined: %v", err)
	}
}
