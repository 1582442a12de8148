package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/cmd/vox-mcp/handlers"
	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// TestMain lets this test binary act as the sandbox init (vox_skill_run
// re-executes it), and points skill discovery at an empty folder, so that
// no server of these tests sees the machine's own skills.
func TestMain(m *testing.M) {
	sandbox.MaybeRunInit()
	empty, err := os.MkdirTemp("", "vox-server-test-skills-")
	if err != nil {
		panic(err)
	}
	os.Setenv(skills.RootsEnv, empty)
	code := m.Run()
	os.RemoveAll(empty)
	os.Exit(code)
}

// skillFixture copies internal/skills/testdata/<set>/<name> into root.
func skillFixture(t *testing.T, set, name, root string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(root, name), os.DirFS(filepath.Join("..", "..", "..", "internal", "skills", "testdata", set, name))); err != nil {
		t.Fatal(err)
	}
}

// skillServer serves the product catalog plus the test tools of
// testCatalog, with the given skill fixtures in a root of its own, which
// is also where installs go.
func skillServer(t *testing.T, opts server.Options, fixtures ...string) (*server.Server, string) {
	t.Helper()
	root := t.TempDir()
	for _, f := range fixtures {
		skillFixture(t, "skills", f, root)
	}
	cat := *catalog.Catalog
	cat.Operations = append(append([]registry.Operation(nil), catalog.Catalog.Operations...), testCatalog().Operations...)
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	opts.Catalog = &cat
	if opts.Handlers == nil {
		opts.Handlers = testTable
	}
	opts.Skills = &skills.Config{Workspace: opts.Root, Home: t.TempDir(), Roots: []string{root}}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	return s, root
}

// call calls a tool and returns its text, whether it failed, and the
// structured content re-encoded as compact JSON.
func call(t *testing.T, s *server.Server, name, args string) (string, bool, string) {
	t.Helper()
	text, isErr, structured := toolResult(t, callTool(t, s, name, args))
	var js string
	if structured != nil {
		b, _ := json.Marshal(structured)
		js = string(b)
	}
	return text, isErr, js
}

// ok calls a tool that must succeed and returns its text, checking that
// structuredContent holds the same object.
func ok(t *testing.T, s *server.Server, name, args string) string {
	t.Helper()
	text, isErr, structured := call(t, s, name, args)
	if isErr {
		t.Fatalf("%s %s: %s", name, args, text)
	}
	var a, b any
	json.Unmarshal([]byte(text), &a)
	json.Unmarshal([]byte(structured), &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: structuredContent %s differs from the text %s", name, structured, text)
	}
	return text
}

func fails(t *testing.T, s *server.Server, name, args, want string) {
	t.Helper()
	text, isErr, structured := call(t, s, name, args)
	if !isErr || text != want || structured != "" {
		t.Errorf("%s %s:\n got  isError=%v %q\n want %q", name, args, isErr, text, want)
	}
}

func TestSkillListSearchInfoParse(t *testing.T) {
	s, root := skillServer(t, server.Options{}, "commit-message", "pdf-forms", "release-notes")
	text := ok(t, s, "vox_skill_list", `{}`)
	want := `{"skills":[` +
		`{"id":"commit-message","name":"commit-message","description":"Writes a conventional commit message for the staged changes. Use when the user asks for a commit message.","version":"0.1.0","category":"","tags":[],"tools":[],"path":"` + filepath.Join(root, "commit-message") + `","root":"` + root + `"},` +
		`{"id":"pdf-forms","name":"pdf-forms","description":"Fills in PDF forms and extracts the values of their fields. Use when the user gives a PDF form to complete or asks what a filled form contains.","version":"0.3.1","category":"documents","tags":["pdf","forms","documents"],"tools":["pdf_fill_form","pdf_read_fields"],"path":"` + filepath.Join(root, "pdf-forms") + `","root":"` + root + `"},` +
		`{"id":"release-notes","name":"release-notes","description":"Drafts release notes from the git history since the last tag. Use when the user asks for release notes, a changelog entry or a summary of what shipped.","version":"1.2.0","category":"release","tags":["git","changelog","release"],"tools":["git_log","vox_check"],"path":"` + filepath.Join(root, "release-notes") + `","root":"` + root + `"}]}`
	if text != want {
		t.Errorf("list\n got  %s\n want %s", text, want)
	}

	text = ok(t, s, "vox_skill_search", `{"query":"commit message","limit":1}`)
	if !strings.HasPrefix(text, `{"results":[{"id":"commit-message","name":"commit-message","description":"Writes a conventional commit message`) || strings.Count(text, `"id"`) != 1 {
		t.Errorf("search %s", text)
	}
	if text := ok(t, s, "vox_skill_search", `{"query":"kubernetes"}`); text != `{"results":[]}` {
		t.Errorf("no match %s", text)
	}

	text = ok(t, s, "vox_skill_info", `{"id":"pdf-forms"}`)
	if !strings.Contains(text, `"author":"Docs Team","dependencies":["pypdf"],"permissions":["read_files","write_files"],"allowed_tools":[],"license":"MIT","compatibility":""`) ||
		!strings.HasSuffix(text, `"files":["SKILL.md","assets/logo.png","assets/sample.pdf","references/fields.json","scripts/fill_form.py"]}`) {
		t.Errorf("info %s", text)
	}
	fails(t, s, "vox_skill_info", `{"id":"nope"}`, `no installed skill "nope": vox_skill_list shows the installed skills`)

	text = ok(t, s, "vox_skill_parse", `{"skill_md":"---\nname: draft\ndescription: A draft.\nmetadata:\n  vox-tools: a, b c!\n  vox-permissions: sudo\n---\nBody."}`)
	want = `{"skill":{"id":"draft","name":"draft","description":"A draft.","version":"0.1.0","category":"","tags":[],"tools":["a","b","c!"],"author":"","dependencies":[],"permissions":["sudo"],"allowed_tools":[],"license":"","compatibility":""},` +
		`"warnings":["line 6: unknown permission \"sudo\" (known: read_files write_files shell_exec network db_read db_write secrets)","line 5: tool name \"c!\" is not a valid MCP tool name (^[A-Za-z0-9_-]{1,64}$): it gets no macro tool but still counts in the allowlist"]}`
	if text != want {
		t.Errorf("parse\n got  %s\n want %s", text, want)
	}
	fails(t, s, "vox_skill_parse", `{"skill_md":"---\nname: x\ndescription: [open\n---\n"}`,
		"skill_md: front matter is neither a YAML nor a TOML mapping (YAML: line 3: did not find expected ',' or ']'; TOML: line 2, column 5: expected '.' or '=', but got ':' instead): fix the front matter and parse again")
}

func TestSkillDiscoverInstallUninstallRemove(t *testing.T) {
	// With the opt-out, which works on Linux, vox_skill_run can run:
	// skill_run_unavailable is null.
	s, root := skillServer(t, server.Options{SkillSandboxOff: true}, "go-bench")
	text := ok(t, s, "vox_skill_discover", `{}`)
	if text != `{"entries":[{"id":"go-bench","name":"go-bench","path":"`+filepath.Join(root, "go-bench")+`","root":"`+root+`","installed":true,"shadowed_by":null}],"skipped":[],"skill_run_unavailable":null}` {
		t.Errorf("discover %s", text)
	}
	// A skill folder that cannot be loaded is reported with where and why.
	writeFiles(t, root, map[string]string{"broken/SKILL.md": "---\nname: broken\n---\nno description\n"})
	var found struct {
		Skipped []struct{ Path, Reason string }
	}
	json.Unmarshal([]byte(ok(t, s, "vox_skill_discover", `{}`)), &found)
	if len(found.Skipped) != 1 || found.Skipped[0].Path != filepath.Join(root, "broken", "SKILL.md") ||
		found.Skipped[0].Reason != "front matter has no description: add a description saying what the skill does and when to use it" {
		t.Errorf("skipped %+v", found.Skipped)
	}
	os.RemoveAll(filepath.Join(root, "broken"))
	md, _ := json.Marshal(skillsMD("notes-helper", "Keeps meeting notes tidy.", "metadata:\n  vox-tools: notes_tidy"))
	text = ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`,"files":{"references/format.md":"# Format"}}`)
	dir := filepath.Join(root, "notes-helper")
	if text != `{"id":"notes-helper","name":"notes-helper","path":"`+dir+`"}` {
		t.Errorf("install %s", text)
	}
	// At once: listed, searchable, its macro tool and resources registered.
	if !strings.Contains(ok(t, s, "vox_skill_list", `{}`), `"id":"notes-helper"`) {
		t.Error("not listed")
	}
	if names := toolNames(t, s); !contains(names, "notes_tidy") {
		t.Errorf("macro tool missing: %v", names)
	}
	if uris := resourceURIs(t, s); !contains(uris, "skill://notes-helper/references/format.md") {
		t.Errorf("resources %v", uris)
	}
	fails(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`,
		`a skill named "notes-helper" is already installed (id notes-helper, from `+dir+`): uninstall or remove it first, or rename the new skill`)
	fails(t, s, "vox_skill_install", `{"skill_md":"---\nname: x\ndescription: d\n---\n","files":{"../x":"y"}}`,
		`files: "../x" segment ".." is a relative path step: give relative paths inside the skill folder, like references/guide.md`)
	fails(t, s, "vox_skill_install", `{"skill_md":"---\nname: x\ndescription: d\n---\n","files":{"a.txt":1}}`,
		`argument files: the value of "a.txt" must be a string of UTF-8 text`)
	fails(t, s, "vox_skill_install", `{"skill_md":"---\nname: x\ndescription: d\n---\n","global":true}`,
		"global is not available while VOX_SKILL_ROOTS is set: installs go to "+root+"; drop global")

	if text := ok(t, s, "vox_skill_uninstall", `{"id":"notes-helper"}`); text != `{"id":"notes-helper","path":"`+dir+`","deleted":false}` {
		t.Errorf("uninstall %s", text)
	}
	if names := toolNames(t, s); contains(names, "notes_tidy") {
		t.Error("macro tool still listed after uninstall")
	}
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Error("uninstall deleted the folder")
	}
	if !strings.Contains(ok(t, s, "vox_skill_discover", `{}`), `"path":"`+dir+`","root":"`+root+`","installed":false`) {
		t.Error("discover does not show the uninstalled folder")
	}
	fails(t, s, "vox_skill_remove", `{"id":"notes-helper"}`, `no installed skill "notes-helper": vox_skill_list shows the installed skills`)
	if text := ok(t, s, "vox_skill_remove", `{"id":"go-bench"}`); text != `{"id":"go-bench","path":"`+filepath.Join(root, "go-bench")+`","deleted":true}` {
		t.Errorf("remove %s", text)
	}
	if _, err := os.Stat(filepath.Join(root, "go-bench")); !os.IsNotExist(err) {
		t.Error("remove left the folder")
	}
}

func TestSkillAdd(t *testing.T) {
	src := t.TempDir()
	skillFixture(t, "skills", "api-docs", src)
	skillFixture(t, "skills", "csv-insights", src)
	s, root := skillServer(t, server.Options{})
	text := ok(t, s, "vox_skill_add", `{"source":`+quote(src)+`}`)
	if text != `{"installed":[{"id":"api-docs","name":"api-docs","path":"`+filepath.Join(root, "api-docs")+`"},{"id":"csv-insights","name":"csv-insights","path":"`+filepath.Join(root, "csv-insights")+`"}]}` {
		t.Errorf("add %s", text)
	}
	s2, root2 := skillServer(t, server.Options{})
	if text := ok(t, s2, "vox_skill_add", `{"source":`+quote(src)+`,"skill":"csv-insights"}`); text != `{"id":"csv-insights","name":"csv-insights","path":"`+filepath.Join(root2, "csv-insights")+`"}` {
		t.Errorf("add one %s", text)
	}
	fails(t, s2, "vox_skill_add", `{"source":"git://127.0.0.1:1/skills"}`,
		"adding from a git URL needs network access, which is off: start vox-mcp with VOX_MCP_ALLOW_NETWORK=1, or add from a local folder")
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func skillsMD(name, description, extra string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n" + extra + "\n---\n# " + name + "\n\nDo the thing.\n"
}

func toolNames(t *testing.T, s *server.Server) []string {
	t.Helper()
	var names []string
	for _, tl := range rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

func resourceURIs(t *testing.T, s *server.Server) []string {
	t.Helper()
	var uris []string
	for _, r := range rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)["result"].(map[string]any)["resources"].([]any) {
		uris = append(uris, r.(map[string]any)["uri"].(string))
	}
	sort.Strings(uris)
	return uris
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestMacroToolsOverMCP(t *testing.T) {
	s, root := skillServer(t, server.Options{}, "pdf-forms", "security-audit")
	// A skill that names a catalog tool gets no macro tool for it.
	if err := os.MkdirAll(filepath.Join(root, "shadow"), 0o755); err != nil {
		t.Fatal(err)
	}
	md, _ := json.Marshal(skillsMD("shadow", "Names a catalog tool.", "metadata:\n  vox-tools: vox_tool_search, shadow_step"))
	os.RemoveAll(filepath.Join(root, "shadow"))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)

	resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	byName := map[string]map[string]any{}
	for _, tl := range resp["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		byName[m["name"].(string)] = m
	}
	for name, skill := range map[string]string{"pdf_fill_form": "pdf-forms", "pdf_read_fields": "pdf-forms", "audit_deps": "security-audit", "shadow_step": "shadow"} {
		tool := byName[name]
		if tool == nil {
			t.Errorf("%s not advertised", name)
			continue
		}
		b, _ := json.Marshal(tool)
		want := `{"annotations":{"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},"_meta":{"vox_skill_id":"` + skill + `","vox_source":"skill"},` +
			`"description":"Instructional macro tool from skill: ` + skill + `","inputSchema":{"type":"object"},"name":"` + name + `"}`
		var got, exp any
		json.Unmarshal(b, &got)
		json.Unmarshal([]byte(want), &exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s:\n got  %s\n want %s", name, b, want)
		}
	}
	// vox_check is a catalog tool of this build: no macro; "scan_secrets!"
	// is not a tool name: no macro either.
	if byName["vox_tool_search"]["_meta"].(map[string]any)["vox_source"] != "catalog" || byName["scan_secrets!"] != nil {
		t.Error("a macro tool took a catalog tool's name or an invalid name")
	}

	text, isErr, structured := call(t, s, "pdf_fill_form", `{"anything":1}`)
	if isErr || structured != "" || !strings.HasPrefix(text, "This tool is an instruction from skill 'pdf-forms'. Carry out the steps below yourself.\n\n# PDF forms\n\nTo read a form") {
		t.Errorf("macro call: %v %q", isErr, text)
	}
	// vox_tool_search sees macro tools.
	text = ok(t, s, "vox_tool_search", `{"query":"pdf forms","source":"skill"}`)
	if !strings.Contains(text, `"name":"pdf_fill_form"`) || !strings.Contains(text, `"vox_source":"skill"`) || strings.Contains(text, `"vox_source":"catalog"`) {
		t.Errorf("tool search %s", text)
	}
	// The instructions are read at call time: a reloaded body reaches the
	// tool even though its definition (and so mcp-go's handler) stays.
	skillMD := filepath.Join(root, "pdf-forms", "SKILL.md")
	data, _ := os.ReadFile(skillMD)
	if err := os.WriteFile(skillMD, []byte(strings.Replace(string(data), "# PDF forms", "# PDF forms, edited", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	skillRegistry(t, s).Hydrate()
	if text, _, _ := call(t, s, "pdf_fill_form", `{}`); !strings.Contains(text, "\n\n# PDF forms, edited\n") {
		t.Errorf("after reload: %q", text)
	}
	// Uninstalled: the macro tool is gone.
	ok(t, s, "vox_skill_uninstall", `{"id":"pdf-forms"}`)
	if names := toolNames(t, s); contains(names, "pdf_fill_form") {
		t.Error("macro tool still listed")
	}
}

func TestSkillResourcesOverMCP(t *testing.T) {
	s, root := skillServer(t, server.Options{}, "pdf-forms", "api-docs")
	if err := os.WriteFile(filepath.Join(root, "api-docs", "references", "big.md"), []byte(strings.Repeat("x", skills.MaxFileSize+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, s, "vox_skill_uninstall", `{"id":"api-docs"}`)
	// Re-hydrating is what a restart does; here the registry reloads api-docs
	// with its new file.
	skillRegistry(t, s).Hydrate()

	resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
	got := map[string]string{}
	for _, r := range resp["result"].(map[string]any)["resources"].([]any) {
		m := r.(map[string]any)
		got[m["uri"].(string)] = fmt.Sprintf("%v|%v|%v", m["name"], m["mimeType"], m["description"] != nil)
	}
	want := map[string]string{
		"skill://index.json":                       "skill-index|application/json|true",
		"skill://api-docs/SKILL.md":                "api-docs|text/markdown|true",
		"skill://api-docs/assets/flow.svg":         "api-docs/assets/flow.svg|image/svg+xml|true",
		"skill://api-docs/references/big.md":       "api-docs/references/big.md|text/markdown|true",
		"skill://api-docs/references/openapi.yaml": "api-docs/references/openapi.yaml|application/yaml|true",
		"skill://pdf-forms/SKILL.md":               "pdf-forms|text/markdown|true",
		"skill://pdf-forms/assets/logo.png":        "pdf-forms/assets/logo.png|image/png|true",
		"skill://pdf-forms/assets/sample.pdf":      "pdf-forms/assets/sample.pdf|application/pdf|true",
		"skill://pdf-forms/references/fields.json": "pdf-forms/references/fields.json|application/json|true",
		"skill://pdf-forms/scripts/fill_form.py":   "pdf-forms/scripts/fill_form.py|text/x-python|true",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources/list\n got  %v\n want %v", got, want)
	}

	read := func(uri string) map[string]any {
		return rpc(t, s, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":%q}}`, uri))
	}
	content := func(uri string) map[string]any {
		t.Helper()
		resp := read(uri)
		res, okRes := resp["result"].(map[string]any)
		if !okRes {
			t.Fatalf("%s: %v", uri, resp)
		}
		return res["contents"].([]any)[0].(map[string]any)
	}
	index := content("skill://index.json")
	if index["text"] != `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[`+
		`{"name":"api-docs","description":"Writes and updates reference documentation for HTTP APIs from an OpenAPI document. Use when endpoints change or the user asks to document an API.","type":"skill-md","url":"skill://api-docs/SKILL.md"},`+
		`{"name":"pdf-forms","description":"Fills in PDF forms and extracts the values of their fields. Use when the user gives a PDF form to complete or asks what a filled form contains.","type":"skill-md","url":"skill://pdf-forms/SKILL.md"}]}` ||
		index["mimeType"] != "application/json" {
		t.Errorf("index %v", index)
	}
	md, _ := os.ReadFile(filepath.Join(root, "pdf-forms", "SKILL.md"))
	if c := content("skill://pdf-forms/SKILL.md"); c["text"] != string(md) || c["mimeType"] != "text/markdown" {
		t.Errorf("SKILL.md %v", c)
	}
	png, _ := os.ReadFile(filepath.Join(root, "pdf-forms", "assets", "logo.png"))
	if c := content("skill://pdf-forms/assets/logo.png"); c["blob"] != base64.StdEncoding.EncodeToString(png) || c["text"] != nil {
		t.Errorf("png %v", c)
	}
	if c := content("skill://api-docs/assets/flow.svg"); !strings.HasPrefix(fmt.Sprint(c["text"]), "<svg") {
		t.Errorf("svg %v", c)
	}
	// Over 1 MiB: -32603 with the text of docs/skills.md §5.
	e := read("skill://api-docs/references/big.md")["error"].(map[string]any)
	if e["code"] != float64(-32603) || e["message"] != "file larger than 1 MiB" {
		t.Errorf("big file %v", e)
	}
	// Traversal is an unknown resource: -32002 (protocol 2025-06-18), the
	// URI named, and nothing read.
	outside := filepath.Join(filepath.Dir(root), "secret.txt")
	os.WriteFile(outside, []byte("TOP-SECRET"), 0o644)
	for _, uri := range []string{
		"skill://pdf-forms/../secret.txt", "skill://pdf-forms/..%2F..%2Fsecret.txt", "skill://pdf-forms/%2e%2e/%2e%2e/secret.txt",
		"skill://pdf-forms/" + outside, "skill:///etc/passwd", "skill://pdf-forms/references/../SKILL.md", "skill://pdf-forms/references%2Ffields.json",
	} {
		resp := read(uri)
		e, isErr := resp["error"].(map[string]any)
		if !isErr || e["code"] != float64(-32002) || !strings.Contains(fmt.Sprint(e["message"]), uri) {
			t.Errorf("%s: %v", uri, resp)
		}
	}
}

// A session double: an HTTP session has the Mcp-Session-Id as its id, or
// "" for a request that carries none.
type testSession struct{ id string }

func (s testSession) Initialize()       {}
func (s testSession) Initialized() bool { return true }
func (s testSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return make(chan mcp.JSONRPCNotification, 100)
}
func (s testSession) SessionID() string { return s.id }

func callIn(t *testing.T, s *server.Server, session mcpserver.ClientSession, name, args string) (string, bool) {
	t.Helper()
	ctx := context.Background()
	if session != nil {
		ctx = s.MCP().WithContext(ctx, session)
	}
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args)
	b, _ := json.Marshal(s.MCP().HandleMessage(ctx, json.RawMessage(msg)))
	var resp map[string]any
	json.Unmarshal(b, &resp)
	text, isErr, _ := toolResult(t, resp)
	return text, isErr
}

// allowlistWorkspace holds workspace tools: the allowlist runs in the
// shared middleware, so it covers them too; some imitate the names of
// exempt catalog tools, which earns them nothing.
var allowlistWorkspace = map[string]string{
	"tools/ws.vox": `@tool "workspace lint"
fn ws_lint() to str { "ran ws_lint" }

@tool "workspace format"
fn ws_format() to str { "ran ws_format" }

@tool "imitates a skill tool"
fn vox_skill_imposter() to str { "ran vox_skill_imposter" }

@tool "imitates a chat tool"
fn vox_chat_imposter() to str { "ran vox_chat_imposter" }
`,
}

func TestActiveSkillAllowlist(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, allowlistWorkspace)
	s, _ := skillServer(t, server.Options{Root: root}, "pdf-forms", "security-audit")
	s.WaitWorkspace(context.Background())
	md, _ := json.Marshal(skillsMD("gatekeeper", "Allows a few tools.", "metadata:\n  vox-tools: vox_test_ws ws_lint, audit_deps not_a_tool!"))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)

	text := ok(t, s, "vox_skill_use", `{"id":"gatekeeper"}`)
	if text != `{"id":"gatekeeper","name":"gatekeeper","description":"Allows a few tools.","body":"# gatekeeper\n\nDo the thing."}` {
		t.Errorf("use %s", text)
	}
	const list = `["vox_test_ws", "ws_lint", "audit_deps", "not_a_tool!"]`
	deny := func(tool string) string { return "Tool '" + tool + "' is not in skill 'gatekeeper' allowlist " + list }
	// Catalog, workspace and macro tools outside the list are refused and
	// do not run.
	fails(t, s, "vox_test_net", `{}`, deny("vox_test_net"))
	fails(t, s, "vox_test_panic", `{}`, deny("vox_test_panic"))
	fails(t, s, "ws_format", `{}`, deny("ws_format"))
	fails(t, s, "pdf_fill_form", `{}`, deny("pdf_fill_form"))
	fails(t, s, "vox_skill_imposter", `{}`, deny("vox_skill_imposter"))
	fails(t, s, "vox_chat_imposter", `{}`, deny("vox_chat_imposter"))
	// The listed ones run.
	if text, isErr, _ := call(t, s, "vox_test_ws", `{}`); isErr || text != `{"ok":true}` {
		t.Errorf("catalog tool in the list: %s", text)
	}
	if text, isErr, _ := call(t, s, "ws_lint", `{}`); isErr || text != "ran ws_lint" {
		t.Errorf("workspace tool in the list: %s", text)
	}
	// (audit_deps is named by security-audit too; gatekeeper is first by id
	// and owns the macro tool.)
	if text, isErr, _ := call(t, s, "audit_deps", `{}`); isErr || !strings.HasPrefix(text, "This tool is an instruction from skill 'gatekeeper'") {
		t.Errorf("macro tool in the list: %s", text)
	}
	// Catalog tools whose row sets allowlist_exempt stay allowed.
	ok(t, s, "vox_skill_list", `{}`)
	ok(t, s, "vox_tool_search", `{"query":"pdf"}`)
	// Another session is not restricted.
	other := testSession{id: "other-session"}
	if text, isErr := callIn(t, s, other, "ws_format", `{}`); isErr || text != "ran ws_format" {
		t.Errorf("other session: %s", text)
	}
	// Activating another skill replaces the allowlist; clearing lifts it;
	// a skill without tools is unrestricted.
	ok(t, s, "vox_skill_use", `{"id":"pdf-forms"}`)
	fails(t, s, "vox_test_net", `{}`, `Tool 'vox_test_net' is not in skill 'pdf-forms' allowlist ["pdf_fill_form", "pdf_read_fields"]`)
	if text := ok(t, s, "vox_skill_use", `{"id":""}`); text != `{"active":null}` {
		t.Errorf("clear %s", text)
	}
	if text, isErr, _ := call(t, s, "ws_format", `{}`); isErr || text != "ran ws_format" {
		t.Errorf("after clearing: %s", text)
	}
	md, _ = json.Marshal(skillsMD("open-skill", "Lists no tools.", ""))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)
	ok(t, s, "vox_skill_use", `{"id":"open-skill"}`)
	if text, isErr, _ := call(t, s, "ws_format", `{}`); isErr || text != "ran ws_format" {
		t.Errorf("empty tools list must not restrict: %s", text)
	}
	fails(t, s, "vox_skill_use", `{"id":"missing"}`, `no installed skill "missing": vox_skill_list shows the installed skills`)
}

func TestSkillSessions(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "release-notes")
	// An HTTP request without Mcp-Session-Id cannot activate (or clear) a
	// skill, and is never restricted.
	noSession := testSession{id: ""}
	for _, args := range []string{`{"id":"release-notes"}`, `{"id":""}`} {
		if text, isErr := callIn(t, s, noSession, "vox_skill_use", args); !isErr || text != "activating a skill needs a session: use stdio, or HTTP with Mcp-Session-Id; a request of protocol 2026-07-28 names its active skill in _meta[\"io.github.vox-lang/activeSkill\"]" {
			t.Errorf("no session %s: %q", args, text)
		}
	}
	// Each session has its own active skill.
	a, b := testSession{id: "a"}, testSession{id: "b"}
	if _, isErr := callIn(t, s, a, "vox_skill_use", `{"id":"release-notes"}`); isErr {
		t.Fatal("use in session a")
	}
	if text, _ := callIn(t, s, a, "vox_test_fail", `{}`); text != `Tool 'vox_test_fail' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]` {
		t.Errorf("session a: %q", text)
	}
	for _, sess := range []mcpserver.ClientSession{b, noSession, nil} {
		if text, _ := callIn(t, s, sess, "vox_test_fail", `{}`); text != "it failed; try again later" {
			t.Errorf("session %v: %q", sess, text)
		}
	}
}

func TestSkillRequirements(t *testing.T) {
	// No skill root exists: the tools that need installed skills say so.
	s, err := server.New(server.Options{Root: t.TempDir(), Catalog: catalog.Catalog, Handlers: handlers.Table, Skills: &skills.Config{Workspace: "/nonexistent-ws", Home: "/nonexistent-home"}})
	if err != nil {
		t.Fatal(err)
	}
	text, isErr, _ := call(t, s, "vox_skill_list", `{}`)
	if !isErr || !strings.HasPrefix(text, "requirement skills not met: no skill folder exists (/nonexistent-ws/.vox/skills, /nonexistent-ws/.cursor/skills,") ||
		!strings.HasSuffix(text, "); install a skill with vox_skill_install or vox_skill_add, or create one of those folders") {
		t.Errorf("skills requirement: %q", text)
	}
	// parse needs no skill folder.
	ok(t, s, "vox_skill_parse", `{"skill_md":"---\nname: a\ndescription: b\n---\n"}`)
}

// TestSkillRequirementFollowsTheRoots: the skills requirement does not
// stat the roots on every call (docs/federation.md §3), yet the call right
// after a root is created, removed or moved away sees it.
func TestSkillRequirementFollowsTheRoots(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	s, err := server.New(server.Options{Root: ws, Catalog: catalog.Catalog, Handlers: handlers.Table, Skills: &skills.Config{Workspace: ws, Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	met := func(want bool, step string) {
		t.Helper()
		for range 3 {
			text, isErr, _ := call(t, s, "vox_skill_list", `{}`)
			if isErr == want || (!want && !strings.HasPrefix(text, "requirement skills not met: no skill folder exists")) {
				t.Fatalf("%s: met %v, want %v: %q", step, !isErr, want, text)
			}
		}
	}
	met(false, "no root")
	root := filepath.Join(ws, ".claude", "skills")
	if err := os.MkdirAll(root, 0o755); err != nil { // .claude did not exist either
		t.Fatal(err)
	}
	met(true, "root created")
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	met(false, "root removed")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	met(true, "root created again")
	if err := os.Rename(filepath.Join(ws, ".claude"), filepath.Join(ws, "moved")); err != nil {
		t.Fatal(err)
	}
	met(false, "the folder above the root moved away")
	if err := os.Symlink(filepath.Join(ws, "moved"), filepath.Join(ws, ".claude")); err != nil {
		t.Fatal(err)
	}
	met(true, "the folder above the root is a symlink to it")
	if err := os.Remove(filepath.Join(ws, "moved", "skills")); err != nil {
		t.Fatal(err)
	}
	met(false, "removed through the symlink")
	if err := os.MkdirAll(filepath.Join(home, ".vox", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	met(true, "a root in the home folder")
}

func TestSkillRun(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "release-notes")
	fails(t, s, "vox_skill_run", `{"id":"release-notes","command":"true","timeout_ms":300001}`, "argument timeout_ms: want at most 300000, got 300001")
	fails(t, s, "vox_skill_run", `{"id":"nope","command":"true"}`, `no installed skill "nope": vox_skill_list shows the installed skills`)
	if err := (sandbox.Config{}).SelfTest(context.Background()).Problem(); err != nil {
		// This host cannot isolate: the tool fails closed, saying why.
		text, isErr, _ := call(t, s, "vox_skill_run", `{"id":"release-notes","command":"true"}`)
		if !isErr || !strings.HasPrefix(text, "requirement sandbox not met: the sandbox self-test failed on this host (") {
			t.Errorf("fail closed: %q", text)
		}
	} else {
		// Isolated: the skill folder is at ./skill, the workspace and home
		// are absent, the environment is scrubbed.
		text := ok(t, s, "vox_skill_run", `{"id":"release-notes","command":"head -2 skill/SKILL.md; ls `+s.Root()+` 2>/dev/null || echo no-workspace; echo $VOX_SKILL_ID; env | cut -d= -f1 | sort | tr '\\n' ' '"}`)
		if text != `{"exit_code":0,"stdout":"---\nname: release-notes\nno-workspace\nrelease-notes\nHOME LANG PATH PWD VOX_SKILL_ID ","stderr":"","timed_out":false,"truncated":false}` {
			t.Errorf("isolated run %s", text)
		}
		text = ok(t, s, "vox_skill_run", `{"id":"release-notes","command":"echo out; echo err >&2; exit 3"}`)
		if text != `{"exit_code":3,"stdout":"out\n","stderr":"err\n","timed_out":false,"truncated":false}` {
			t.Errorf("exit status %s", text)
		}
	}
	// The explicit opt-out runs without isolation (and warns).
	off, _ := skillServer(t, server.Options{SkillSandboxOff: true}, "release-notes")
	text := ok(t, off, "vox_skill_run", `{"id":"release-notes","command":"echo $VOX_SKILL_ID; sleep 30","timeout_ms":3000}`)
	if text != `{"exit_code":-1,"stdout":"release-notes\n","stderr":"","timed_out":true,"truncated":false}` {
		t.Errorf("unisolated run %s", text)
	}
}

// A change of the advertised tools reaches clients as list_changed.
func TestSkillChangesNotify(t *testing.T) {
	s, _ := skillServer(t, server.Options{})
	ch := make(chan mcp.JSONRPCNotification, 100)
	sess := &notifySession{id: "watcher", ch: ch}
	if err := s.MCP().RegisterSession(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	md, _ := json.Marshal(skillsMD("notifier", "Adds a macro tool.", "metadata:\n  vox-tools: notify_me"))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`,"files":{"a.txt":"a"}}`)
	seen := map[string]bool{}
	for len(ch) > 0 {
		seen[(<-ch).Method] = true
	}
	if !seen["notifications/tools/list_changed"] || !seen["notifications/resources/list_changed"] {
		t.Errorf("notifications %v", seen)
	}
}

type notifySession struct {
	id string
	ch chan mcp.JSONRPCNotification
}

func (s *notifySession) Initialize()                                         {}
func (s *notifySession) Initialized() bool                                   { return true }
func (s *notifySession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *notifySession) SessionID() string                                   { return s.id }

// Over streamable HTTP the active skill belongs to the Mcp-Session-Id; a
// request without one (a 2026-07-28 client) cannot activate a skill.
func TestSkillSessionsOverHTTP(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "release-notes")
	ts := httptest.NewServer(s.HTTPHandler(server.Auth{}))
	defer ts.Close()
	callArgs := func(c *httpClient, name, args string) (string, bool) {
		t.Helper()
		text, isErr, _ := toolResult(t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args)))
		return text, isErr
	}
	a, b := &httpClient{t: t, url: ts.URL}, &httpClient{t: t, url: ts.URL}
	a.initialize()
	b.initialize()
	if text, isErr := callArgs(a, "vox_skill_use", `{"id":"release-notes"}`); isErr {
		t.Fatalf("use: %s", text)
	}
	if text, _ := callArgs(a, "vox_test_fail", `{}`); text != `Tool 'vox_test_fail' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]` {
		t.Errorf("session a: %q", text)
	}
	if text, _ := callArgs(b, "vox_test_fail", `{}`); text != "it failed; try again later" {
		t.Errorf("session b: %q", text)
	}
	none := &httpClient{t: t, url: ts.URL}
	r := none.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},"name":"vox_skill_use","arguments":{"id":"release-notes"}}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "vox_skill_use")
	if text, isErr, _ := toolResult(t, r.json(t)); !isErr || text != "activating a skill needs a session: use stdio, or HTTP with Mcp-Session-Id; a request of protocol 2026-07-28 names its active skill in _meta[\"io.github.vox-lang/activeSkill\"]" {
		t.Errorf("no session: %d %q", r.status, text)
	}
	if text, _ := callArgs(a, "vox_skill_use", `{"id":""}`); text != `{"active":null}` {
		t.Errorf("clear: %q", text)
	}
	if text, _ := callArgs(a, "vox_test_fail", `{}`); text != "it failed; try again later" {
		t.Errorf("after clearing: %q", text)
	}
}
