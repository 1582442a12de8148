package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/skills"
)

// skills/list serves the reference's skills in place (docs/skills.md §1):
// a *.skill.md with its front matter as written, and a plugin's skill with
// the fields of its Plugin.toml (its file's own front matter is not what
// the registry reads), each with one file, SKILL.md, digested as read.
func TestShimListsReferenceSkills(t *testing.T) {
	root := t.TempDir()
	const file = "---\nname = \"git\"\ndescription = \"Explains commits.\"\n\n[metadata]\n\"vox-id\" = \"vox.git\"\n\"vox-tags\" = [\"git\"]\n---\n# Git\n"
	const doc = "---\nname = \"other\"\ndescription = \"Not what the plugin says.\"\n---\n# DB\n"
	for p, text := range map[string]string{
		"crates/vox-plugin-git/vox.git.skill.md": file,
		"crates/vox-plugin-db/db.skill.md":       doc,
		"crates/vox-plugin-db/Plugin.toml":       "[plugin]\nid = \"vox.db\"\nname = \"db\"\ndescription = \"Queries the database.\"\n\n[plugin.payload]\nkind = \"skill\"\nskill-md = \"db.skill.md\"\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, SessionKeys: [][]byte{testSessionKey},
		Skills: &skills.Config{Workspace: root, Home: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.HTTPHandler(Auth{ReadToken: "read"}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL, token: "read"}
	cl.do(http.MethodPost, initializeBody).json(t)
	cl.initialize()
	resp := cl.rpc(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`)
	list, _ := resp["result"].(map[string]any)["skills"].([]any)
	if len(list) != 2 {
		t.Fatalf("skills/list: %v", resp)
	}
	want := []struct {
		uri, name, description, digest string
	}{
		{"skill://vox-db/SKILL.md", "db", "Queries the database.", digestOf([]byte(doc))},
		{"skill://vox-git/SKILL.md", "git", "Explains commits.", digestOf([]byte(file))},
	}
	for i, w := range want {
		e := list[i].(map[string]any)
		fm := e["frontmatter"].(map[string]any)
		files := e["resources"].([]any)
		if e["uri"] != w.uri || fm["name"] != w.name || fm["description"] != w.description || len(files) != 1 ||
			files[0].(map[string]any)["uri"] != w.uri || files[0].(map[string]any)["digest"] != w.digest {
			t.Errorf("entry %d: %v", i, e)
		}
	}
	if fm := list[1].(map[string]any)["frontmatter"].(map[string]any); fm["metadata"] == nil {
		t.Errorf("the skill file's front matter as written: %v", fm)
	}
}
