package vox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// deepExprs builds expressions n levels deep, one per kind of nesting and
// of chain, each valid Vox whatever n.
var deepExprs = map[string]func(n int) string{
	"plus":   func(n int) string { return "1" + strings.Repeat(" + 1", n) },
	"pipe":   func(n int) string { return "1" + strings.Repeat(" |> id", n) },
	"call":   func(n int) string { return "me" + strings.Repeat("()", n) + " ; 1" },
	"field":  func(n int) string { return "{a: 1}" + strings.Repeat(".a", n) },
	"index":  func(n int) string { return "[1]" + strings.Repeat("[0]", n) },
	"try":    func(n int) string { return "Some(1)" + strings.Repeat("?", n) },
	"method": func(n int) string { return "1" + strings.Repeat(".abs()", n) },
	"paren":  func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
	"list":   func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + " ; 1" },
	"map":    func(n int) string { return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + " ; 1" },
	"block":  func(n int) string { return strings.Repeat("{ ", n) + "1" + strings.Repeat(" }", n) },
	"if":     func(n int) string { return strings.Repeat("if true { ", n) + "1" + strings.Repeat(" } else { 0 }", n) },
	"else":   func(n int) string { return strings.Repeat("if false { 0 } else ", n) + "{ 1 }" },
	"match":  func(n int) string { return strings.Repeat("match 1 { _ => ", n) + "1" + strings.Repeat(" }", n) },
	"unary":  func(n int) string { return strings.Repeat("- ", 2*n) + "1" },
	"not":    func(n int) string { return strings.Repeat("not ", 2*n) + "true ; 1" },
	"lambda": func(n int) string { return strings.Repeat("fn() { ", n) + "1" + strings.Repeat(" }", n) + " ; 1" },
	"mixed":  func(n int) string { return strings.Repeat("(1 + ", n) + "1" + strings.Repeat(")", n) },
}

// TestDeepExpressions compiles and calls tools whose bodies nest a million
// levels of every kind: each must be the vox/parse/too-deep error at a
// position, saying what is allowed, and never a Go stack overflow (which
// kills the process, so this test would not report at all). At a depth
// below the bound the same shapes compile and run.
func TestDeepExpressions(t *testing.T) {
	for name, build := range deepExprs {
		t.Run(name, func(t *testing.T) {
			n := 1_000_000
			if testing.Short() {
				n = 100_000
			}
			src := "fn id(x) { x }\nfn me() { me }\n@tool \"deep\"\nfn deep() {\n    " + build(n) + "\n}\n"
			m := Compile("deep.vox", []byte(src))
			var found bool
			for _, d := range m.Diagnostics() {
				if d.Code == "vox/parse/too-deep" && d.Line == 5 && d.Col > 0 && strings.Contains(d.Message, "deeper than 512 levels") {
					found = true
				}
			}
			if !found {
				t.Fatalf("no positioned vox/parse/too-deep error; got %v", m.Diagnostics())
			}
			if _, err := m.Call(context.Background(), "deep", nil, nil); err == nil {
				t.Fatal("a file with errors ran")
			}

			src = strings.Replace(src, build(n), build(120), 1)
			m = Compile("ok.vox", []byte(src))
			if m.HasErrors() {
				t.Fatalf("120 levels: %v", m.Diagnostics())
			}
			// Some shapes fail at run time (indexing an int): any error
			// but an internal one will do.
			if _, err := m.Call(context.Background(), "deep", nil, nil); err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Kind == Internal {
					t.Fatalf("120 levels: %v", err)
				}
			}
		})
	}
}
