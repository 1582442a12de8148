package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
)

// The mistakes carry a suggestion where one exists: the help
// lines and fixes an editor or an agent applies.
func TestSuggestions(t *testing.T) {
	cases := []struct {
		src, code, help, fix string
	}{
		{"@tool \"t\"\nfn t(xs: list[int]) to int {\n    let total = xs.len()\n    totl\n}\n", "vox/name/undefined", "did you mean total?", "total"},
		{"@tool \"t\"\nfn t(name: str) to int {\n    name.lenght()\n}\n", "vox/method/unknown", "did you mean length?", "length"},
		{"@tol \"t\"\nfn t(name: str) to str {\n    name\n}\n", "vox/decorator/unknown", "did you mean @tool?", "@tool"},
		{"@tool \"t\"\nfn t() to str {\n    json.stringfy(1)\n}\n", "vox/method/unknown", "did you mean json.stringify?", "stringify"},
		// A warning: the reference binds named arguments by position
		// (spec 21 §6.5), so it accepts the call.
		{"fn f(count: int) to int { count }\n@tool \"t\"\nfn t() to int {\n    f(cuont = 1)\n}\n", "vox/call/unknown-argument", "did you mean count?", ""},
		{"@tool \"t\"\nfn t(p: str) to list[str] {\n    fs.read(p).lines()\n}\n", "vox/method/unknown", "lines is the method of the str inside: unwrap the Result[str, str] first — `?` passes an Err on to the caller (x?.lines(...)) — or match it", ""},
		{"@tool \"t\"\nfn t(xs: list[str]) to int {\n    xs.first().len()\n}\n", "vox/method/unknown", "len is the method of the str inside: unwrap the Option[str] first — `?` passes a None on to the caller (x?.len(...)) — or match it", ""},
	}
	for _, c := range cases {
		m := vox.Compile("t.vox", []byte(c.src))
		i := slices.IndexFunc(m.Diagnostics(), func(d diag.Diagnostic) bool { return d.Code == c.code })
		if i < 0 {
			t.Errorf("%q: no %s in %v", c.src, c.code, m.Diagnostics())
			continue
		}
		d := m.Diagnostics()[i]
		want := diag.Error
		if c.code == "vox/call/unknown-argument" {
			want = diag.Warning
		}
		if d.Severity != want || len(d.Help) == 0 || d.Help[0] != c.help {
			t.Errorf("%s: got %v %q, want the %v with help %q", c.code, d.Severity, d.Help, want, c.help)
		}
		if c.fix != "" && (d.Fix == nil || d.Fix.NewText != c.fix || d.Fix.Line != d.Line || d.Fix.Col != d.Col) {
			t.Errorf("%s: fix %+v, want %q at %d:%d", c.code, d.Fix, c.fix, d.Line, d.Col)
		}
	}
}

// A checker error keeps its function, and what calls it, off the
// surface; the rest of the file stays.
func TestBroken(t *testing.T) {
	src := `fn helper(x: int) to str { return x }

@tool "Calls the broken helper"
fn uses_helper() to str { helper(1) }

@tool "Fine"
fn fine() to int { 1 }
`
	m := vox.Compile("b.vox", []byte(src))
	if m.HasErrors() {
		t.Fatalf("a checker error is not a file error: %v", m.Diagnostics())
	}
	d, ok := m.Broken("helper")
	if !ok || d.Line != 1 || d.Code != "vox/return/type" {
		t.Errorf("helper: %v %v", d, ok)
	}
	d, ok = m.Broken("uses_helper")
	if !ok || d.Line != 1 || d.Col != 35 || !strings.Contains(d.Message, "it uses function helper, which has this error: helper returns int") {
		t.Errorf("uses_helper: %v %v", d, ok)
	}
	if d, ok := m.Broken("fine"); ok {
		t.Errorf("fine is broken: %v", d)
	}
}

// The queries of a recorded check answer an editor: hover, definition,
// completion of names and members.
func TestQueries(t *testing.T) {
	src := `type Point { x: int, y: int }

fn norm(p: Point) to int { p.x * p.x + p.y * p.y }

@tool "Queries"
fn q(name: str, n: int = 2) to str {
    let greeting = "hi " + name
    let size = norm(Point { x: n, y: 1 })
    greeting.to_upper() + str(size)
}
`
	m := vox.CompileWith("q.vox", []byte(src), check.Options{Record: true})
	r := m.Check()
	if info, ok := r.At(9, 5); !ok || info.Name != "greeting" || info.Type != "str" || info.Kind != "variable" || info.DefLine != 7 || info.DefCol != 9 {
		t.Errorf("hover greeting: %+v %v", info, ok)
	}
	if info, ok := r.At(8, 16); !ok || info.Kind != "function" || info.Signature != "norm(p: Point) to int" {
		t.Errorf("hover norm: %+v %v", info, ok)
	}
	if info, ok := r.At(9, 14); !ok || info.Kind != "method" || !strings.Contains(info.Signature, "to_upper") {
		t.Errorf("hover to_upper: %+v %v", info, ok)
	}
	if info, ok := r.At(3, 30); !ok || info.Kind != "field" || info.Type != "int" || info.DefLine != 1 {
		t.Errorf("hover p.x: %+v %v", info, ok)
	}
	if l, c, ok := r.Definition(8, 16); !ok || l != 3 || c != 4 {
		t.Errorf("definition of norm: %d:%d %v", l, c, ok)
	}
	names := r.Names(9, 5)
	for _, want := range []string{"greeting", "size", "name", "n", "norm", "len", "fs"} {
		if !slices.ContainsFunc(names, func(i check.Info) bool { return i.Name == want }) {
			t.Errorf("completion at 9:5 lacks %s", want)
		}
	}
	if slices.ContainsFunc(r.Names(3, 28), func(i check.Info) bool { return i.Name == "greeting" }) {
		t.Error("completion in norm offers a local of q")
	}
	members := check.Members("str")
	if !slices.ContainsFunc(members, func(i check.Info) bool { return i.Name == "to_upper" }) ||
		!slices.ContainsFunc(check.Members("fs"), func(i check.Info) bool { return i.Name == "read" }) {
		t.Errorf("members: %v", members)
	}
	if !slices.Contains(check.Decorators(), "@tool") {
		t.Error("decorators lack @tool")
	}
}

// The compatibility warnings appear with Options.Compat only, each at its
// line; an extension used without it stays quiet.
func TestCompat(t *testing.T) {
	src := `let LIMIT = 3

fn scale(x: int, by: int = 2) to int { x * by }

@tool "Uses extensions"
fn ext(xs: list[int], m: map[str, int]) to int {
    let mut n = scale(1)
    for (k, v) in m { n += v }
    let r = match n {
        x if x > 3 => 1
        -1 => 2
        _ => 3
    }
    n + r + (xs |> scale(3)) + LIMIT + scale(by = 1, x = 2)
}
`
	want := map[string]int{
		"vox/compat/module-const":      1,
		"vox/compat/decorator-retired": 5,
		"vox/compat/defaults-arity":    7,
		"vox/compat/for-pattern":       8,
		"vox/compat/match-guard":       10,
		"vox/compat/literal-pattern":   11,
		"vox/compat/pipe-args":         14,
		"vox/compat/named-args":        14,
	}
	quiet := vox.Compile("c.vox", []byte(src))
	for _, d := range quiet.Diagnostics() {
		if strings.HasPrefix(d.Code, "vox/compat/") {
			t.Errorf("without Compat: %s", d)
		}
	}
	got := map[string]int{}
	for _, d := range vox.CompileWith("c.vox", []byte(src), check.Options{Compat: true}).Diagnostics() {
		if strings.HasPrefix(d.Code, "vox/compat/") {
			if d.Severity != diag.Warning {
				t.Errorf("not a warning: %s", d)
			}
			if _, seen := got[d.Code]; !seen {
				got[d.Code] = d.Line
			}
		}
	}
	for code, line := range want {
		if got[code] != line {
			t.Errorf("%s at line %d, want %d", code, got[code], line)
		}
	}
}

// Every code the checker reports is in the checker's section of
// docs/vox-language.md.
func TestEveryCodeIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/vox-language.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	if i := strings.Index(section, "## The checker"); i >= 0 {
		section = section[i:]
	}
	files, _ := filepath.Glob("*.go")
	codeRE := regexp.MustCompile(`"(vox/[a-z-]+/[a-z-]+)"`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range codeRE.FindAllStringSubmatch(string(src), -1) {
			n++
			if !strings.Contains(section, "`"+m[1]+"`") {
				t.Errorf("%s: %s is not in docs/vox-language.md, The checker", f, m[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d codes", n)
	}
}

// A workspace prompt's parameters are MCP prompt arguments, strings: str
// or Option[str]; any other type, or a result other than str, is a
// checker error at the parameter (docs/vox-language.md, Prompts) that
// keeps the prompt off the surface.
func TestPromptSignature(t *testing.T) {
	good := "@mcp.prompt(\"Review a file\")\nfn review(path: str, focus: Option[str]) to str {\n    \"review \" + path\n}\n"
	m := vox.Compile("p.vox", []byte(good))
	if m.HasErrors() || len(m.Diagnostics()) > 0 {
		t.Fatalf("a str/Option[str] prompt: %v", m.Diagnostics())
	}
	ps := m.Prompts()
	if len(ps) != 1 || ps[0].Name != "review" || ps[0].Description != "Review a file" || len(ps[0].Arguments) != 2 ||
		!ps[0].Arguments[0].Required || ps[0].Arguments[1].Required || ps[0].Line != 1 {
		t.Fatalf("prompts: %+v", ps)
	}
	cases := []struct {
		src, code string
		line, col int
	}{
		{"@mcp.prompt(\"p\")\nfn p(name: str, count: int) to str {\n    name\n}\n", "vox/decl/prompt-param", 2, 17},
		{"@mcp.prompt(\"p\")\nfn p(tags: Option[int]) to str {\n    \"x\"\n}\n", "vox/decl/prompt-param", 2, 6},
		{"@mcp.prompt(\"p\")\nfn p(name: str) to int {\n    1\n}\n", "vox/decl/prompt-result", 2, 20},
		{"@mcp.prompt(\"p\")\nfn p(name: str) to list[str] {\n    [name]\n}\n", "vox/decl/prompt-result", 2, 20},
		{"@mcp.prompt(\"p\")\nfn p(name: str) to list[Message[str]] {\n    []\n}\n", "vox/decl/prompt-result", 2, 20},
	}
	for _, c := range cases {
		m := vox.Compile("p.vox", []byte(c.src))
		i := slices.IndexFunc(m.Diagnostics(), func(d diag.Diagnostic) bool { return d.Code == c.code })
		if i < 0 {
			t.Errorf("%q: no %s in %v", c.src, c.code, m.Diagnostics())
			continue
		}
		d := m.Diagnostics()[i]
		if d.Severity != diag.Error || d.Line != c.line || d.Col != c.col || len(d.Help) == 0 || !strings.Contains(d.Message, "must be") {
			t.Errorf("%s: got %+v, want an error at %d:%d with help", c.code, d, c.line, c.col)
		}
		if _, broken := m.Broken("p"); !broken {
			t.Errorf("%s: the prompt is not broken", c.code)
		}
	}
}

// A resource whose URI is a template (docs/vox-language.md, Resources with
// URI parameters) takes exactly its variables as str parameters; a
// malformed template, a variable without its parameter, a parameter
// without its variable and a parameter of another type are positioned
// checker errors with a hint that keep the resource off the surface.
func TestResourceTemplateSignature(t *testing.T) {
	good := "@mcp.resource(\"notes://{id}/{+path}\", \"A note\", \"application/json\")\nfn note(id: str, path: str) to str {\n    id + path\n}\n"
	m := vox.Compile("r.vox", []byte(good))
	if m.HasErrors() || len(m.Diagnostics()) > 0 {
		t.Fatalf("a template resource: %v", m.Diagnostics())
	}
	if rs := m.Resources(); len(rs) != 1 || fmt.Sprint(rs[0].Variables) != "[id path]" || rs[0].MIMEType != "application/json" {
		t.Fatalf("resources: %+v", rs)
	}
	cases := []struct {
		src, code string
		line, col int
		message   string
	}{
		{"@mcp.resource(\"notes://{id}\", \"d\")\nfn note() to str {\n    \"x\"\n}\n", "vox/decl/resource-var", 1, 24, "the URI variable id must be a parameter of note"},
		{"@mcp.resource(\"notes://{id}\", \"d\")\nfn note(id: str, extra: str) to str {\n    id\n}\n", "vox/decl/resource-var", 2, 18, "parameter extra must be a variable"},
		{"@mcp.resource(\"notes://{id}\", \"d\")\nfn note(id: int) to str {\n    \"x\"\n}\n", "vox/decl/resource-var", 2, 9, "must be str"},
		{"@resource \"notes://{?q}\" \"d\"\nfn note(q: str) to str {\n    q\n}\n", "vox/decl/resource-template", 1, 20, "operator \"?\" is not supported"},
		{"@mcp.resource(\"notes://{id\", \"d\")\nfn note(id: str) to str {\n    id\n}\n", "vox/decl/resource-template", 1, 24, "unclosed"},
		{"@mcp.resource(\"notes://{a}{b}\", \"d\")\nfn note(a: str, b: str) to str {\n    a\n}\n", "vox/decl/resource-template", 1, 27, "ambiguous"},
		{"@mcp.resource(\"notes://{a}/{a}\", \"d\")\nfn note(a: str) to str {\n    a\n}\n", "vox/decl/resource-template", 1, 28, "twice"},
	}
	for _, c := range cases {
		m := vox.Compile("r.vox", []byte(c.src))
		i := slices.IndexFunc(m.Diagnostics(), func(d diag.Diagnostic) bool { return d.Code == c.code })
		if i < 0 {
			t.Errorf("%q: no %s in %v", c.src, c.code, m.Diagnostics())
			continue
		}
		d := m.Diagnostics()[i]
		if d.Severity != diag.Error || d.Line != c.line || d.Col != c.col || len(d.Help) == 0 || !strings.Contains(d.Message, c.message) {
			t.Errorf("%s: got %+v, want an error at %d:%d with help saying %q", c.code, d, c.line, c.col, c.message)
		}
		if _, broken := m.Broken("note"); !broken {
			t.Errorf("%s: the resource is not broken", c.code)
		}
		if m.HasErrors() {
			t.Errorf("%s: a file error, not a checker error: %v", c.code, m.Diagnostics())
		}
	}
}

// @mcp.complete("param", fn) names a parameter of its prompt or resource
// template and a plain fn() to list[str] of the file (docs/vox-language.md,
// Completion); anything else is vox/decl/complete at the culprit, and the
// decorator on a tool or a plain function is a file error.
func TestCompleteDecorator(t *testing.T) {
	good := "fn ids() to list[str] { [\"a\"] }\n@mcp.prompt(\"p\")\n@mcp.complete(\"id\", ids)\nfn p(id: str) to str { id }\n"
	m := vox.Compile("c.vox", []byte(good))
	if len(m.Diagnostics()) > 0 {
		t.Fatalf("a completed prompt: %v", m.Diagnostics())
	}
	if ps := m.Prompts(); len(ps) != 1 || fmt.Sprint(ps[0].Completions) != "[{id ids}]" {
		t.Fatalf("prompts: %+v", m.Prompts())
	}
	cases := []struct {
		src       string
		line, col int
		message   string
	}{
		{"fn ids() to list[str] { [] }\n@mcp.prompt(\"p\")\n@mcp.complete(\"nope\", ids)\nfn p(id: str) to str { id }\n", 3, 15, "p has no parameter nope"},
		{"@mcp.prompt(\"p\")\n@mcp.complete(\"id\", missing)\nfn p(id: str) to str { id }\n", 2, 21, "no function missing"},
		{"fn ids(x: str) to list[str] { [x] }\n@mcp.prompt(\"p\")\n@mcp.complete(\"id\", ids)\nfn p(id: str) to str { id }\n", 3, 21, "fn ids() to list[str]"},
		{"fn ids() to list[int] { [1] }\n@mcp.resource(\"n://{id}\", \"d\")\n@mcp.complete(\"id\", ids)\nfn p(id: str) to str { id }\n", 3, 21, "fn ids() to list[str]"},
		{"fn ids() to list[str] { [] }\n@mcp.prompt(\"p\")\n@mcp.complete(\"id\", ids)\n@mcp.complete(\"id\", ids)\nfn p(id: str) to str { id }\n", 4, 15, "completed twice"},
	}
	for _, c := range cases {
		m := vox.Compile("c.vox", []byte(c.src))
		i := slices.IndexFunc(m.Diagnostics(), func(d diag.Diagnostic) bool { return d.Code == "vox/decl/complete" })
		if i < 0 {
			t.Errorf("%q: no vox/decl/complete in %v", c.src, m.Diagnostics())
			continue
		}
		d := m.Diagnostics()[i]
		if d.Severity != diag.Error || d.Line != c.line || d.Col != c.col || len(d.Help) == 0 || !strings.Contains(d.Message, c.message) {
			t.Errorf("got %+v, want an error at %d:%d with help saying %q", d, c.line, c.col, c.message)
		}
		if _, broken := m.Broken("p"); !broken {
			t.Errorf("%q: p is not broken", c.src)
		}
	}
	m = vox.Compile("c.vox", []byte("fn ids() to list[str] { [] }\n@tool \"t\"\n@mcp.complete(\"id\", ids)\nfn t(id: str) to str { id }\n"))
	if !m.HasErrors() || !strings.Contains(fmt.Sprint(m.Diagnostics()), "vox/decl/complete") {
		t.Errorf("@mcp.complete on a tool: %v", m.Diagnostics())
	}
}

// An @endpoint kind the reference rejects (spec 22 §4.2) is a warning at
// the kind naming the kinds it accepts, an error only under Strict; the
// three it accepts are nothing.
func TestEndpointKind(t *testing.T) {
	cases := []struct {
		src       string
		line, col int // 0: no diagnostic
		msg       string
	}{
		{"@endpoint(kind: query)\nfn a() to int { 1 }\n", 0, 0, ""},
		{"@endpoint(kind: mutation) fn a() to int { 1 }\n", 0, 0, ""},
		{"@endpoint( kind : server )\nfn a() to int { 1 }\n", 0, 0, ""},
		{"@endpoint(kind: qurey)\nfn a() to int { 1 }\n", 1, 17, "unknown endpoint kind qurey: expected query, mutation or server"},
		{"fn b() to int { 2 }\n\n@endpoint(\n    kind: delete\n)\nfn a() to int { 1 }\n", 4, 11, "unknown endpoint kind delete"},
		{"@endpoint(method: query)\nfn a() to int { 1 }\n", 1, 10, "@endpoint needs kind: query, mutation or server"},
		{"@endpoint fn a() to int { 1 }\n", 1, 10, "@endpoint needs kind"},
	}
	for _, c := range cases {
		for _, opts := range []check.Options{{}, {Strict: true}} {
			m := vox.CompileWith("e.vox", []byte(c.src), opts)
			var got []diag.Diagnostic
			for _, d := range m.Diagnostics() {
				if d.Code == "vox/decorator/endpoint-kind" {
					got = append(got, d)
				}
			}
			if c.line == 0 {
				if len(got) > 0 {
					t.Errorf("strict=%v %q: got %v, want none", opts.Strict, c.src, got)
				}
				continue
			}
			want := diag.Warning
			if opts.Strict {
				want = diag.Error
			}
			if len(got) != 1 || got[0].Line != c.line || got[0].Col != c.col || got[0].Severity != want ||
				!strings.Contains(got[0].Message, c.msg) || len(got[0].Help) == 0 || !strings.Contains(got[0].Help[0], "kind: mutation") {
				t.Errorf("strict=%v %q: got %+v, want a %v at %d:%d saying %q", opts.Strict, c.src, got, want, c.line, c.col, c.msg)
			}
			if !opts.Strict {
				if _, broken := m.Broken("a"); broken {
					t.Errorf("%q: the endpoint is broken by a warning", c.src)
				}
			}
		}
	}
}
