package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// client drives an in-process server over pipes, as an editor does over
// stdio.
type client struct {
	t     *testing.T
	in    *io.PipeWriter // the server's stdin
	out   *reader        // the server's stdout
	id    int
	diags map[string][]published
	shown []string // the messages of window/showMessage
	done  chan error
}

func startClient(t *testing.T) *client {
	t.Helper()
	return startClientWith(t, Options{Version: "test"})
}

func startClientWith(t *testing.T, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: newReader(outR), diags: map[string][]published{}, done: make(chan error, 1)}
	go func() {
		err := Serve(inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop when its input closed")
		}
	})
	var init protocol.InitializeResult
	c.call("initialize", map[string]any{"capabilities": map[string]any{}}, &init)
	if init.ServerInfo == nil || init.ServerInfo.Name != "vox lsp" {
		t.Fatalf("initialize: serverInfo %+v", init.ServerInfo)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func (c *client) send(v any) {
	c.t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("Content-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	if _, err := c.in.Write(b.Bytes()); err != nil {
		c.t.Fatal(err)
	}
}

func jsonNumber(n int) string { return strconv.Itoa(n) }

func (c *client) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// rawCall sends a request and returns its response, keeping the
// notifications that came before it.
func (c *client) rawCall(method string, params any) map[string]json.RawMessage {
	c.t.Helper()
	c.id++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	for {
		m := c.next()
		if string(m["id"]) == jsonNumber(c.id) {
			return m
		}
	}
}

// call sends a request and decodes its result into result.
func (c *client) call(method string, params, result any) {
	c.t.Helper()
	m := c.rawCall(method, params)
	if e, ok := m["error"]; ok {
		c.t.Fatalf("%s: error %s", method, e)
	}
	if err := json.Unmarshal(m["result"], result); err != nil {
		c.t.Fatalf("%s: result %s: %v", method, m["result"], err)
	}
}

// next reads one message, recording published diagnostics.
func (c *client) next() map[string]json.RawMessage {
	c.t.Helper()
	body, err := c.out.read()
	if err != nil {
		c.t.Fatalf("reading from the server: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("the server sent %q: %v", body, err)
	}
	if string(m["method"]) == `"textDocument/publishDiagnostics"` {
		var p published
		if err := json.Unmarshal(m["params"], &p); err != nil {
			c.t.Fatal(err)
		}
		c.diags[p.URI] = append(c.diags[p.URI], p)
	}
	if string(m["method"]) == `"window/showMessage"` {
		var p protocol.ShowMessageParams
		if err := json.Unmarshal(m["params"], &p); err != nil {
			c.t.Fatal(err)
		}
		c.shown = append(c.shown, p.Message)
	}
	return m
}

// published is the params of publishDiagnostics as the client decodes
// them (glsp's IntegerOrString cannot be decoded: its UnmarshalJSON has a
// value receiver).
type published struct {
	URI         string `json:"uri"`
	Version     *int   `json:"version"`
	Diagnostics []struct {
		Range    protocol.Range `json:"range"`
		Severity int            `json:"severity"`
		Code     string         `json:"code"`
		Source   string         `json:"source"`
		Message  string         `json:"message"`
	} `json:"diagnostics"`
}

// diagnostics waits for the next diagnostics of uri.
func (c *client) diagnostics(uri string) published {
	c.t.Helper()
	n := len(c.diags[uri])
	for len(c.diags[uri]) == n {
		c.next()
	}
	return c.diags[uri][n]
}

func (c *client) open(uri, text string) published {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "vox", "version": 1, "text": text}})
	return c.diagnostics(uri)
}

// pos is the position of the k-th byte of the first occurrence of
// needle in text (k may be len(needle): just after it).
func pos(t *testing.T, text, needle string, k int) map[string]any {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q is not in the text", needle)
	}
	i += k
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndex(text[:i], "\n") + 1)
	return map[string]any{"line": line, "character": col}
}

func at(t *testing.T, uri, text, needle string, k int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(t, text, needle, k)}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const uri = "file:///work/tools/tools.vox"

func TestDiagnosticsOnOpenAndChange(t *testing.T) {
	c := startClient(t)
	good := readTestdata(t, "tools.vox")
	if d := c.open(uri, good); len(d.Diagnostics) != 0 {
		t.Fatalf("a valid file has diagnostics: %+v", d.Diagnostics)
	}
	// An incremental edit that breaks the record literal: a field that
	// Point does not have.
	start := pos(t, good, "y: 2", 0)
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": start, "end": pos(t, good, "y: 2", 1)},
			"text":  "z",
		}},
	})
	d := c.diagnostics(uri)
	if d.Version == nil || *d.Version != 2 {
		t.Errorf("version %v, want 2", d.Version)
	}
	found := false
	for _, x := range d.Diagnostics {
		if x.Code == "vox/resolve/record-field" && strings.Contains(x.Message, "record Point has no field z") {
			found = true
			if x.Range.Start.Line != protocol.UInteger(start["line"].(int)) || x.Range.Start.Character != protocol.UInteger(start["character"].(int)) ||
				x.Range.End.Character != x.Range.Start.Character+1 {
				t.Errorf("range %+v, want the name z at %v", x.Range, start)
			}
			if x.Severity != int(protocol.DiagnosticSeverityError) || x.Source != "vox" {
				t.Errorf("severity %v source %v", x.Severity, x.Source)
			}
		}
	}
	if !found {
		t.Fatalf("no vox/resolve/record-field for z: %+v", d.Diagnostics)
	}
	// The whole text again: the problem is gone.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": good}},
	})
	if d := c.diagnostics(uri); len(d.Diagnostics) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", d.Diagnostics)
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if d := c.diagnostics(uri); len(d.Diagnostics) != 0 || d.Version != nil {
		t.Fatalf("close: %+v", d)
	}
}

// TestCheckerHelpAndFixes: the checker's help lines end the message, as
// vox check prints them, and a diagnostic's fix is a quick fix.
func TestCheckerHelpAndFixes(t *testing.T) {
	c := startClient(t)
	text := "@mcp.tool \"d\"\nfn f() to int {\n    let total = 1\n    totl\n}\n"
	d := c.open(uri, text)
	var undefined, deprecated bool
	for _, x := range d.Diagnostics {
		switch x.Code {
		case "vox/name/undefined":
			undefined = x.Message == "undefined: totl\nhelp: did you mean total?" && x.Severity == 1 &&
				x.Range.Start == protocol.Position{Line: 3, Character: 4} && x.Range.End == protocol.Position{Line: 3, Character: 8}
		case "vox/decorator/mcp-tool-deprecated":
			deprecated = true
		}
	}
	if !undefined || !deprecated {
		t.Fatalf("diagnostics %+v", d.Diagnostics)
	}
	var actions []protocol.CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 3}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) != 1 || actions[0].Edit == nil {
		t.Fatalf("code actions %+v", actions)
	}
	edits := actions[0].Edit.Changes[uri]
	if len(edits) != 1 || edits[0].NewText != "@tool" || edits[0].Range.Start != (protocol.Position{Line: 0, Character: 0}) ||
		edits[0].Range.End != (protocol.Position{Line: 0, Character: 9}) || *actions[0].Kind != protocol.CodeActionKindQuickFix {
		t.Fatalf("the fix %+v", actions[0])
	}
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 1, "character": 3}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) != 0 {
		t.Fatalf("a fix outside the range: %+v", actions)
	}
}

func TestDiagnosticPositionsCountUTF16(t *testing.T) {
	c := startClient(t)
	// "é" is 2 bytes and 1 UTF-16 unit; "𝄞" 4 bytes and 2 units.
	text := "@tool \"t\"\nfn t() to str {\n    let s = \"é𝄞\" + nme\n    s\n}\n"
	d := c.open(uri, text)
	for _, x := range d.Diagnostics {
		if strings.Contains(x.Message, "nme") {
			want := protocol.Position{Line: 2, Character: 20}
			if x.Range.Start != want || x.Range.End.Character != 23 {
				t.Fatalf("range %+v, want start %+v and 3 units", x.Range, want)
			}
			return
		}
	}
	t.Fatalf("no diagnostic for nme: %+v", d.Diagnostics)
}

func hoverText(t *testing.T, c *client, text, needle string, k int) string {
	t.Helper()
	var h *protocol.Hover
	c.call("textDocument/hover", at(t, uri, text, needle, k), &h)
	if h == nil {
		return ""
	}
	b, _ := json.Marshal(h.Contents)
	var m protocol.MarkupContent
	json.Unmarshal(b, &m)
	return m.Value
}

func TestHover(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	for _, tc := range []struct {
		needle string
		k      int
		want   []string
	}{
		{"fn greet", 4, []string{`@tool "Greet someone by name"`, "fn greet(name: str, times: int = 1) to str"}},
		{"+ name", 3, []string{"(parameter) name: str"}},
		{"let greeting", 5, []string{"let greeting: str"}},
		{"shout = ", 0, []string{"let shout: str"}},
		{"to_upper", 2, []string{"str.to_upper() to str"}},
		{"GREETING +", 1, []string{"let GREETING: str", "module constant"}},
		{"print(", 1, []string{"print(...values: any) to Unit", "stderr"}},
		{"fs.read", 0, []string{"namespace fs", "read"}},
		{"fs.read", 4, []string{"fs.read(path: str) to Result[str, str]"}},
		{"Point {", 0, []string{"type Point {", "x: int"}},
		{"p.x", 2, []string{"Point.x: int"}},
		{"Ready(\"yes", 1, []string{"Ready(data: str)", "constructor of Status"}},
		{"@tool", 1, []string{"@tool \"description\"", "workspace tool"}},
		{"n + times", 4, []string{"(parameter) times: int"}},
		{"part)", 1, []string{"(loop variable) part: str"}},
		{"first = ", 1, []string{"let first: str"}}, // only the checker knows an element's type
	} {
		got := hoverText(t, c, text, tc.needle, tc.k)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover at %q+%d: %q lacks %q", tc.needle, tc.k, got, w)
			}
		}
	}
	if got := hoverText(t, c, text, "// Tools", 3); got != "" {
		t.Errorf("hover in a comment: %q", got)
	}
}

func TestDefinition(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	for _, tc := range []struct {
		needle   string
		k        int
		decl     string
		declSkip int
	}{
		{"+ name", 3, "name: str", 0},
		{"greeting.to_upper", 1, "greeting = ", 0},
		{"GREETING +", 1, "GREETING = ", 0},
		{"Point {", 1, "Point { x", 0},
		{"x: 1", 0, "x: int", 0},
		{"p.x", 2, "x: int", 0},
		{"Ready(\"yes", 1, "Ready(data", 0},
		{"Loading\n    }", 1, "Loading\n    |", 0},
		{"n + times", 4, "times: int", 0},
		{"(part)", 1, "part in", 0},
	} {
		var loc *protocol.Location
		c.call("textDocument/definition", at(t, uri, text, tc.needle, tc.k), &loc)
		want := pos(t, text, tc.decl, tc.declSkip)
		if loc == nil || loc.URI != uri || loc.Range.Start.Line != protocol.UInteger(want["line"].(int)) ||
			loc.Range.Start.Character != protocol.UInteger(want["character"].(int)) {
			t.Errorf("definition at %q+%d: %+v, want %v", tc.needle, tc.k, loc, want)
		}
	}
	var loc *protocol.Location
	c.call("textDocument/definition", at(t, uri, text, "print(", 1), &loc)
	if loc != nil {
		t.Errorf("a builtin has a definition in the file: %+v", loc)
	}
}

func labels(items []protocol.CompletionItem) map[string]protocol.CompletionItem {
	m := map[string]protocol.CompletionItem{}
	for _, it := range items {
		m[it.Label] = it
	}
	return m
}

// complete types text at the end of line needle's line... it inserts
// typed after needle and asks for completion at its end.
func complete(t *testing.T, c *client, version int, base, needle, typed string) (string, map[string]protocol.CompletionItem) {
	t.Helper()
	i := strings.Index(base, needle) + len(needle)
	text := base[:i] + typed + base[i:]
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	c.diagnostics(uri)
	var list protocol.CompletionList
	c.call("textDocument/completion", at(t, uri, text, needle+typed, len(needle+typed)), &list)
	return text, labels(list.Items)
}

func TestCompletion(t *testing.T) {
	c := startClient(t)
	base := readTestdata(t, "tools.vox")
	c.open(uri, base)
	// Names: locals before the cursor, module names, builtins,
	// namespaces, keywords — in a line that does not parse yet.
	_, items := complete(t, c, 2, base, "print(part)\n", "    let z = gr")
	for _, w := range []string{"greeting", "shout", "parts", "part", "name", "times", "greet", "helper", "GREETING", "Ready", "Some", "len", "print", "fs", "json", "let", "match"} {
		if _, ok := items[w]; !ok {
			t.Errorf("name completion lacks %s", w)
		}
	}
	if _, ok := items["text"]; ok {
		t.Errorf("name completion offers text, declared after the cursor")
	}
	if it := items["greet"]; it.Detail == nil || *it.Detail != "fn greet(name: str, times: int = 1) to str" {
		t.Errorf("greet's detail: %v", it.Detail)
	}
	// Methods of a str local.
	_, items = complete(t, c, 3, base, "let shout = greeting.to_upper()\n", "    shout.")
	for _, w := range []string{"trim", "split", "to_upper", "to_str"} {
		if _, ok := items[w]; !ok {
			t.Errorf("str method completion lacks %s", w)
		}
	}
	if _, ok := items["push"]; ok {
		t.Errorf("str method completion offers the list method push")
	}
	// Record fields and the methods of every value.
	_, items = complete(t, c, 4, base, "let p = Point { x: 1, y: 2 }\n", "    p.")
	if _, ok := items["x"]; !ok {
		t.Errorf("record completion lacks field x: %v", items)
	}
	// A namespace's functions.
	_, items = complete(t, c, 5, base, "print(part)\n", "    json.")
	for _, w := range []string{"parse", "stringify"} {
		if _, ok := items[w]; !ok {
			t.Errorf("json completion lacks %s", w)
		}
	}
	if _, ok := items["trim"]; ok {
		t.Errorf("json completion offers methods")
	}
	// Decorators, replacing from the '@'.
	text, items := complete(t, c, 6, base, "type Point { x: int, y: int }\n", "\n@to")
	it, ok := items["@tool"]
	if !ok {
		t.Fatalf("decorator completion lacks @tool: %v", items)
	}
	if _, ok := items["@resource"]; !ok {
		t.Errorf("decorator completion lacks @resource")
	}
	b, _ := json.Marshal(it.TextEdit)
	var edit protocol.TextEdit
	json.Unmarshal(b, &edit)
	if want := pos(t, text, "@to", 0); edit.NewText != "@tool" || edit.Range.Start.Line != protocol.UInteger(want["line"].(int)) || edit.Range.Start.Character != 0 {
		t.Errorf("@tool's edit %+v, want from %v", edit, want)
	}
}

func TestSignatureHelp(t *testing.T) {
	c := startClient(t)
	base := readTestdata(t, "tools.vox")
	c.open(uri, base)
	for n, tc := range []struct {
		typed  string
		label  string
		active int
	}{
		{"    helper(", "helper(count: int) to Status", 0},
		{"    greet(\"a\", ", "greet(name: str, times: int = 1) to str", 1},
		{"    range(1, (2 + 3), ", "range(a: int, b?: int, step?: int) to list[int]", 2},
		{"    fs.read(", "fs.read(path: str) to Result[str, str]", 0},
		{"    print(1, 2, ", "print(...values: any) to Unit", 0}, // variadic: its one parameter stays active
		{"    shout.split(", "str.split(sep?: str) to list[str]", 0},
		{"    len(\"a,b(\", ", "len(x: str | list[T] | tuple | map[str, V]) to int", 1},
	} {
		i := strings.Index(base, "print(part)\n") + len("print(part)\n")
		text := base[:i] + tc.typed + base[i:]
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 10 + n},
			"contentChanges": []any{map[string]any{"text": text}},
		})
		c.diagnostics(uri)
		var h *protocol.SignatureHelp
		c.call("textDocument/signatureHelp", at(t, uri, text, tc.typed, len(tc.typed)), &h)
		if h == nil || len(h.Signatures) == 0 {
			t.Errorf("%q: no signature help", tc.typed)
			continue
		}
		sig := h.Signatures[*h.ActiveSignature]
		if sig.Label != tc.label || int(*h.ActiveParameter) != tc.active {
			t.Errorf("%q: %q parameter %d, want %q parameter %d", tc.typed, sig.Label, *h.ActiveParameter, tc.label, tc.active)
		}
		if len(sig.Parameters) > 0 {
			b, _ := json.Marshal(sig.Parameters[0].Label)
			var span [2]int
			if err := json.Unmarshal(b, &span); err != nil || span[0] >= span[1] || !strings.Contains(sig.Label[span[0]:span[1]], ":") {
				t.Errorf("%q: the first parameter's label %s does not point at a parameter of %q", tc.typed, b, sig.Label)
			}
		}
	}
}

func TestProtocolErrors(t *testing.T) {
	c := startClient(t)
	m := c.rawCall("textDocument/implementation", map[string]any{})
	if !strings.Contains(string(m["error"]), `"code":-32601`) {
		t.Errorf("an unserved method: %s", m["error"])
	}
	m = c.rawCall("textDocument/hover", []int{1})
	if !strings.Contains(string(m["error"]), `"code":-32602`) {
		t.Errorf("bad params: %s", m["error"])
	}
	m = c.rawCall("textDocument/hover", at(t, "file:///nowhere.vox", "x", "x", 0))
	if !strings.Contains(string(m["error"]), "is not open") {
		t.Errorf("a document that is not open: %s", m["error"])
	}
	broken := `{"jsonrpc":"2.0","id":99,"method":`
	if _, err := io.WriteString(c.in, "Content-Length: "+strconv.Itoa(len(broken))+"\r\n\r\n"+broken); err != nil {
		t.Fatal(err)
	}
	if m := c.next(); !strings.Contains(string(m["error"]), `"code":-32700`) {
		t.Errorf("not JSON: %s", m["error"])
	}
	var v any
	c.call("shutdown", nil, &v)
	m = c.rawCall("textDocument/hover", at(t, uri, "x", "x", 0))
	if !strings.Contains(string(m["error"]), "after shutdown") {
		t.Errorf("a request after shutdown: %s", m["error"])
	}
	c.notify("exit", nil)
	if err := <-c.done; err != nil {
		t.Errorf("shutdown then exit: %v", err)
	}
	c.done <- nil // for the cleanup
}
