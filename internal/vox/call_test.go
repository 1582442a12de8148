package vox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/content"
)

const bridgeSrc = `
let GREETING = "hello"

@tool "Greets"
fn greet(name: str, times: int = 1, punct: str = GREETING + "!") to str {
    "{name}{punct}".repeat(times)
}

@tool "Types"
fn types(i: int, f: float, b: bool, xs: list[int], m: map[str, list[str]], t: (int, str), o: Option[int], u, lst: list = []) to map {
    {i: i, f: f, f_type: type_of(f), b: b, xs: xs, m: m, t: t, o: o, u: u, u_type: type_of(u), n: len(lst)}
}

@tool "Options"
fn options(a: Option[str], b: Option[int] = 5) to str {
    str(a) + " " + str(b)
}

fn results(kind: str) {
    match kind {
        "ok" => Ok("fine")
        "some" => Some([1, 2])
        "none" => None
        "err" => Err({code: 7})
        "errstr" => Err("plain text")
        "nan" => 0.0 / 0.0
        "float" => 2.5
        "whole" => 2.0
        "tagged" => Ready("x")
        "unit" => Unit
        _ => kind
    }
}

type State =
    | Idle
    | Ready(data: str)

@mcp.resource("docs://a.md", "A")
fn res_a() to str { "# A" }

@mcp.resource("docs://b.md", "B")
fn res_b() to Result[str, str] { Ok("# B") }

@mcp.resource("docs://c.json", "C")
fn res_c() { 42 }

@mcp.resource("docs://d.md", "D")
fn res_d() { Err("no such doc") }

fn spin() { loop { } }
fn spin_while() { let mut i = 0
    while true { i += 1 } }
fn deep(n = 0) { deep(n + 1) }
fn grow() { let mut s = "x"
    loop { s = s + s } }
fn grow_list() { let mut xs = [1]
    loop { xs = xs + xs } }
fn big_output() { "x".repeat(2000000) }
fn chatty(x) { print("value", x, [1]) 
    x }
fn uses_undefined() { db.query("x") }
fn nested_list() { let mut l = []
    for i in range(600) { l = [l] }
    str(l) }
fn cyclic() { let l = [1]
    l.push(l)
    assert(l == l)
    str(l) }
`

func compileOK(t *testing.T, src string) *Module {
	t.Helper()
	m := Compile("bridge.vox", []byte(src))
	if m.HasErrors() {
		t.Fatalf("compile: %v", m.Diagnostics())
	}
	return m
}

func call(t *testing.T, m *Module, fn, args string, env *Env) (Result, *Error) {
	t.Helper()
	var a []byte
	if args != "" {
		a = []byte(args)
	}
	r, err := m.Call(context.Background(), fn, a, env)
	if err == nil {
		return r, nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %T is not *vox.Error: %v", fn, err, err)
	}
	return r, e
}

func TestCallArguments(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	for _, tc := range []struct {
		fn, args, want string
	}{
		{"greet", `{"name":"Ada"}`, `"Adahello!"`},
		{"greet", `{"name":"Ada","times":2,"punct":"?"}`, `"Ada?Ada?"`},
		{"types", `{"i":1,"f":2,"b":true,"xs":[1,2],"m":{"k":["v"]},"t":[1,"a"],"o":3,"u":{"z":1,"a":[null]}}`,
			`{"i":1,"f":2,"f_type":"float","b":true,"xs":[1,2],"m":{"k":["v"]},"t":[1,"a"],"o":3,"u":{"z":1,"a":[null]},"u_type":"map","n":0}`},
		{"types", `{"i":9007199254740993,"f":1.5,"b":false,"xs":[],"m":{},"t":[0,""],"o":null,"u":1e3,"lst":[1,2,3]}`,
			`{"i":9007199254740993,"f":1.5,"f_type":"float","b":false,"xs":[],"m":{},"t":[0,""],"o":null,"u":1000,"u_type":"int","n":3}`},
		{"types", `{"i":1.0,"f":1,"b":true,"xs":[2.0],"m":{},"t":[1,"a"],"o":1,"u":2.5}`,
			`{"i":1,"f":1,"f_type":"float","b":true,"xs":[2],"m":{},"t":[1,"a"],"o":1,"u":2.5,"u_type":"float","n":0}`},
		{"options", `{}`, `"None Some(5)"`},
		{"options", `{"a":null,"b":null}`, `"None None"`},
		{"options", `{"a":"x","b":1}`, `"Some(x) Some(1)"`},
		{"options", "", `"None Some(5)"`},
		{"options", " \n", `"None Some(5)"`},
	} {
		r, err := call(t, m, tc.fn, tc.args, nil)
		if err != nil {
			t.Errorf("%s(%s): %v", tc.fn, tc.args, err)
			continue
		}
		if string(r.JSON) != tc.want {
			t.Errorf("%s(%s)\n got %s\nwant %s", tc.fn, tc.args, r.JSON, tc.want)
		}
	}
}

func TestCallArgumentErrors(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	for _, tc := range []struct {
		fn, args, want string
	}{
		{"greet", `{}`, "missing argument: name"},
		{"greet", `{"name":"a","nope":1}`, "unknown argument: nope"},
		{"greet", `{"name":1}`, "argument name: want str, got integer"},
		{"greet", `{"name":"a","times":1.5}`, "argument times: want int, got number"},
		{"greet", `{"name":"a","times":"2"}`, "argument times: want int, got string"},
		{"greet", `{"name":null}`, "argument name: want str, got null"},
		{"types", `{"i":1,"f":"x","b":true,"xs":[],"m":{},"t":[1,"a"],"u":1}`, "argument f: want float, got string"},
		{"types", `{"i":1,"f":1,"b":1,"xs":[],"m":{},"t":[1,"a"],"u":1}`, "argument b: want bool, got integer"},
		{"types", `{"i":1,"f":1,"b":true,"xs":[1,"2"],"m":{},"t":[1,"a"],"u":1}`, "argument xs[1]: want int, got string"},
		{"types", `{"i":1,"f":1,"b":true,"xs":{},"m":{},"t":[1,"a"],"u":1}`, "argument xs: want list[int], got object"},
		{"types", `{"i":1,"f":1,"b":true,"xs":[],"m":{"k":[1]},"t":[1,"a"],"u":1}`, "argument m.k[0]: want str, got integer"},
		{"types", `{"i":1,"f":1,"b":true,"xs":[],"m":{},"t":[1],"u":1}`, "argument t: want (int, str), got array"},
		{"types", `{"i":1,"f":1,"b":true,"xs":[],"m":{},"t":[1,"a"],"o":"x","u":1}`, "argument o: want int, got string"},
		{"greet", `[1]`, "arguments must be a JSON object, got array"},
		{"greet", `{"name":`, "invalid JSON arguments: unexpected end of JSON input at offset 8"},
		{"greet", `{"name":"a"} x`, "invalid JSON arguments: invalid character 'x' after the value at offset 13"},
		{"greet", strings.Repeat("[", 600) + strings.Repeat("]", 600), "invalid JSON arguments: value nested deeper than 512"},
		{"nothing_here", `{}`, "undefined: nothing_here"},
	} {
		_, err := call(t, m, tc.fn, tc.args, nil)
		if err == nil || err.Message != tc.want {
			t.Errorf("%s(%.40s): got %v, want %q", tc.fn, tc.args, err, tc.want)
			continue
		}
		wantKind := ArgumentError
		if tc.fn == "nothing_here" {
			wantKind = RuntimeError
		}
		if err.Kind != wantKind {
			t.Errorf("%s(%.40s): kind %v", tc.fn, tc.args, err.Kind)
		}
	}
}

func TestCallResults(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	for _, tc := range []struct {
		kind, json, text string
	}{
		{"ok", `"fine"`, "fine"},
		{"some", `[1,2]`, `[1,2]`},
		{"none", `null`, `null`},
		{"float", `2.5`, `2.5`},
		{"whole", `2`, `2`},
		{"tagged", `{"Ready":{"data":"x"}}`, `{"Ready":{"data":"x"}}`},
		{"unit", `null`, `null`},
		{"plain", `"plain"`, `plain`},
	} {
		r, err := call(t, m, "results", fmt.Sprintf(`{"kind":%q}`, tc.kind), nil)
		if err != nil || string(r.JSON) != tc.json || r.Text != tc.text {
			t.Errorf("%s: got %s %q %v, want %s %q", tc.kind, r.JSON, r.Text, err, tc.json, tc.text)
		}
	}
	_, err := call(t, m, "results", `{"kind":"err"}`, nil)
	if err == nil || err.Kind != ErrValue || err.Message != `{"code":7}` {
		t.Errorf("err: %#v", err)
	}
	_, err = call(t, m, "results", `{"kind":"errstr"}`, nil)
	if err == nil || err.Kind != ErrValue || err.Message != "plain text" {
		t.Errorf("errstr: %#v", err)
	}
	_, err = call(t, m, "results", `{"kind":"nan"}`, nil)
	if err == nil || err.Message != "NaN has no JSON form" {
		t.Errorf("nan: %#v", err)
	}
}

func TestReadResource(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	ctx := context.Background()
	if s, err := m.ReadResource(ctx, "docs://a.md", nil); err != nil || s != "# A" {
		t.Errorf("a: %q %v", s, err)
	}
	if s, err := m.ReadResource(ctx, "docs://b.md", nil); err != nil || s != "# B" {
		t.Errorf("b: %q %v", s, err)
	}
	if _, err := m.ReadResource(ctx, "docs://c.json", nil); err == nil || err.Error() != "resource must return str, got int" {
		t.Errorf("c: %v", err)
	}
	if _, err := m.ReadResource(ctx, "docs://d.md", nil); err == nil || err.Error() != "no such doc" {
		t.Errorf("d: %v", err)
	}
	if _, err := m.ReadResource(ctx, "docs://zzz", nil); err == nil {
		t.Error("unknown resource: no error")
	}
	if res := m.Resources(); len(res) != 4 || res[2].MIMEType != "application/json" || res[0].MIMEType != "text/markdown" {
		t.Errorf("resources: %+v", res)
	}
}

func TestLimits(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	hint := "raise limits.%s in contracts/mcp/workspace-mcp-surface.v1.yaml"
	for _, tc := range []struct {
		fn    string
		env   *Env
		limit string
		want  string
	}{
		{"spin", nil, "steps", "steps limit of 10000000 exceeded; " + fmt.Sprintf(hint, "steps")},
		{"spin_while", &Env{Limits: Limits{Steps: 500}}, "steps", "steps limit of 500 exceeded; " + fmt.Sprintf(hint, "steps")},
		{"deep", nil, "max_depth", "max_depth limit of 256 exceeded; " + fmt.Sprintf(hint, "max_depth")},
		{"deep", &Env{Limits: Limits{MaxDepth: 1 << 30}}, "max_depth", "max_depth limit of 10000 exceeded; " + fmt.Sprintf(hint, "max_depth")},
		{"spin", &Env{Limits: Limits{Timeout: 30 * time.Millisecond}}, "timeout_ms", "timeout_ms limit of 30 exceeded; " + fmt.Sprintf(hint, "timeout_ms")},
		{"grow", nil, "max_value_bytes", "max_value_bytes limit of 16777216 exceeded; " + fmt.Sprintf(hint, "max_value_bytes")},
		{"grow_list", &Env{Limits: Limits{Steps: 0, MaxValueBytes: 1 << 20}}, "max_value_bytes", "max_value_bytes limit of 1048576 exceeded; " + fmt.Sprintf(hint, "max_value_bytes")},
		{"big_output", nil, "max_output_bytes", "max_output_bytes limit of 1048576 exceeded; " + fmt.Sprintf(hint, "max_output_bytes")},
		{"spin", &Env{Limits: Limits{Steps: 10}, LimitHint: "pass --<key>"}, "steps", "steps limit of 10 exceeded; pass --steps"},
	} {
		_, err := call(t, m, tc.fn, "", tc.env)
		if err == nil || err.Kind != LimitError || err.Limit != tc.limit || err.Message != tc.want {
			t.Errorf("%s: got %#v, want %q", tc.fn, err, tc.want)
		}
	}
}

// TestDeepRecursionThroughNestedExpressions recurses at the highest depth
// the configuration allows through a body nested nearly as deep as the
// syntax allows (each level is a parenthesis and an operator): the call
// fails with the depth limit instead of overflowing the Go stack.
func TestDeepRecursionThroughNestedExpressions(t *testing.T) {
	src := "fn f(n) { " + strings.Repeat("(", 250) + "f(n + 1)" + strings.Repeat(" + 1)", 250) + " }\n"
	m := compileOK(t, src)
	_, err := call(t, m, "f", `{"n":0}`, &Env{Limits: Limits{MaxDepth: 1 << 20, Steps: 0}})
	if err == nil || err.Kind != LimitError || err.Limit != "max_depth" {
		t.Fatalf("got %v", err)
	}
}

func TestCancellation(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	_, err := m.Call(ctx, "spin", nil, &Env{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != RuntimeError || e.Message != "call canceled: context canceled" {
		t.Errorf("got %v", err)
	}
}

func TestRuntimeErrorPositions(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	_, err := call(t, m, "uses_undefined", "", nil)
	if err == nil || err.Message != "undefined: db" || err.Positioned() != "bridge.vox:62:23: undefined: db" {
		t.Errorf("got %#v", err)
	}
	_, err = call(t, m, "nested_list", "", nil)
	if err == nil || err.Message != "value nested deeper than 512" {
		t.Errorf("nested: %#v", err)
	}
	// A list cannot hold itself: push appends a copy of its value.
	if r, err := call(t, m, "cyclic", "", nil); err != nil || r.Text != "[1,[1]]" {
		t.Errorf("cyclic: %q %#v", r.Text, err)
	}
}

func TestPrintGoesToLog(t *testing.T) {
	m := compileOK(t, bridgeSrc)
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	r, err := call(t, m, "chatty", `{"x":"hi"}`, &Env{Log: log})
	if err != nil || r.Text != "hi" {
		t.Fatalf("%v %v", r, err)
	}
	if !strings.Contains(buf.String(), `msg="value hi [1]" vox_path=bridge.vox`) {
		t.Errorf("log: %s", buf.String())
	}
}

// progress() reaches Env.Progress: a report that does not go beyond the
// last one is dropped, and so is every one past the cap of a call; a new
// call starts afresh.
func TestProgressReachesTheEnv(t *testing.T) {
	m := compileOK(t, `
@tool "Count to n, reporting each step"
fn count(n: int) to int {
    for i in range(0, n) {
        progress(i + 1, n, "step " + str(i + 1))
        progress(i + 1, n, "again")
    }
    progress(0.5, 0)
    n
}
`)
	var got []string
	env := &Env{Progress: func(done, total float64, message string) {
		got = append(got, fmt.Sprintf("%g/%g %s", done, total, message))
	}}
	if r, err := call(t, m, "count", `{"n":3}`, env); err != nil || r.Text != "3" {
		t.Fatalf("%v %v", r, err)
	}
	if fmt.Sprint(got) != "[1/3 step 1 2/3 step 2 3/3 step 3]" {
		t.Errorf("reports %q", got)
	}
	got = nil
	if _, err := call(t, m, "count", `{"n":20000}`, env); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10000 || got[0] != "1/20000 step 1" {
		t.Errorf("%d reports, the first %q", len(got), got[0])
	}
}

func TestCallOnBrokenModule(t *testing.T) {
	m := Compile("broken.vox", []byte("@tool \"x\"\nfn x() to int { 1 + }\n"))
	_, err := m.Call(context.Background(), "x", nil, nil)
	if err == nil || err.Error() != "broken.vox does not compile: 2:21: expected an expression, found '}'" {
		t.Errorf("got %v", err)
	}
}

func TestUnavailableFunctionCall(t *testing.T) {
	m := compileOK(t, "fn f(x) { x + }\nfn g() { f(true) }\n")
	_, err := m.Call(context.Background(), "f", []byte(`{"x":true}`), nil)
	if err == nil || err.Error() != "f is unavailable: expected an expression, found '}' at line 1:15" {
		t.Errorf("f: %v", err)
	}
	_, err = m.Call(context.Background(), "g", nil, nil)
	if err == nil || err.Error() != "f is unavailable: expected an expression, found '}' at line 1:15" {
		t.Errorf("g: %v", err)
	}
}

// TestConcurrentCalls runs many calls of one module at once (with -race):
// constants and lists are per call, never shared; a copy of a constant
// changes apart from it.
func TestConcurrentCalls(t *testing.T) {
	m := compileOK(t, `
let ITEMS = [1, 2, 3]
fn add(n: int) to int {
    let mut items = ITEMS
    items.push(n)
    assert(ITEMS == [1, 2, 3])
    sum(items)
}
fn fib(n: int) to int { if n < 2 { return n }
    fib(n - 1) + fib(n - 2) }
`)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				r, err := m.Call(context.Background(), "add", []byte(fmt.Sprintf(`{"n":%d}`, i*100+j)), nil)
				if err != nil || string(r.JSON) != fmt.Sprint(6+i*100+j) {
					t.Errorf("add: %s %v", r.JSON, err)
					return
				}
				r, err = m.Call(context.Background(), "fib", []byte(`{"n":15}`), nil)
				if err != nil || string(r.JSON) != "610" {
					t.Errorf("fib: %s %v", r.JSON, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A workspace prompt runs with its string arguments; an optional one left
// out is None, a required one left out an argument error.
func TestGetPrompt(t *testing.T) {
	src := "@mcp.prompt(\"Review\")\nfn review(path: str, focus: Option[str]) to str {\n    let extra = focus.map(fn(f) { \" for \" + f }).unwrap_or(\"\")\n    \"Review \" + path + extra\n}\n"
	m := Compile("p.vox", []byte(src))
	if len(m.Diagnostics()) > 0 {
		t.Fatal(m.Diagnostics())
	}
	text := func(msgs []content.Message) string { return fmt.Sprint(msgs) }
	got, err := m.GetPrompt(context.Background(), "review", map[string]string{"path": "a.go", "focus": "errors"}, nil)
	if err != nil || text(got) != "[{user {text Review a.go for errors      }}]" {
		t.Fatalf("got %q, %v", text(got), err)
	}
	if got, err = m.GetPrompt(context.Background(), "review", map[string]string{"path": "a.go"}, nil); err != nil || text(got) != "[{user {text Review a.go      }}]" {
		t.Fatalf("without the optional argument: got %q, %v", text(got), err)
	}
	if _, err = m.GetPrompt(context.Background(), "review", nil, nil); err == nil || !strings.Contains(err.Error(), "path") {
		t.Fatalf("without the required argument: %v", err)
	}
	if _, err = m.GetPrompt(context.Background(), "nope", nil, nil); err == nil {
		t.Fatal("an unknown prompt ran")
	}
}

// A prompt declared to list[Message] returns its messages: a str content
// is a text block, content.* values are their blocks; a value of another
// shape fails the call at the declared result type, naming the message.
func TestGetPromptMessages(t *testing.T) {
	src := `@mcp.prompt("Embedded")
fn embedded(resourceUri: str) to list[Message] {
    [
        {role: "user", content: content.resource(resourceUri, "Embedded resource content for testing.", "text/plain")},
        {role: "assistant", content: "Noted."},
        {role: "user", content: content.image("iVBORw0KGgo=", "image/png")},
    ]
}

@mcp.prompt("Bad")
fn bad(kind: str) to list[Message] {
    if kind == "role" { return [{role: "system", content: "x"}] }
    if kind == "content" { return [{role: "user", content: 3}] }
    if kind == "key" { return [{role: "user", content: "x", extra: 1}] }
    if kind == "block" { return [{role: "user", content: {type: "image", data: "not base64!", mimeType: "image/png"}}] }
    [{role: "user"}]
}
`
	m := Compile("p.vox", []byte(src))
	if len(m.Diagnostics()) > 0 {
		t.Fatal(m.Diagnostics())
	}
	msgs, err := m.GetPrompt(context.Background(), "embedded", map[string]string{"resourceUri": "test://example-resource"}, nil)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("got %+v, %v", msgs, err)
	}
	if r := msgs[0]; r.Role != "user" || r.Block.Type != content.Resource || r.Block.URI != "test://example-resource" || r.Block.Text != "Embedded resource content for testing." {
		t.Errorf("message 0: %+v", r)
	}
	if r := msgs[1]; r.Role != "assistant" || r.Block.Type != content.Text || r.Block.Text != "Noted." {
		t.Errorf("message 1: %+v", r)
	}
	if r := msgs[2]; r.Block.Type != content.Image || r.Block.MIMEType != "image/png" {
		t.Errorf("message 2: %+v", r)
	}
	for kind, want := range map[string]string{
		"role":    `message 0 needs the role "user" or "assistant"`,
		"content": "message 0's content must be content",
		"key":     `message 0 has the key "extra"`,
		"block":   "message 0's content is not valid content",
		"none":    "message 0 has no content",
	} {
		_, err := m.GetPrompt(context.Background(), "bad", map[string]string{"kind": kind}, nil)
		var ve *Error
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), want) || ve.Line != 11 {
			t.Errorf("%s: %v, want an error at line 11 containing %q", kind, err, want)
		}
	}
}
