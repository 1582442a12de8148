package skills

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestIndexJSON(t *testing.T) {
	root := t.TempDir()
	copyFixture(t, "skills", "release-notes", root, "release-notes")
	copyFixture(t, "skills", "commit-message", root, "commit-message")
	// A description with characters an HTML-escaping encoder would mangle.
	writeFile(t, filepath.Join(root, "a-b/SKILL.md"), skillMD("a-b", `Compares <old> & "new" outputs.`))
	r := New(testConfig(t, root))
	r.Hydrate()
	const want = `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[` +
		`{"name":"a-b","description":"Compares <old> & \"new\" outputs.","type":"skill-md","url":"skill://a-b/SKILL.md"},` +
		`{"name":"commit-message","description":"Writes a conventional commit message for the staged changes. Use when the user asks for a commit message.","type":"skill-md","url":"skill://commit-message/SKILL.md"},` +
		`{"name":"release-notes","description":"Drafts release notes from the git history since the last tag. Use when the user asks for release notes, a changelog entry or a summary of what shipped.","type":"skill-md","url":"skill://release-notes/SKILL.md"}]}`
	c, err := r.Snapshot().ReadResource(IndexURI)
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != want || c.MIMEType != "application/json" || c.IsBlob {
		t.Errorf("index\n got  %s\n want %s", c.Text, want)
	}
	// An empty registry still serves a valid index.
	c, _ = New(testConfig(t, t.TempDir())).Snapshot().ReadResource(IndexURI)
	if c.Text != `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[]}` {
		t.Errorf("empty index %s", c.Text)
	}
}

// Every file of every fixture is a resource with the right name, type and
// content form.
func TestEveryResource(t *testing.T) {
	r, root := hydrated(t)
	snap := r.Snapshot()
	type want struct{ name, mime, form string }
	expected := map[string]want{IndexURI: {"skill-index", "application/json", "text"}}
	for _, id := range goodFixtures {
		in, _ := snap.Get(id)
		expected["skill://"+id+"/SKILL.md"] = want{id, "text/markdown", "text"}
		for _, f := range in.Files[1:] {
			expected["skill://"+id+"/"+f.Path] = want{id + "/" + f.Path, "", ""}
		}
	}
	// The file types of the fixtures, checked one by one.
	forms := map[string][2]string{
		"skill://release-notes/references/style-guide.md": {"text/markdown", "text"},
		"skill://release-notes/scripts/collect.sh":        {"text/x-shellscript", "text"},
		"skill://release-notes/assets/template.md":        {"text/markdown", "text"},
		"skill://pdf-forms/scripts/fill_form.py":          {"text/x-python", "text"},
		"skill://pdf-forms/references/fields.json":        {"application/json", "text"},
		"skill://pdf-forms/assets/sample.pdf":             {"application/pdf", "blob"},
		"skill://pdf-forms/assets/logo.png":               {"image/png", "blob"},
		"skill://sql-review/references/checklist.md":      {"text/markdown", "text"},
		"skill://api-docs/references/openapi.yaml":        {"application/yaml", "text"},
		"skill://api-docs/assets/flow.svg":                {"image/svg+xml", "text"},
		"skill://csv-insights/scripts/profile.py":         {"text/x-python", "text"},
		"skill://csv-insights/assets/example.csv":         {"text/csv", "text"},
		"skill://test-triage/scripts/env.sh":              {"text/x-shellscript", "text"},
		"skill://security-audit/references/patterns.md":   {"text/markdown", "text"},
		"skill://web-accessibility/scripts/check.js":      {"text/javascript", "text"},
		"skill://web-accessibility/assets/checklist.csv":  {"text/csv", "text"},
		"skill://web-accessibility/references/wcag.html":  {"text/html", "text"},
		"skill://release-notes/SKILL.md":                  {"text/markdown", "text"},
		"skill://i18n-strings/SKILL.md":                   {"text/markdown", "text"},
		"skill://changelog-lint/SKILL.md":                 {"text/markdown", "text"},
		"skill://commit-message/SKILL.md":                 {"text/markdown", "text"},
		"skill://go-bench/SKILL.md":                       {"text/markdown", "text"},
		"skill://sql-review/SKILL.md":                     {"text/markdown", "text"},
		"skill://csv-insights/SKILL.md":                   {"text/markdown", "text"},
		"skill://web-accessibility/SKILL.md":              {"text/markdown", "text"},
		"skill://security-audit/SKILL.md":                 {"text/markdown", "text"},
		"skill://pdf-forms/SKILL.md":                      {"text/markdown", "text"},
		"skill://api-docs/SKILL.md":                       {"text/markdown", "text"},
		"skill://test-triage/SKILL.md":                    {"text/markdown", "text"},
	}
	resources := snap.Resources()
	if len(resources) != len(expected) {
		t.Errorf("%d resources, want %d", len(resources), len(expected))
	}
	if resources[0].URI != IndexURI || resources[1].URI != "skill://api-docs/SKILL.md" {
		t.Errorf("order: %s, %s", resources[0].URI, resources[1].URI)
	}
	for _, res := range resources {
		w, ok := expected[res.URI]
		if !ok {
			t.Errorf("unexpected resource %s", res.URI)
			continue
		}
		if res.Name != w.name {
			t.Errorf("%s: name %q, want %q", res.URI, res.Name, w.name)
		}
		if f, ok := forms[res.URI]; ok {
			w.mime, w.form = f[0], f[1]
		}
		c, err := snap.ReadResource(res.URI)
		if err != nil {
			t.Errorf("%s: %v", res.URI, err)
			continue
		}
		form := "text"
		if c.IsBlob {
			form = "blob"
		}
		if w.mime != "" && (c.MIMEType != w.mime || res.MIMEType != w.mime || form != w.form) {
			t.Errorf("%s: %s %s, want %s %s", res.URI, c.MIMEType, form, w.mime, w.form)
		}
		if res.SkillID == "" {
			continue
		}
		rel := strings.TrimPrefix(res.URI, "skill://"+res.SkillID+"/")
		disk, _ := os.ReadFile(filepath.Join(root, res.SkillID, rel))
		if string(disk) != c.Text+string(c.Blob) {
			t.Errorf("%s: content differs from the file", res.URI)
		}
		if rel == "SKILL.md" {
			in, _ := snap.Get(res.SkillID)
			if res.Description != in.Description {
				t.Errorf("%s: description %q", res.URI, res.Description)
			}
		}
	}
}

func TestResourceSpecialFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "odd")
	writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD("odd", "d"))
	// Windows refuses '?' in a file name.
	oddName, oddURI := "a b%2F#?.txt", "a%20b%252F%23%3F.txt"
	if runtime.GOOS == "windows" {
		oddName, oddURI = "a b%2F#.txt", "a%20b%252F%23.txt"
	}
	writeFile(t, filepath.Join(dir, "notes", oddName), "odd name")
	writeFile(t, filepath.Join(dir, "big.md"), strings.Repeat("x", MaxFileSize+1))
	writeFile(t, filepath.Join(dir, "latin1.txt"), "caf\xe9")
	writeFile(t, filepath.Join(dir, "Data.JSON"), `{}`)
	writeFile(t, filepath.Join(dir, "noext"), "x")
	r := New(testConfig(t, root))
	r.Hydrate()
	snap := r.Snapshot()

	// A file name with a space, '%', '#' and '?' is escaped segment by
	// segment; its resource name keeps the raw path.
	odd := "skill://odd/notes/" + oddURI
	c, err := snap.ReadResource(odd)
	if err != nil || c.Text != "odd name" {
		t.Errorf("%s: %q %v", odd, c.Text, err)
	}
	var name string
	for _, res := range snap.Resources() {
		if res.URI == odd {
			name = res.Name
		}
	}
	if name != "odd/notes/"+oddName {
		t.Errorf("name %q", name)
	}
	// Over 1 MiB: listed, but reading fails.
	if _, err := snap.ReadResource("skill://odd/big.md"); !errors.Is(err, ErrFileTooLarge) || err.Error() != "file larger than 1 MiB" {
		t.Errorf("big: %v", err)
	}
	// A text type whose bytes are not UTF-8 is a blob.
	if c, _ := snap.ReadResource("skill://odd/latin1.txt"); !c.IsBlob || string(c.Blob) != "caf\xe9" || c.MIMEType != "text/plain" {
		t.Errorf("latin1: %+v", c)
	}
	if c, _ := snap.ReadResource("skill://odd/Data.JSON"); c.MIMEType != "application/json" || c.Text != "{}" {
		t.Errorf("upper-case extension: %+v", c)
	}
	if c, _ := snap.ReadResource("skill://odd/noext"); c.MIMEType != "application/octet-stream" || !c.IsBlob {
		t.Errorf("no extension: %+v", c)
	}
}

// Traversal in any form is an unknown resource: the URI is looked up among
// the registered ones and never turned into a path.
func TestResourceTraversal(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	copyFixture(t, "skills", "release-notes", root, "release-notes")
	writeFile(t, filepath.Join(parent, "secret.txt"), "password")
	writeFile(t, filepath.Join(root, "secret.txt"), "password")
	must(t, os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(root, "release-notes/references/leak.md")))
	r := New(testConfig(t, root))
	r.Hydrate()
	snap := r.Snapshot()
	for _, uri := range []string{
		"skill://release-notes/../secret.txt",
		"skill://release-notes/../../secret.txt",
		"skill://release-notes/references/../../secret.txt",
		"skill://release-notes/./SKILL.md",
		"skill://release-notes//SKILL.md",
		"skill://release-notes/%2e%2e/secret.txt",
		"skill://release-notes/..%2Fsecret.txt",
		"skill://release-notes/..%2fsecret.txt",
		"skill://release-notes/references%2Fstyle-guide.md",
		"skill://release-notes/..%5Csecret.txt",
		"skill://release-notes/" + parent + "/secret.txt",
		"skill:///etc/passwd",
		"skill://../secret.txt",
		"skill://release-notes/references/leak.md",
		"skill://release-notes/SKILL.md%00",
		"skill://release-notes/skill.md",
		"skill://release-notes",
		"skill://release-notes/",
		"skill://index.json/../release-notes/SKILL.md",
		"file://" + parent + "/secret.txt",
		"SKILL://release-notes/SKILL.md",
		"",
	} {
		if c, err := snap.ReadResource(uri); !errors.Is(err, ErrUnknownResource) {
			t.Errorf("%q: got %+v, %v; want an unknown resource", uri, c, err)
		}
	}
	// A file swapped for a symlink after hydration is still not followed
	// out of the folder.
	guide := filepath.Join(root, "release-notes/references/style-guide.md")
	must(t, os.Remove(guide))
	must(t, os.Symlink(filepath.Join(parent, "secret.txt"), guide))
	if c, err := snap.ReadResource("skill://release-notes/references/style-guide.md"); err == nil {
		t.Errorf("swapped symlink was followed: %q", c.Text)
	}
}

// FuzzResourceURI: a URI reads only when it is exactly a registered one,
// and nothing outside the skill folders is ever served.
func FuzzResourceURI(f *testing.F) {
	parent := f.TempDir()
	root := filepath.Join(parent, "root")
	copyFixture(f, "skills", "release-notes", root, "release-notes")
	writeFile(f, filepath.Join(parent, "secret.txt"), "TOP-SECRET")
	r := New(Config{Workspace: f.TempDir(), Home: f.TempDir(), Roots: []string{root}})
	r.Hydrate()
	snap := r.Snapshot()
	registered := map[string]bool{}
	for _, res := range snap.Resources() {
		registered[res.URI] = true
		f.Add(res.URI)
	}
	for _, seed := range []string{"skill://release-notes/../secret.txt", "skill://release-notes/..%2F..%2Fsecret.txt",
		"skill://release-notes/" + parent + "/secret.txt", "skill://../../secret.txt"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		c, err := snap.ReadResource(uri)
		if registered[uri] != (err == nil) {
			t.Fatalf("%q: registered %v, error %v", uri, registered[uri], err)
		}
		if strings.Contains(c.Text+string(c.Blob), "TOP-SECRET") {
			t.Fatalf("%q served a file from outside the skill folder", uri)
		}
	})
}
