package handlers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/cmd/vox-mcp/handlers"
	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/internal/skills"
)

// A skill file of the reference implementation, kept where the reference
// keeps it (crates/vox-plugin-*/), is served in place over the wire
// (docs/skills.md §1–2): no skill folder exists, yet the skill tools are
// available; resources/list shows skill://vox-git/SKILL.md, which reads
// as the file; search finds it; its dotted id reaches it as written; and
// vox_skill_run refuses it, since the folder holding it (here the
// workspace's crates folder) is not the skill's.
func TestReferenceSkillFileOverTheWire(t *testing.T) {
	ws := t.TempDir()
	const text = "---\nname = \"git\"\ndescription = \"Explains the repository's commits. Use when asked what changed.\"\n\n" +
		"[metadata]\n\"vox-id\" = \"vox.git\"\n\"vox-tools\" = [\"git_log\", \"vox_check\"]\n\"vox-tags\" = [\"history\"]\n\"vox-permissions\" = [\"read_files\"]\n---\n# Git\n\nRun git_log.\n"
	file := filepath.Join(ws, "crates", "vox-plugin-git", "vox.git.skill.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "crates", "vox-plugin-git", "secret.txt"), []byte("not the skill's"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Root: ws, Catalog: catalog.Catalog, Handlers: handlers.Table, SkillSandboxOff: true,
		Skills: &skills.Config{Workspace: ws, Home: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)

	var uris []string
	for _, r := range rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)["result"].(map[string]any)["resources"].([]any) {
		if u := r.(map[string]any)["uri"].(string); strings.HasPrefix(u, "skill://") {
			uris = append(uris, u)
		}
	}
	sort.Strings(uris)
	if want := []string{"skill://index.json", "skill://vox-git/SKILL.md"}; !reflect.DeepEqual(uris, want) {
		t.Errorf("resources/list: %q, want %q", uris, want)
	}
	read := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://vox-git/SKILL.md"}}`)
	res, okRes := read["result"].(map[string]any)
	if !okRes || res["contents"].([]any)[0].(map[string]any)["text"] != text {
		t.Errorf("resources/read: %v", read)
	}

	var hits struct {
		Results []struct{ ID string } `json:"results"`
	}
	if err := json.Unmarshal([]byte(ok(t, s, "vox_skill_search", `{"query":"commits history"}`)), &hits); err != nil || len(hits.Results) != 1 || hits.Results[0].ID != "vox-git" {
		t.Errorf("search: %+v %v", hits, err)
	}
	var info struct {
		ID, Name, Path string
		Tools, Tags    []string
		Permissions    []string
	}
	if err := json.Unmarshal([]byte(ok(t, s, "vox_skill_info", `{"id":"vox.git"}`)), &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != "vox-git" || info.Name != "git" || info.Path != file || !reflect.DeepEqual(info.Tools, []string{"git_log", "vox_check"}) ||
		!reflect.DeepEqual(info.Tags, []string{"history"}) || !reflect.DeepEqual(info.Permissions, []string{"read_files"}) {
		t.Errorf("info by the dotted id: %+v", info)
	}
	text2, isErr, _ := call(t, s, "vox_skill_run", `{"id":"vox-git","command":"cat secret.txt skill/secret.txt"}`)
	if !isErr || text2 != "skill vox-git is the single file "+file+", not a skill folder: vox_skill_run runs commands in a skill folder only; make it one (<id>/SKILL.md) to run commands for it" {
		t.Errorf("run: %v %q", isErr, text2)
	}
}
