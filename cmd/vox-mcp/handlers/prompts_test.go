package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/server"
)

// Every installed skill is a prompt (docs/skills.md §9): its id is the
// name, its description the prompt's, with an optional task; prompts/get
// returns the instructions and the small files as embedded resources;
// installing and uninstalling a skill announce prompts/list_changed.
func TestSkillsArePrompts(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "pdf-forms", "release-notes")
	caps := rpc(t, s, initializeBody)["result"].(map[string]any)["capabilities"].(map[string]any)
	if p, ok := caps["prompts"].(map[string]any); !ok || p["listChanged"] != true {
		t.Errorf("prompts capability %v", caps["prompts"])
	}
	list := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)["result"].(map[string]any)["prompts"].([]any)
	var names []string
	for _, p := range list {
		m := p.(map[string]any)
		names = append(names, m["name"].(string))
		args := m["arguments"].([]any)
		if m["description"] == "" || len(args) != 1 || args[0].(map[string]any)["name"] != "task" || args[0].(map[string]any)["required"] == true {
			t.Errorf("prompt %v", m)
		}
	}
	if fmt.Sprint(names) != "[pdf-forms release-notes]" {
		t.Errorf("prompts %v", names)
	}

	get := func(args string) map[string]any {
		t.Helper()
		r := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"pdf-forms"`+args+`}}`)
		res, ok := r["result"].(map[string]any)
		if !ok {
			t.Fatalf("prompts/get: %v", r)
		}
		return res
	}
	res := get(`,"arguments":{"task":"fill the tax form"}`)
	msgs := res["messages"].([]any)
	first := msgs[0].(map[string]any)
	text := first["content"].(map[string]any)["text"].(string)
	if first["role"] != "user" || !strings.HasPrefix(text, "# PDF forms") || !strings.HasSuffix(text, "\n\nTask: fill the tax form") {
		t.Errorf("first message %v", first)
	}
	var embedded []string
	for _, m := range msgs[1:] {
		c := m.(map[string]any)["content"].(map[string]any)
		r := c["resource"].(map[string]any)
		if c["type"] != "resource" || (r["text"] == nil) == (r["blob"] == nil) {
			t.Errorf("embedded %v", c)
		}
		embedded = append(embedded, r["uri"].(string))
	}
	if fmt.Sprint(embedded) != "[skill://pdf-forms/assets/logo.png skill://pdf-forms/assets/sample.pdf skill://pdf-forms/references/fields.json skill://pdf-forms/scripts/fill_form.py]" {
		t.Errorf("embedded files %v", embedded)
	}
	if text := get(``)["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"].(string); strings.Contains(text, "Task:") {
		t.Errorf("without a task: %q", text)
	}
	if r := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"no-such-skill"}}`); r["error"] == nil {
		t.Errorf("unknown prompt: %v", r)
	}

	ch := make(chan mcp.JSONRPCNotification, 100)
	if err := s.MCP().RegisterSession(context.Background(), &notifySession{id: "watcher", ch: ch}); err != nil {
		t.Fatal(err)
	}
	changed := func() bool {
		seen := false
		for len(ch) > 0 {
			seen = seen || (<-ch).Method == "notifications/prompts/list_changed"
		}
		return seen
	}
	md, _ := json.Marshal(skillsMD("fresh", "A fresh skill.", ""))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)
	if !changed() {
		t.Error("install: no prompts/list_changed")
	}
	if r := rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"fresh"}}`); r["result"] == nil {
		t.Errorf("the installed skill is no prompt: %v", r)
	}
	ok(t, s, "vox_skill_uninstall", `{"id":"fresh"}`)
	if !changed() {
		t.Error("uninstall: no prompts/list_changed")
	}
	if r := rpc(t, s, `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"fresh"}}`); r["error"] == nil {
		t.Errorf("the uninstalled skill is still a prompt: %v", r)
	}
}

// The skill file template is listed and its variables complete (skill ids,
// then the named skill's file paths), ranked and capped at 100; reads
// still resolve only the registered files (docs/skills.md §5).
func TestSkillFileTemplateCompletes(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "pdf-forms", "release-notes")
	templates := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`)["result"].(map[string]any)["resourceTemplates"].([]any)
	if len(templates) != 1 || templates[0].(map[string]any)["uriTemplate"] != "skill://{id}/{+path}" {
		t.Errorf("templates %v", templates)
	}
	complete := func(arg, value, id string) map[string]any {
		t.Helper()
		ctx := ""
		if id != "" {
			ctx = fmt.Sprintf(`,"context":{"arguments":{"id":%q}}`, id)
		}
		r := rpc(t, s, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"skill://{id}/{+path}"},"argument":{"name":%q,"value":%q}%s}}`, arg, value, ctx))
		res, ok := r["result"].(map[string]any)
		if !ok {
			t.Fatalf("complete: %v", r)
		}
		return res["completion"].(map[string]any)
	}
	if got := complete("id", "s", ""); fmt.Sprint(got["values"]) != "[pdf-forms release-notes]" {
		t.Errorf("id s: %v", got)
	}
	if got := complete("id", "Rel", ""); fmt.Sprint(got["values"]) != "[release-notes]" {
		t.Errorf("id Rel: %v", got)
	}
	if got := complete("path", "as", "pdf-forms"); fmt.Sprint(got["values"]) != "[assets/logo.png assets/sample.pdf]" {
		t.Errorf("path as: %v", got)
	}
	if got := complete("path", "", "nope"); len(got["values"].([]any)) != 0 {
		t.Errorf("path of an unknown skill: %v", got)
	}
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("notes/n%03d.md", i)] = "note"
	}
	md, _ := json.Marshal(skillsMD("many-files", "Has many files.", ""))
	fs, _ := json.Marshal(files)
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`,"files":`+string(fs)+`}`)
	got := complete("path", "", "many-files")
	if vals := got["values"].([]any); len(vals) != 100 || got["total"] != 151.0 || got["hasMore"] != true || vals[0] != "SKILL.md" {
		t.Errorf("capped: %d values, total %v, hasMore %v, first %v", len(vals), got["total"], got["hasMore"], vals[0])
	}
	// Prompt arguments have nothing to offer, for any prompt.
	r := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"pdf-forms"},"argument":{"name":"task","value":"f"}}}`)
	if c := r["result"].(map[string]any)["completion"].(map[string]any); len(c["values"].([]any)) != 0 {
		t.Errorf("prompt completion %v", c)
	}
	// A skill URI that no hydrated file has is not found.
	r = rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"skill://pdf-forms/../../etc/passwd"}}`)
	if e, _ := r["error"].(map[string]any); e == nil || e["code"] != float64(mcp.RESOURCE_NOT_FOUND) {
		t.Errorf("unregistered skill URI: %v", r)
	}
}

// resources/subscribe is kept per session: a subscribed session hears
// notifications/resources/updated when the skill file changes (installed,
// uninstalled), another session hears nothing, and unsubscribing ends it;
// every refresh updates the subscribers of workspace resources.
func TestResourceSubscriptions(t *testing.T) {
	s, _ := skillServer(t, server.Options{}, "pdf-forms")
	writeFiles(t, s.Root(), map[string]string{"notes.vox": "@resource(\"notes://today\", \"Today's notes\")\nfn today() to str { \"none\" }\n"})
	s.WaitWorkspace(context.Background())
	caps := rpc(t, s, initializeBody)["result"].(map[string]any)["capabilities"].(map[string]any)["resources"].(map[string]any)
	if caps["subscribe"] != true {
		t.Errorf("resources capability %v", caps)
	}
	watcher := &notifySession{id: "watcher", ch: make(chan mcp.JSONRPCNotification, 100)}
	other := &notifySession{id: "other", ch: make(chan mcp.JSONRPCNotification, 100)}
	for _, sess := range []*notifySession{watcher, other} {
		if err := s.MCP().RegisterSession(context.Background(), sess); err != nil {
			t.Fatal(err)
		}
	}
	send := func(sess *notifySession, msg string) map[string]any {
		t.Helper()
		b, _ := json.Marshal(s.MCP().HandleMessage(s.MCP().WithContext(context.Background(), sess), json.RawMessage(msg)))
		var out map[string]any
		json.Unmarshal(b, &out)
		if out["error"] != nil {
			t.Fatalf("%s: %v", msg, out)
		}
		return out
	}
	updated := func(sess *notifySession) []string {
		var uris []string
		for len(sess.ch) > 0 {
			if n := <-sess.ch; n.Method == "notifications/resources/updated" {
				uris = append(uris, n.Params.AdditionalFields["uri"].(string))
			}
		}
		return uris
	}
	send(watcher, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://fresh/SKILL.md"}}`)
	send(watcher, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"notes://today"}}`)
	md, _ := json.Marshal(skillsMD("fresh", "A fresh skill.", ""))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)
	if got := updated(watcher); fmt.Sprint(got) != "[skill://fresh/SKILL.md]" {
		t.Errorf("after install: %v", got)
	}
	ok(t, s, "vox_workspace_mcp_refresh", `{}`)
	if got := updated(watcher); fmt.Sprint(got) != "[notes://today]" {
		t.Errorf("after a refresh: %v", got)
	}
	if got := updated(other); len(got) != 0 {
		t.Errorf("a session that did not subscribe heard %v", got)
	}
	send(watcher, `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"skill://fresh/SKILL.md"}}`)
	ok(t, s, "vox_skill_uninstall", `{"id":"fresh"}`)
	if got := updated(watcher); len(got) != 0 {
		t.Errorf("after unsubscribing: %v", got)
	}
}

// A function declared with @mcp.prompt is a workspace prompt
// (docs/vox-language.md, Prompts): prompts/list shows it with its string
// arguments (required unless Option[str]), prompts/get runs it and returns
// its str as one user message, a missing required argument is an error
// naming it, and a workspace prompt shadows the skill prompt of its name,
// with a warning in the log.
func TestWorkspacePrompts(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"prompts.vox": `@mcp.prompt("Review a file")
fn review(path: str, focus: Option[str]) to str {
    let extra = focus.map(fn(f) { ", focusing on " + f }).unwrap_or("")
    "Review " + path + extra + "."
}

@mcp.prompt("Fill a PDF form the workspace way")
fn pdf_forms() to str { "Use the workspace's form filler." }

@mcp.prompt("Broken")
fn broken(count: int) to str { "x" }
`})
	var logs bytes.Buffer
	s, _ := skillServer(t, server.Options{Root: root, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, "pdf-forms", "release-notes")
	if err := s.WaitWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	}
	list := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)["result"].(map[string]any)["prompts"].([]any)
	byName := map[string]map[string]any{}
	for _, p := range list {
		m := p.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if _, ok := byName["broken"]; ok || len(byName) != 4 {
		t.Fatalf("prompts %v", list)
	}
	review := byName["review"]
	args, _ := json.Marshal(review["arguments"])
	if review["description"] != "Review a file" || string(args) != `[{"name":"path","required":true},{"name":"focus"}]` ||
		review["_meta"].(map[string]any)["vox_source"] != "workspace" {
		t.Errorf("review: %v (arguments %s)", review, args)
	}

	get := func(name, args string) map[string]any {
		t.Helper()
		return rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"`+name+`","arguments":`+args+`}}`)
	}
	text := func(r map[string]any) string {
		t.Helper()
		res, ok := r["result"].(map[string]any)
		if !ok {
			t.Fatalf("prompts/get: %v", r)
		}
		msgs := res["messages"].([]any)
		m := msgs[0].(map[string]any)
		if len(msgs) != 1 || m["role"] != "user" {
			t.Errorf("messages %v", msgs)
		}
		return m["content"].(map[string]any)["text"].(string)
	}
	if got := text(get("review", `{"path":"main.go","focus":"errors"}`)); got != "Review main.go, focusing on errors." {
		t.Errorf("review with focus: %q", got)
	}
	if got := text(get("review", `{"path":"main.go"}`)); got != "Review main.go." {
		t.Errorf("review without focus: %q", got)
	}
	if r := get("review", `{}`); r["error"] == nil || !strings.Contains(fmt.Sprint(r["error"]), "path") {
		t.Errorf("review without path: %v", r)
	}

	// The workspace prompt pdf_forms does not shadow the skill pdf-forms
	// (another name); one named like a skill does.
	if byName["pdf-forms"]["_meta"].(map[string]any)["vox_source"] != "skill" {
		t.Errorf("pdf-forms: %v", byName["pdf-forms"])
	}
	writeFiles(t, root, map[string]string{"shadow.vox": "@mcp.prompt(\"The changelog, the workspace's way\")\nfn changelog() to str { \"from the workspace\" }\n"})
	md, _ := json.Marshal(skillsMD("changelog", "The changelog as a skill.", ""))
	ok(t, s, "vox_skill_install", `{"skill_md":`+string(md)+`}`)
	if _, err := s.RefreshWorkspace(); err != nil {
		t.Fatal(err)
	}
	if got := text(get("changelog", `{}`)); got != "from the workspace" {
		t.Errorf("the workspace prompt does not shadow the skill prompt: %q", got)
	}
	if !strings.Contains(logs.String(), `msg="a prompt is shadowed" prompt=changelog served=workspace shadowed=skill`) {
		t.Errorf("the shadowing is not reported:\n%s", logs.String())
	}
}

// With --watch, a skill whose folder changes is loaded again
// (docs/skills.md §5): the sessions subscribed to its skill:// files hear
// notifications/resources/updated, the subscribers of an unchanged skill
// hear nothing, and the prompt shows the new description.
func TestSkillFolderChangesReachSubscribers(t *testing.T) {
	s, root := skillServer(t, server.Options{}, "pdf-forms", "release-notes")
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan error, 1)
	go func() { watching <- s.WatchSkills(ctx) }()
	defer func() {
		cancel()
		if err := <-watching; err != nil {
			t.Error(err)
		}
	}()
	watcher := &notifySession{id: "watcher", ch: make(chan mcp.JSONRPCNotification, 1000)}
	if err := s.MCP().RegisterSession(context.Background(), watcher); err != nil {
		t.Fatal(err)
	}
	for i, uri := range []string{"skill://pdf-forms/SKILL.md", "skill://release-notes/SKILL.md"} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+1, uri)
		s.MCP().HandleMessage(s.MCP().WithContext(context.Background(), watcher), json.RawMessage(msg))
	}
	skillMD := filepath.Join(root, "pdf-forms", "SKILL.md")
	original, err := os.ReadFile(skillMD)
	if err != nil {
		t.Fatal(err)
	}
	// The watches are set up in the background: edit until heard.
	var heard []string
	deadline := time.After(20 * time.Second)
	for i := 0; !slices.Contains(heard, "skill://pdf-forms/SKILL.md"); i++ {
		edited := strings.Replace(string(original), "description: ", "description: Edited "+strings.Repeat("again ", i), 1)
		if err := os.WriteFile(skillMD, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-watcher.ch:
			if n.Method == "notifications/resources/updated" {
				heard = append(heard, n.Params.AdditionalFields["uri"].(string))
			}
		case <-time.After(300 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for the edited skill; heard %v", heard)
		}
	}
	for len(watcher.ch) > 0 {
		if n := <-watcher.ch; n.Method == "notifications/resources/updated" {
			heard = append(heard, n.Params.AdditionalFields["uri"].(string))
		}
	}
	if slices.Contains(heard, "skill://release-notes/SKILL.md") {
		t.Errorf("the subscriber of the unchanged skill release-notes heard an update: %v", heard)
	}
	got := rpc(t, s, `{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"pdf-forms"}}`)
	if d := got["result"].(map[string]any)["description"]; !strings.HasPrefix(fmt.Sprint(d), "Edited") {
		t.Errorf("the prompt's description after the edit: %v", d)
	}
}

// A subscription to a URI that a workspace resource template expands
// (notes://7 of notes://{id}) hears every refresh, like a plain workspace
// resource's; once the session unsubscribes it hears nothing, and a URI
// no template expands is not told.
func TestExpandedURISubscriptions(t *testing.T) {
	s, _ := skillServer(t, server.Options{})
	writeFiles(t, s.Root(), map[string]string{"notes.vox": "@mcp.resource(\"notes://{id}\", \"A note\")\nfn note(id: str) to str { \"note \" + id }\n"})
	ok(t, s, "vox_workspace_mcp_refresh", `{}`)
	watcher := &notifySession{id: "watcher", ch: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.MCP().RegisterSession(context.Background(), watcher); err != nil {
		t.Fatal(err)
	}
	send := func(msg string) {
		t.Helper()
		b, _ := json.Marshal(s.MCP().HandleMessage(s.MCP().WithContext(context.Background(), watcher), json.RawMessage(msg)))
		if strings.Contains(string(b), `"error"`) {
			t.Fatalf("%s: %s", msg, b)
		}
	}
	updated := func() []string {
		var uris []string
		for len(watcher.ch) > 0 {
			if n := <-watcher.ch; n.Method == "notifications/resources/updated" {
				uris = append(uris, n.Params.AdditionalFields["uri"].(string))
			}
		}
		return uris
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"notes://7"}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"other://7"}}`)
	ok(t, s, "vox_workspace_mcp_refresh", `{}`)
	if got := updated(); fmt.Sprint(got) != "[notes://7]" {
		t.Errorf("after a refresh: %v", got)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"notes://7"}}`)
	ok(t, s, "vox_workspace_mcp_refresh", `{}`)
	if got := updated(); len(got) != 0 {
		t.Errorf("after unsubscribing: %v", got)
	}
}
