package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/skills"
)

const demoSkill = "---\nname: demo\ndescription: A demo skill. Use when testing.\nlicense: MIT\n---\n# Demo\n"

// shimServer serves the test catalog and one skill, demo, with a second
// file.
func shimServer(t *testing.T) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "skills", "demo")
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(demoSkill), 0o644)
	os.WriteFile(filepath.Join(dir, "references", "notes.txt"), []byte("notes\n"), 0o644)
	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, SessionKeys: [][]byte{testSessionKey},
		Skills: &skills.Config{Workspace: root, Roots: []string{filepath.Join(root, "skills")}}})
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	return s, dir
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkSkillsList checks a skills/list answer against the demo skill.
func checkSkillsList(t *testing.T, resp map[string]any) {
	t.Helper()
	res, _ := resp["result"].(map[string]any)
	list, _ := res["skills"].([]any)
	if len(list) != 1 {
		t.Fatalf("skills/list: %v, want the one skill", resp)
	}
	entry := list[0].(map[string]any)
	fm := entry["frontmatter"].(map[string]any)
	if entry["uri"] != "skill://demo/SKILL.md" || fm["name"] != "demo" || fm["license"] != "MIT" {
		t.Errorf("skills/list entry %v", entry)
	}
	want := map[string]string{
		"skill://demo/SKILL.md":             digestOf([]byte(demoSkill)),
		"skill://demo/references/notes.txt": digestOf([]byte("notes\n")),
	}
	files := entry["resources"].([]any)
	if len(files) != len(want) {
		t.Fatalf("manifest %v, want %d files", files, len(want))
	}
	for _, f := range files {
		f := f.(map[string]any)
		if d := want[f["uri"].(string)]; d == "" || f["digest"] != d {
			t.Errorf("manifest file %v: want digest %s", f, d)
		}
	}
}

// TestShimOverHTTP: the skills methods, null arguments and batches,
// through the streamable HTTP endpoint.
func TestShimOverHTTP(t *testing.T) {
	s, _ := shimServer(t)
	ts := httptest.NewServer(s.HTTPHandler(Auth{ReadToken: "read"}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL, token: "read"}
	init := cl.do(http.MethodPost, initializeBody).json(t)
	if ext := init["result"].(map[string]any)["capabilities"].(map[string]any)["extensions"]; !strings.Contains(fmt.Sprint(ext), SkillsExtension) {
		t.Errorf("initialize declares extensions %v, want %s", ext, SkillsExtension)
	}
	cl.initialize()

	// The read role may list and get skills.
	checkSkillsList(t, cl.rpc(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`))
	got := cl.rpc(`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://demo/SKILL.md"}}`)
	if !strings.Contains(fmt.Sprint(got["result"]), "skill://demo/references/notes.txt") {
		t.Errorf("skills/get: %v", got)
	}
	miss := cl.rpc(`{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://nope/SKILL.md"}}`)
	if e, _ := miss["error"].(map[string]any); e == nil || e["code"] != float64(-32002) || !strings.Contains(fmt.Sprint(e["data"]), "skill://nope/SKILL.md") {
		t.Errorf("skills/get of an unknown skill: %v", miss)
	}
	// Without a session the shim never answers: the endpoint refuses first.
	bare := &httpClient{t: t, url: ts.URL, token: "read"}
	if r := bare.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, "Mcp-Session-Id", "vox1.forged"); r.status != http.StatusNotFound {
		t.Errorf("skills/list with a forged session: %d %s", r.status, r.body)
	}

	// arguments: null is {}.
	if text, isErr, _ := toolResult(t, cl.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"vox_tool_search","arguments":null}}`)); isErr {
		t.Errorf("a call with arguments null: %s", text)
	}

	// A batch of a 2025-06-18 session is refused; 2025-03-26 has them.
	batch := `[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":11,"method":"skills/list"},7,{"jsonrpc":"2.0","id":12,"method":"initialize","params":{}},` +
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"vox_tool_search","arguments":null}}]`
	if r := cl.do(http.MethodPost, batch); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "not part of protocol 2025-06-18") {
		t.Errorf("a batch of 2025-06-18: %d %s", r.status, r.body)
	}
	r := cl.do(http.MethodPost, batch, "MCP-Protocol-Version", "")
	var replies []map[string]any
	if err := json.Unmarshal(r.body, &replies); err != nil || r.status != http.StatusOK {
		t.Fatalf("a batch of 2025-03-26: %d %s (%v)", r.status, r.body, err)
	}
	ids := []string{}
	for _, rep := range replies {
		ids = append(ids, fmt.Sprint(rep["id"]))
	}
	if strings.Join(ids, ",") != "10,11,<nil>,12,13" {
		t.Fatalf("batch replies for ids %v, want 10,11,<nil>,12,13: %s", ids, r.body)
	}
	checkSkillsList(t, replies[1])
	if replies[2]["error"] == nil || !strings.Contains(fmt.Sprint(replies[3]["error"]), "initialize must not be part of a batch") {
		t.Errorf("batch errors: %s", r.body)
	}
	if text, isErr, _ := toolResult(t, replies[4]); isErr {
		t.Errorf("a batched call: %s", text)
	}
	for body, want := range map[string]string{
		`[]`: "an empty batch",
		"[" + strings.Repeat(`{"jsonrpc":"2.0","method":"ping","id":1},`, 100000) + "1]": "more than 100 messages",
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000):                        "not valid JSON",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}] x`:                                   "not valid JSON",
	} {
		r := cl.do(http.MethodPost, body, "MCP-Protocol-Version", "")
		if !strings.Contains(string(r.body), want) || strings.HasPrefix(string(r.body), "[") {
			t.Errorf("batch %.40s...: %d %s, want one error saying %q", body, r.status, r.body, want)
		}
	}
}

// stdioPipes serves s over stdio on pipes until the test ends: what the
// test writes to in, s reads; what s writes, the test reads from out.
func stdioPipes(t *testing.T, s *Server) (in io.WriteCloser, out io.Reader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		outR.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return")
		}
	})
	return inW, outR
}

// stdioMessages is stdioPipes with the output read for the test: each
// line decoded, in order, on the channel (closed at the output's end).
func stdioMessages(t *testing.T, s *Server) (in io.WriteCloser, lines <-chan map[string]any) {
	t.Helper()
	in, out := stdioPipes(t, s)
	ch := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			ch <- m
		}
		close(ch)
	}()
	return in, ch
}

// TestShimOverStdio: the same through stdio, where the process is the
// session.
func TestShimOverStdio(t *testing.T) {
	s, _ := shimServer(t)
	inW, outR := stdioPipes(t, s)
	lines := make(chan string, 64)
	go func() {
		buf := make([]byte, 0, 1<<20)
		tmp := make([]byte, 64<<10)
		for {
			n, err := outR.Read(tmp)
			buf = append(buf, tmp[:n]...)
			for {
				i := strings.IndexByte(string(buf), '\n')
				if i < 0 {
					break
				}
				lines <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	send := func(msg string) { fmt.Fprintln(inW, msg) }
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(20 * time.Second):
			t.Fatal("no answer within 20s")
			return ""
		}
	}
	decode := func(l string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		return m
	}

	send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if l := next(); !strings.Contains(l, "send initialize first") {
		t.Errorf("a batch before initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if l := next(); !strings.Contains(l, `"protocolVersion":"2025-03-26"`) || !strings.Contains(l, SkillsExtension) {
		t.Fatalf("initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"skills/list"}`)
	checkSkillsList(t, decode(next()))
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"vox_tool_search","arguments":null}}`)
	if text, isErr, _ := toolResult(t, decode(next())); isErr {
		t.Errorf("a call with arguments null: %s", text)
	}
	send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"skills/get","params":{"uri":"skill://demo/SKILL.md"}},"x"]`)
	var replies []map[string]any
	if l := next(); json.Unmarshal([]byte(l), &replies) != nil || len(replies) != 3 || replies[0]["id"] != float64(4) || replies[1]["result"] == nil || replies[2]["error"] == nil {
		t.Fatalf("a batch of 2025-03-26: %s", l)
	}
	// A plain tools/list is answered from the prepared list
	// (tools_list.go), as mcp-go answers it; one with a cursor by mcp-go.
	list := `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`
	send(list)
	if l, want := next(), mcpGoAnswer(t, s, list); l != want {
		t.Errorf("tools/list over stdio:\n%s\nmcp-go answers:\n%s", l, want)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"dm94X3NraWxs"}}`)
	if l := decode(next()); l["id"] != float64(7) || l["result"] == nil {
		t.Errorf("tools/list with a cursor over stdio: %v", l)
	}
}

// TestSessionlessRequestNamesItsActiveSkill: a request of protocol
// 2026-07-28 names its active skill in _meta, whose allowlist then
// applies to it; an unknown skill refuses the call.
func TestSessionlessRequestNamesItsActiveSkill(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "skills", "narrow")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: narrow\ndescription: Allows only greet. Use when testing.\nmetadata:\n  vox-tools: greet\n---\n# Narrow\n"), 0o644)
	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, SessionKeys: [][]byte{testSessionKey},
		Skills: &skills.Config{Workspace: root, Roots: []string{filepath.Join(root, "skills")}}})
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	call := func(skill string) string {
		meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}`
		if skill != "-" {
			meta += fmt.Sprintf(",%q:%q", MetaActiveSkill, skill)
		}
		r := cl.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{`+meta+`},"name":"vox_test_fail","arguments":{}}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "vox_test_fail")
		text, _, _ := toolResult(t, r.json(t))
		return text
	}
	for skill, want := range map[string]string{
		"-":      "it failed; try again later",
		"":       "it failed; try again later",
		"narrow": `Tool 'vox_test_fail' is not in skill 'narrow' allowlist ["greet"]`,
		"nope":   "cannot be read",
	} {
		if got := call(skill); !strings.Contains(got, want) {
			t.Errorf("a 2026-07-28 call naming skill %q: %q, want %q", skill, got, want)
		}
	}
}
