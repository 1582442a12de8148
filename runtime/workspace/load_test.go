package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const cfgExamples = "scan_globs: [\"tools/**/*.vox\"]\n"

// workspaceTree writes a scan config and the given files.
func workspaceTree(t testing.TB, cfg string, files map[string]string) string {
	t.Helper()
	all := map[string]string{ConfigPath: cfg}
	for k, v := range files {
		all[k] = v
	}
	return tree(t, all)
}

func load(t *testing.T, l *Loader) *Surface {
	t.Helper()
	// The loader holds the root open: closed before t.TempDir removes it,
	// which Windows refuses while the folder is open.
	t.Cleanup(func() { l.Close() })
	s, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func resultJSON(t *testing.T, r Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoadMerge(t *testing.T) {
	long := strings.Repeat("x", 65)
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/a.vox": `@tool "Add two numbers"
fn add(a: int, b: int) to int { a + b }

@tool "First greet"
fn greet(name: str) to str { "hi " + name }

@tool "Shadows the catalog"
fn vox_tool_search(query: str) to str { query }

@mcp.resource("docs://guide.md", "The guide")
fn guide() to str { "# Guide" }

@resource("skill://mine/SKILL.md", "Reserved")
fn mine() to str { "no" }

@tool "Name too long"
fn ` + long + `() to int { 1 }

@tool "Kept after the bad declarations"
fn after() to int { 2 }
`,
		"tools/b.vox": `@tool "Second greet"
fn greet(name: str) to str { name }

@tool "Same file duplicate"
fn twice() to int { 1 }

@tool "Same file duplicate again"
fn twice() to int { 2 }

@resource("docs://guide.md", "Another guide")
fn guide2() to str { "other" }
`,
		"tools/broken.vox": "@tool \"Broken\"\nfn broken( to int { 1 }\nthis is not vox {{{\n",
		"tools/c.vox":      "@tool \"Still loaded\"\nfn still() to str { \"yes\" }\n",
	})
	l := &Loader{Root: root, Shadows: func(n string) bool { return n == "vox_tool_search" }}
	s := load(t, l)
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "add after greet still twice" { // by name
		t.Errorf("tools = %s", got)
	}
	g, _ := s.Tool("greet")
	if g.Description != "First greet" || g.Path != "tools/a.vox" || g.Line != 4 || len(g.Hash) != 64 {
		t.Errorf("greet = %+v (first declaration wins)", g)
	}
	if tw, _ := s.Tool("twice"); tw.Description != "Same file duplicate" {
		t.Errorf("twice = %+v", tw)
	}
	if add, _ := s.Tool("add"); string(add.InputSchema) != `{"additionalProperties":false,"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"type":"object"}` || add.Signature != "add(a: int, b: int) to int" {
		t.Errorf("add = %s %s", add.InputSchema, add.Signature)
	}
	if len(s.Resources) != 1 || s.Resources[0].URI != "docs://guide.md" || s.Resources[0].Func != "guide" || s.Resources[0].MIMEType != "text/markdown" {
		t.Errorf("resources = %+v", s.Resources)
	}
	r := s.Result
	if r.ToolCount != 5 || r.ResourceCount != 1 ||
		!reflect.DeepEqual(r.Shadowed, []string{"vox_tool_search"}) ||
		!reflect.DeepEqual(r.DuplicateTools, []string{"greet", "twice"}) ||
		!reflect.DeepEqual(r.DuplicateResources, []string{"docs://guide.md"}) {
		t.Errorf("result = %s", resultJSON(t, r))
	}
	if len(r.Errors) != 2 {
		t.Fatalf("errors = %+v", r.Errors)
	}
	if e := r.Errors[0]; e.Path != "tools/a.vox" ||
		e.Message != `13:1: resource URI "skill://mine/SKILL.md" uses the reserved scheme skill: (the server serves installed skills under it): choose another scheme; 16:1: invalid tool name "`+long+`": workspace tool names must match ^[A-Za-z0-9_-]{1,64}$` {
		t.Errorf("a.vox error = %+v", e)
	}
	if e := r.Errors[1]; e.Path != "tools/broken.vox" || !strings.HasPrefix(e.Message, "2:12: ") {
		t.Errorf("broken.vox error = %+v: want its error diagnostics as line:col: message [code]", e)
	}
	for _, part := range strings.Split(r.Errors[1].Message, "; ") {
		if !strings.HasSuffix(part, "]") || !strings.Contains(part, " [vox/") {
			t.Errorf("message part %q is not line:col: message [code]", part)
		}
	}
}

func TestLoadEmptyResultArrays(t *testing.T) {
	root := workspaceTree(t, cfgExamples, nil)
	s := load(t, &Loader{Root: root})
	if got := resultJSON(t, s.Result); got != `{"tool_count":0,"resource_count":0,"shadowed":[],"duplicate_tools":[],"duplicate_resources":[],"errors":[]}` {
		t.Errorf("result = %s", got)
	}
	if got := resultJSON(t, Empty().Result); got != `{"tool_count":0,"resource_count":0,"shadowed":[],"duplicate_tools":[],"duplicate_resources":[],"errors":[]}` {
		t.Errorf("empty result = %s", got)
	}
}

func TestLoadFatalKeepsNothing(t *testing.T) {
	root := workspaceTree(t, "scan_globs: [\"a/{b\"]\n", nil)
	if _, err := (&Loader{Root: root}).Load(); err == nil || !strings.Contains(err.Error(), ConfigPath+":1:14: invalid glob") {
		t.Errorf("err = %v", err)
	}
}

// synthetic writes n tool files of about 2 KB each.
func synthetic(t testing.TB, root string, n int) {
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "// Synthetic workspace file %d.\n", i)
		for j := range 8 {
			fmt.Fprintf(&b, "@tool \"Tool %d of file %d: adds its arguments and scales them\"\nfn t%d_%d(a: int, b: int = 2, label: str = \"x\") to int {\n    let s = a + b\n    if s > 10 { s * %d } else { s }\n}\n\n", j, i, i, j, j+1)
		}
		p := filepath.Join(root, "tools", fmt.Sprintf("f%04d.vox", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadDeterministicAndReuses(t *testing.T) {
	root := workspaceTree(t, cfgExamples, nil)
	synthetic(t, root, 40)
	l := &Loader{Root: root}
	first := load(t, l)
	again := load(t, &Loader{Root: root})
	if !reflect.DeepEqual(first.Snapshot("m"), again.Snapshot("m")) {
		t.Fatal("two loads of the same tree differ")
	}
	if first.Result.ToolCount != 320 {
		t.Fatalf("tool count %d", first.Result.ToolCount)
	}
	// Unchanged files keep their modules without being read again.
	second := load(t, l)
	t0, _ := first.Tool("t0_0")
	t0b, _ := second.Tool("t0_0")
	if t0.file != t0b.file {
		t.Error("an unchanged file was not reused")
	}
	// A touched file with the same content keeps its module.
	p := filepath.Join(root, "tools", "f0001.vox")
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	third := load(t, l)
	a, _ := second.Tool("t1_0")
	b, _ := third.Tool("t1_0")
	if a.file == b.file || a.file.cur.Load().module != b.file.cur.Load().module {
		t.Error("a touched file with the same content should be re-read but keep its module")
	}
	// A changed file is recompiled.
	src, _ := os.ReadFile(p)
	os.WriteFile(p, append(src, []byte("@tool \"New\"\nfn fresh() to int { 1 }\n")...), 0o644)
	fourth := load(t, l)
	if _, ok := fourth.Tool("fresh"); !ok {
		t.Error("the changed file's new tool is missing")
	}
}

func TestToolModuleRecompilesEditedFile(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/e.vox": "@tool \"Edit me\"\nfn edit_me() to int { 1 }\n\n@tool \"Other\"\nfn other() to int { 2 }\n",
	})
	s := load(t, &Loader{Root: root})
	tool, _ := s.Tool("edit_me")
	m1, err := s.ToolModule(tool)
	if err != nil {
		t.Fatal(err)
	}
	if m2, _ := s.ToolModule(tool); m2 != m1 {
		t.Error("an unchanged file was recompiled")
	}
	p := filepath.Join(root, "tools", "e.vox")
	write := func(src string) {
		os.WriteFile(p, []byte(src), 0o644)
		future := time.Now().Add(time.Duration(len(src)) * time.Second)
		os.Chtimes(p, future, future) // a distinct mtime even on coarse clocks
	}
	write("@tool \"Edit me\"\nfn edit_me() to int { 100 }\n\n@tool \"Other\"\nfn other() to int { 2 }\n")
	m3, err := s.ToolModule(tool)
	if err != nil || m3 == m1 {
		t.Fatalf("edited file not recompiled: %v", err)
	}
	write("@tool \"Edit me\"\nfn edit_me( to int { 100 }\n")
	if _, err := s.ToolModule(tool); err == nil || !strings.Contains(err.Error(), "tools/e.vox no longer compiles") || !strings.Contains(err.Error(), RefreshHint) {
		t.Errorf("broken file: err = %v", err)
	}
	write("@tool \"Other\"\nfn other() to int { 2 }\n")
	if _, err := s.ToolModule(tool); err == nil || err.Error() != "tools/e.vox no longer declares tool edit_me; "+RefreshHint {
		t.Errorf("removed tool: err = %v", err)
	}
	os.Remove(p)
	if _, err := s.ToolModule(tool); err == nil || !strings.Contains(err.Error(), "tools/e.vox: cannot read") {
		t.Errorf("removed file: err = %v", err)
	}
}

func TestSnapshotSurface(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"go.mod": "module example.com/ws\n\ngo 1.26\n",
		"tools/s.vox": "@tool \"Snap\"\nfn snap(x: int = 1) to int { x }\n\n@resource(\"docs://s.md\", \"S\")\nfn s() to str { \"s\" }\n" +
			"@tool \"Counts\"\nfn counts() to map[str, int] { {a: 1} }\n" +
			"@mcp.prompt(\"Ask\")\nfn ask(q: str, tone: Option[str]) to str { \"ask \" + q }\n" +
			"@mcp.resource(\"notes://{id}/{+rest}\", \"Note\")\nfn note(id: str, rest: str) to str { \"note \" + id + \" \" + rest }\n",
	})
	s := load(t, &Loader{Root: root})
	snap := s.Snapshot(ModulePath(root))
	// A template resource carries its variables (docs/vox-language.md,
	// Resources with URI parameters).
	if len(snap.Resources) != 2 || snap.Resources[1].URI != "notes://{id}/{+rest}" || fmt.Sprint(snap.Resources[1].Variables) != "[id rest]" ||
		snap.Resources[0].Variables != nil {
		t.Errorf("snapshot resources %+v", snap.Resources)
	}
	if len(snap.Prompts) != 1 || snap.Prompts[0].Name != "ask" || fmt.Sprint(snap.Prompts[0].Arguments) != "[{q  true} {tone  false}]" {
		t.Errorf("snapshot prompts %+v", snap.Prompts)
	}
	// The outputSchema of an object-shaped result is part of the snapshot
	// (docs/tool-results.md §2), and so is the wrapped one of any other
	// declared result.
	if got := string(snap.Tools[0].OutputSchema); snap.Tools[0].Name != "counts" || got != `{"additionalProperties":{"type":"integer"},"type":"object"}` {
		t.Errorf("snapshot tool %s has the outputSchema %s", snap.Tools[0].Name, got)
	}
	if got := string(snap.Tools[1].OutputSchema); !strings.Contains(got, `"x-vox-wrap-result":true`) {
		t.Errorf("snapshot tool %s has the outputSchema %s", snap.Tools[1].Name, got)
	}
	if snap.Module != "example.com/ws" || !snap.Describes(root) {
		t.Fatalf("snapshot %+v does not describe its own root", snap)
	}
	if snap.Describes(t.TempDir()) {
		t.Error("snapshot describes an unrelated root")
	}
	os.WriteFile(filepath.Join(root, filepath.FromSlash(ConfigPath)), []byte(cfgExamples+"# changed\n"), 0o644)
	if snap.Describes(root) {
		t.Error("snapshot still describes the root after its scan config changed")
	}
	from := snap.Surface(root, s.Config)
	// Its files hold the root open from their first compile: closed
	// before t.TempDir removes it, which Windows refuses while it is open.
	t.Cleanup(func() {
		for _, f := range from.files {
			if f.root != nil {
				f.root.close()
			}
		}
	})
	if !reflect.DeepEqual(from.Snapshot(snap.Module), snap) {
		t.Error("snapshot -> surface -> snapshot is not the identity")
	}
	tool, _ := from.Tool("snap")
	if tool.file.cur.Load() != nil {
		t.Error("a snapshot file was compiled before its first call")
	}
	if _, err := from.ToolModule(tool); err != nil {
		t.Fatal(err)
	}
	res, _ := from.Resource("docs://s.md")
	if _, fn, err := from.ResourceModule(res); err != nil || fn != "s" {
		t.Errorf("resource module: %q, %v", fn, err)
	}
	p, _ := from.Prompt("ask")
	if msgs, err := from.GetPrompt(context.Background(), p, map[string]string{"q": "why"}, nil); err != nil || len(msgs) != 1 || msgs[0].Block.Text != "ask why" {
		t.Errorf("prompt from the snapshot: %+v, %v", msgs, err)
	}
	r, vars, ok := from.MatchResource("notes://a%20b/c/d")
	if !ok || r.Func != "note" {
		t.Fatalf("the template from the snapshot does not match: %v %v", r, ok)
	}
	if text, err := from.ReadResource(context.Background(), r, vars, nil); err != nil || text != "note a b c/d" {
		t.Errorf("template read from the snapshot: %q, %v", text, err)
	}
	if _, _, ok := from.MatchResource("notes://a/b/"[:8]); ok {
		t.Error("notes:// (no id) matches the template")
	}
}

// A prompt name declared twice keeps the first and is an error at the
// second; a prompt with a checker error stays off the surface, reported
// (docs/vox-language.md, Tools and resources).
func TestPromptFindings(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/a.vox": "@mcp.prompt(\"First\")\nfn ask() to str { \"a\" }\n",
		"tools/b.vox": "@mcp.prompt(\"Second\")\nfn ask() to str { \"b\" }\n\n@mcp.prompt(\"Bad\")\nfn bad(n: int) to str { \"x\" }\n",
	})
	s := load(t, &Loader{Root: root})
	if len(s.Prompts) != 1 || s.Prompts[0].Description != "First" {
		t.Fatalf("prompts %+v", s.Prompts)
	}
	got := fmt.Sprint(s.Result.Errors)
	for _, want := range []string{"tools/b.vox 1:1: prompt ask is declared twice: the first, at tools/a.vox:1, is served", "prompt bad is not served", "vox/decl/prompt-param"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s lack %q", got, want)
		}
	}
}
