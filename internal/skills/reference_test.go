package skills

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/reference/*.txtar")

// TestReferenceDiscovery runs each testdata/reference/*.txtar: the
// archive's files (but "want") make a workspace, discovered with its
// standard roots and reference places (an empty home; the files under
// plugins/ make the plugins folder, a folder outside the workspace shown
// as $PLUGINS); "want" is what discovery reports, one line per skill
// found or skipped, then the warnings, every path relative to the
// workspace. go test -run TestReferenceDiscovery
// -update rewrites it.
func TestReferenceDiscovery(t *testing.T) {
	files, err := filepath.Glob("testdata/reference/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ws, plugins := t.TempDir(), t.TempDir()
			var want string
			hasPlugins := false
			for _, f := range ar.Files {
				if f.Name == "want" {
					want = string(f.Data)
					continue
				}
				if rest, ok := strings.CutPrefix(f.Name, "plugins/"); ok {
					hasPlugins = true
					writeFile(t, filepath.Join(plugins, filepath.FromSlash(rest)), string(f.Data))
					continue
				}
				if name, ok := strings.CutPrefix(f.Name, "symlink "); ok {
					// "-- symlink a -> b --": a link at a to b.
					from, to, _ := strings.Cut(name, " -> ")
					if runtime.GOOS == "windows" {
						t.Skip("symbolic links need privileges on Windows")
					}
					if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, from)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(to, filepath.Join(ws, from)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				writeFile(t, filepath.Join(ws, filepath.FromSlash(f.Name)), string(f.Data))
			}
			cfg := Config{Workspace: ws, Home: t.TempDir()}
			if hasPlugins {
				cfg.PluginsDir = plugins
			}
			got := describeScan(ws, plugins, cfg)
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("discovery of %s:\n%s\nwant:\n%s", file, got, want)
			}
		})
	}
}

// describeScan is what the registry of cfg serves and skips, with paths
// relative to ws, as the want sections write it.
func describeScan(ws, plugins string, cfg Config) string {
	var b strings.Builder
	rel := func(s string) string {
		s = strings.ReplaceAll(s, plugins, "$PLUGINS")
		s = strings.ReplaceAll(s, ws+string(filepath.Separator), "")
		return filepath.ToSlash(strings.ReplaceAll(s, ws, "."))
	}
	found, skipped, warnings := ScanReport(cfg.SearchRoots(), cfg.ReferencePlaces()...)
	for _, f := range found {
		fmt.Fprintf(&b, "found %s origin=%s id=%s name=%q", rel(f.Path), f.Origin, f.ID, f.Name)
		if f.DeclaredID != "" {
			fmt.Fprintf(&b, " declared=%q", f.DeclaredID)
		}
		fmt.Fprintf(&b, " version=%s", f.Version)
		for _, l := range []struct {
			key   string
			items []string
		}{{"tools", f.Tools}, {"tags", f.Tags}, {"permissions", f.Permissions}} {
			if len(l.items) > 0 {
				fmt.Fprintf(&b, " %s=%s", l.key, strings.Join(l.items, ","))
			}
		}
		if f.Category != "" {
			fmt.Fprintf(&b, " category=%s", f.Category)
		}
		if f.ShadowedBy != "" {
			fmt.Fprintf(&b, " shadowed-by=%s", rel(f.ShadowedBy))
		}
		fmt.Fprintf(&b, " files=%s body=%q\n", strings.Join(f.FilePaths(), ","), firstLine(f.Body))
	}
	for _, s := range skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", rel(s.Path), rel(s.Reason))
	}
	for _, w := range warnings {
		fmt.Fprintf(&b, "warning %s\n", rel(w))
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// A reference skill file in the workspace is served in place: by its id,
// its dotted id as written and its name; as skill://<id>/SKILL.md holding
// the file's bytes (read again from the file, so an edit shows in the
// manifest); searchable; never removed by vox_skill_remove, which deletes
// folders only.
func TestReferenceSkillServedInPlace(t *testing.T) {
	cfg := testConfig(t)
	const text = "---\nname = \"git\"\ndescription = \"Explains commits. Use when asked what changed.\"\n\n" +
		"[metadata]\n\"vox-id\" = \"vox.git\"\n\"vox-tools\" = [\"git_log\"]\n\"vox-tags\" = [\"history\"]\n---\n# Git\n\nRun git_log.\n"
	file := filepath.Join(cfg.Workspace, "crates", "vox-plugin-git", "vox.git.skill.md")
	writeFile(t, file, text)
	r := New(cfg)
	r.Hydrate()
	snap := r.Snapshot()
	for _, arg := range []string{"vox-git", "vox.git", "git"} {
		in, ok := snap.Get(arg)
		if !ok || in.Path != file || in.IsFolder() || in.Origin != OriginSkillFile {
			t.Fatalf("Get(%q) = %+v, %v", arg, in, ok)
		}
	}
	in, _ := snap.Get("vox-git")
	if in.DeclaredID != "vox.git" || !reflect.DeepEqual(in.Tools, []string{"git_log"}) || !reflect.DeepEqual(in.Tags, []string{"history"}) {
		t.Errorf("manifest %+v", in.Skill)
	}
	c, err := snap.ReadResource("skill://vox-git/SKILL.md")
	if err != nil || c.Text != text {
		t.Errorf("resource: %q, %v", c.Text, err)
	}
	if hits := snap.Search("history commits", 0); len(hits) != 1 || hits[0].ID != "vox-git" {
		t.Errorf("search: %+v", hits)
	}
	var uris []string
	for _, res := range snap.Resources() {
		uris = append(uris, res.URI)
	}
	if !reflect.DeepEqual(uris, []string{IndexURI, "skill://vox-git/SKILL.md"}) {
		t.Errorf("resources %q: only the skill file is the skill's, nothing else of its folder", uris)
	}
	m := in.Manifest()
	if len(m) != 1 || m[0].Path != "SKILL.md" || m[0].Digest != Digest([]byte(text)) {
		t.Errorf("manifest %+v", m)
	}
	if data, _, err := in.ReadVerified(m[0]); err != nil || string(data) != text {
		t.Errorf("verified read: %q, %v", data, err)
	}
	if _, err := r.Remove("vox-git"); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("remove: %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the skill file is gone: %v", err)
	}
}

// A dotted id as written reaches only the skill that declares it, while
// it is served: an id holds no dot, so it never names another skill; the
// files that map onto a folder skill's id are shadowed by it.
func TestDeclaredIDLookupOrder(t *testing.T) {
	cfg := testConfig(t)
	writeFile(t, filepath.Join(cfg.Workspace, ".vox", "skills", "vox-db", "SKILL.md"), skillMD("vox-db", "The folder skill. Use for db."))
	writeFile(t, filepath.Join(cfg.Workspace, "db.skill.md"), "---\nid = \"vox.db\"\nname = \"db\"\ndescription = \"Shadowed. Use never.\"\n---\n")
	writeFile(t, filepath.Join(cfg.Workspace, "other.skill.md"), "---\nname = \"vox.db\"\ndescription = \"Named like the dotted id. Use for tests.\"\n---\n")
	r := New(cfg)
	r.Hydrate()
	snap := r.Snapshot()
	if in, ok := snap.Get("vox-db"); !ok || in.Origin != OriginFolder {
		t.Errorf("vox-db: %+v %v", in, ok)
	}
	if in, ok := snap.Get("vox.db"); ok {
		t.Errorf("vox.db reaches %s, which does not declare it", in.Path)
	}
	if snap.Len() != 1 {
		t.Errorf("served %d skills: the two files map onto the folder skill's id and are shadowed", snap.Len())
	}
}

func TestPluginsDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	abs := t.TempDir()
	if got := pluginsDir("/h", env(map[string]string{PluginsDirEnv: abs + string(filepath.Separator)})); got != abs {
		t.Errorf("VOX_PLUGINS_DIR: %q", got)
	}
	if runtime.GOOS == "linux" {
		if got := pluginsDir("/h", env(nil)); got != "/h/.local/share/vox/plugins" {
			t.Errorf("default: %q", got)
		}
		if got := pluginsDir("/h", env(map[string]string{"XDG_DATA_HOME": "/d", PluginsDirEnv: "rel"})); got != "/d/vox/plugins" {
			t.Errorf("XDG_DATA_HOME, relative VOX_PLUGINS_DIR ignored: %q", got)
		}
		if got := pluginsDir("", env(nil)); got != "" {
			t.Errorf("no home: %q", got)
		}
	}
	c := Config{Workspace: "/ws", PluginsDir: "/p"}
	if got := c.ReferencePlaces(); !reflect.DeepEqual(got, []Place{{Dir: "/ws", SkillFiles: true, Plugins: true}, {Dir: "/p", Plugins: true}}) {
		t.Errorf("places %+v", got)
	}
	c.Roots = []string{"/r"}
	if got := c.ReferencePlaces(); got != nil {
		t.Errorf("VOX_SKILL_ROOTS replaces the places too: %+v", got)
	}
}

func TestSlugID(t *testing.T) {
	for in, want := range map[string]string{
		"Git Helper": "git-helper", "vox.git": "vox-git", "  A__b..c ": "a-b-c", "Ｆｕｌｌ": "full",
		"éclair": "clair", strings.Repeat("ab-", 30): strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-"),
	} {
		if got, ok := SlugID(in); got != want || !ok {
			t.Errorf("SlugID(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "---", "日本"} {
		if got, ok := SlugID(in); ok {
			t.Errorf("SlugID(%q) = %q: valid", in, got)
		}
	}
}

func TestReadPluginManifest(t *testing.T) {
	for src, want := range map[string]string{
		"[plugin]\nname = \"x\"\n[plugin.payload]\nkind = \"skill\"\n":     `[plugin.payload] has kind "skill" but no skill-md: add skill-md = "<file>.skill.md" naming the skill file beside Plugin.toml`,
		"[plugin]\nname = \"x\"\n[plugin.payload]\nkind = \"composite\"\n": `[plugin.payload] has kind "composite" but no [plugin.payload.skill]: add it with skill-md naming the skill file, or another kind`,
		"[plugin.payload]\nkind = \"skill\"\nskill-md = \"/etc/passwd\"\n": `skill-md "/etc/passwd" leaves the plugin folder: it must name a file inside it, relative to Plugin.toml, with / between folders`,
		"[plugin.payload]\nkind = \"skill\"\nskill-md = 'a\\..\\..\\x'\n":  `skill-md "a\\..\\..\\x" leaves the plugin folder: it must name a file inside it, relative to Plugin.toml, with / between folders`,
		"[plugin]\nid = 3\n": `line 2 (last key "plugin.id"): incompatible types: TOML value has type int64; destination has type string`,
	} {
		_, err := ReadPluginManifest([]byte(src))
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", src, err, want)
		}
	}
	if _, err := ReadPluginManifest([]byte("[plugin.payload]\nkind = \"tool\"\n")); !errors.Is(err, ErrNotSkillPlugin) {
		t.Errorf("tool plugin: %v", err)
	}
}

// A reference skill file in a skill root is not exported: the clients
// read Agent Skills folders. It is skipped with a note, which is no
// problem, and nothing is written for it.
func TestExportSkipsReferenceSkillFiles(t *testing.T) {
	cfg := exportWorkspace(t)
	file := filepath.Join(cfg.Workspace, ".vox", "skills", "vox.ref.skill.md")
	writeFile(t, file, "---\nname = \"ref\"\ndescription = \"A reference skill. Use for tests.\"\n[metadata]\n\"vox-id\" = \"vox.ref\"\n---\nBody.\n")
	claude, _ := LookupClient("claude")
	rep := mustExport(t, ExportOptions{Config: cfg, Client: claude, Scope: ScopeProject})
	it := itemOf(rep, "vox-ref")
	if it.Action != ExportSkipped || it.Folder != file || rep.Problem() ||
		it.Reason != file+" is a Vox reference skill file, not an Agent Skills folder: Claude Code reads folders (<id>/SKILL.md); make it one to export it" {
		t.Fatalf("vox-ref: %+v (problem %v)", it, rep.Problem())
	}
	if _, err := os.Stat(filepath.Join(cfg.Workspace, ".claude", "skills", "vox-ref")); err == nil {
		t.Error("the reference skill file was exported")
	}
}

// The watcher watches the folder holding a reference skill file, which
// may be the workspace itself, and nothing below it: the folder is not
// the skill's.
func TestWatchReferenceSkillFileFolderOnly(t *testing.T) {
	cfg := testConfig(t)
	writeFile(t, filepath.Join(cfg.Workspace, "top.skill.md"), "---\nname = \"top\"\ndescription = \"At the top. Use for tests.\"\n---\n")
	for _, d := range []string{"src/a", "src/b", "docs"} {
		if err := os.MkdirAll(filepath.Join(cfg.Workspace, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := New(cfg)
	r.Hydrate()
	if r.Snapshot().Len() != 1 {
		t.Fatalf("skills: %d", r.Snapshot().Len())
	}
	w := &skillWatcher{r: r, opts: WatchOptions{MaxDirs: 100, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	real, _ := filepath.EvalSymlinks(cfg.Workspace)
	var got []string
	for d := range w.folders() {
		got = append(got, d)
	}
	if !reflect.DeepEqual(got, []string{real}) {
		t.Errorf("watching %q, want only %q", got, real)
	}
}

// A walk loads a bounded number of skill files, with a warning: a cloned
// repository decides how many it holds, and each is kept in memory.
func TestPlaceWalkIsBounded(t *testing.T) {
	ws := t.TempDir()
	for i := range maxPlaceSkills + 5 {
		writeFile(t, filepath.Join(ws, "many", fmt.Sprintf("s%04d.skill.md", i)), "x")
	}
	cands, warnings := ReferenceCandidates(nil, []Place{{Dir: ws, SkillFiles: true}})
	if len(cands) != maxPlaceSkills || len(warnings) != 1 || !strings.Contains(warnings[0], "more than 500 skill files and plugins: the rest are not loaded") {
		t.Errorf("%d candidates, warnings %q", len(cands), warnings)
	}
}
