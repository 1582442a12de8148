package vox

import (
	"context"
	"errors"
	"fmt"
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
	// The constructs of the core language: records in records, patterns,
	// types, loops, with, in, guards.
	"record": func(n int) string { return strings.Repeat("R { v: ", n) + "1" + strings.Repeat(" }", n) + " ; 1" },
	"tuplepat": func(n int) string {
		return "let " + strings.Repeat("(", n) + "a" + strings.Repeat(",)", n) + " = 1 ; 1"
	},
	"parenpat": func(n int) string {
		return "match 1 { " + strings.Repeat("(", n) + "a" + strings.Repeat(")", n) + " => a }"
	},
	"ctorpat": func(n int) string {
		return "match 1 { " + strings.Repeat("Some(", n) + "a" + strings.Repeat(")", n) + " => a, _ => 1 }"
	},
	"type": func(n int) string {
		return "let x: " + strings.Repeat("list[", n) + "int" + strings.Repeat("]", n) + " = 1 ; 1"
	},
	"fntype": func(n int) string { return "let f: " + strings.Repeat("fn(", n) + strings.Repeat(")", n) + " = 1 ; 1" },
	"for": func(n int) string {
		return strings.Repeat("for x in [1] { ", n) + "1" + strings.Repeat(" }", n) + " ; 1"
	},
	"forpat": func(n int) string {
		return "for " + strings.Repeat("(", n) + "a" + strings.Repeat(",)", n) + " in [] { a } ; 1"
	},
	"in":   func(n int) string { return "1" + strings.Repeat(" in [true]", n) },
	"with": func(n int) string { return "1" + strings.Repeat(" with {}", n) },
	"guard": func(n int) string {
		return strings.Repeat("match 1 { _ if true => ", n) + "1" + strings.Repeat(" }", n)
	},
	"arrow": func(n int) string { return strings.Repeat("(a, b) => ", n) + "1 ; 1" },
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
			src := "fn id(x) { x }\nfn me() { me }\n@tool \"deep\"\nfn deep() {\n    " + build(n) + "\n}\ntype R { v: any }\n"
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

// TestDeepDeclarations nests the types of record fields and parameters a
// million levels (records holding records, function types): the
// vox/parse/too-deep error at a position, never a Go stack overflow in
// the parser, the resolver or the schema mapper. Below the bound a tool
// whose record parameter nests 120 levels compiles, maps to a schema and
// runs.
func TestDeepDeclarations(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	deepType := func(n int) string { return strings.Repeat("list[", n) + "Leaf" + strings.Repeat("]", n) }
	fnType := func(n int) string { return strings.Repeat("fn(", n) + strings.Repeat(")", n) }
	for name, src := range map[string]string{
		"record field":   "type Leaf { x: int }\ntype D { f: " + deepType(n) + " }\n",
		"parameter":      "type Leaf { x: int }\n@tool \"t\"\nfn t(p: " + deepType(n) + ") { 1 }\n",
		"function type":  "type F { f: " + fnType(n) + " }\n",
		"type parameter": "@tool \"t\"\nfn f<T>(x: Option[" + strings.Repeat("Option[", n) + "T" + strings.Repeat("]", n+1) + ") { x }\n",
	} {
		m := Compile("deep.vox", []byte(src))
		var found bool
		for _, d := range m.Diagnostics() {
			found = found || d.Code == "vox/parse/too-deep" && d.Line > 0 && d.Col > 0 && strings.Contains(d.Message, "deeper than 512 levels")
		}
		if !found {
			t.Errorf("%s: no positioned vox/parse/too-deep error; got %v", name, m.Diagnostics())
		}
	}
	// Records whose fields are records, 120 deep, as a tool parameter.
	var b strings.Builder
	b.WriteString("type R0 { x: int }\n")
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "type R%d { inner: R%d, more: list[R%d] }\n", i, i-1, i-1)
	}
	b.WriteString("@tool \"deep records\"\nfn t(r: R120) to int { 1 }\n")
	m := Compile("ok.vox", []byte(b.String()))
	if m.HasErrors() || len(m.Tools()) != 1 || len(m.Tools()[0].InputSchema) < 1000 {
		t.Fatalf("120 nested records: %v", m.Diagnostics())
	}
	arg := `{"x":1}`
	for range 120 {
		arg = `{"inner":` + arg + `,"more":[]}`
	}
	if r, err := m.Call(context.Background(), "t", []byte(`{"r":`+arg+`}`), nil); err != nil || string(r.JSON) != "1" {
		t.Fatalf("call: %s %v", r.JSON, err)
	}
}
