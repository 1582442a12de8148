package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

func TestInstallTargets(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	r := New(Config{Workspace: ws, Home: home})
	r.Hydrate()
	in, warnings, err := r.Install(readFixture(t, "skills", "release-notes"), map[string]string{
		"references/style-guide.md": "# Style\n",
		"scripts/collect.sh":        "#!/bin/sh\ngit log\n",
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws, ".vox/skills/release-notes")
	if in.Path != dir || in.Root != filepath.Join(ws, ".vox/skills") || len(warnings) != 0 {
		t.Errorf("installed at %s (root %s), warnings %q", in.Path, in.Root, warnings)
	}
	if got := in.FilePaths(); !reflect.DeepEqual(got, []string{"SKILL.md", "references/style-guide.md", "scripts/collect.sh"}) {
		t.Errorf("files %q", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "SKILL.md")); !reflect.DeepEqual(data, readFixture(t, "skills", "release-notes")) {
		t.Error("SKILL.md differs from skill_md")
	}
	// Installed now, searchable now, and still there after a restart.
	if res := r.Snapshot().Search("release notes", 1); len(res) != 1 || res[0].ID != "release-notes" {
		t.Errorf("search %v", res)
	}
	restarted := New(Config{Workspace: ws, Home: home})
	restarted.Hydrate()
	if _, ok := restarted.Snapshot().Get("release-notes"); !ok {
		t.Error("the install did not survive a restart")
	}

	in, _, err = r.Install([]byte(skillMD("global-one", "d")), nil, true)
	if err != nil || in.Path != filepath.Join(home, ".vox/skills/global-one") {
		t.Errorf("global install: %v, %+v", err, in)
	}
	// With VOX_SKILL_ROOTS: the first entry, and global is an error.
	custom := t.TempDir()
	r = New(testConfig(t, custom, t.TempDir()))
	if in, _, err := r.Install([]byte(skillMD("custom-one", "d")), nil, false); err != nil || in.Path != filepath.Join(custom, "custom-one") {
		t.Errorf("custom install: %v, %+v", err, in)
	}
	if _, _, err := r.Install([]byte(skillMD("custom-two", "d")), nil, true); err == nil || !strings.Contains(err.Error(), "global is not available while VOX_SKILL_ROOTS is set") {
		t.Errorf("custom global: %v", err)
	}
	// Hidden staging folders are never left behind.
	entries, _ := os.ReadDir(custom)
	if len(entries) != 1 {
		t.Errorf("target holds %v", entries)
	}
}

func TestInstallRefusals(t *testing.T) {
	root := fixtureRoot(t)
	target := t.TempDir()
	r := New(testConfig(t, target, root))
	r.Hydrate()
	writeFile(t, filepath.Join(target, "occupied/notes.txt"), "someone else's folder")
	tests := []struct {
		name  string
		md    string
		files map[string]string
		want  string
	}{
		{"same name", skillMD("pdf-forms", "d", "metadata:", "  vox-id: other-id"), nil,
			`a skill named "pdf-forms" is already installed (id pdf-forms, from ` + filepath.Join(root, "pdf-forms") + `): uninstall or remove it first, or rename the new skill`},
		{"same id", skillMD("fresh-name", "d", "metadata:", "  vox-id: go-bench"), nil, `a skill named "go-bench" is already installed`},
		{"folder exists", skillMD("occupied", "d"), nil, filepath.Join(target, "occupied") + " already exists: remove it or rename the new skill"},
		{"bad front matter", "---\nname: x\n", nil, "skill_md: line 1: the front matter opened on line 1 is never closed by a line ---: fix the front matter and try again (vox_skill_parse checks it without installing)"},
		{"name is a path", skillMD("../../evil", "d", "metadata:", "  vox-id: evil"), nil, `the skill name "../../evil" cannot be a folder name: it contains a path separator; rename the skill`},
		{"name is hidden", skillMD(".hidden", "d", "metadata:", "  vox-id: hidden"), nil, `the skill name ".hidden" cannot be a folder name: it starts with '.' or '-'`},
		{"dot-dot file", skillMD("a", "d"), map[string]string{"../escape.txt": "x"}, `files: "../escape.txt" segment ".." is a relative path step`},
		{"nested dot-dot", skillMD("a", "d"), map[string]string{"references/../../escape.txt": "x"}, `files: "references/../../escape.txt" is not a clean relative path`},
		{"absolute", skillMD("a", "d"), map[string]string{"/tmp/escape.txt": "x"}, `files: "/tmp/escape.txt" is absolute`},
		{"backslash", skillMD("a", "d"), map[string]string{`..\escape.txt`: "x"}, `files: "..\\escape.txt" contains '\': separate folders with '/'`},
		{"double slash", skillMD("a", "d"), map[string]string{"a//b.txt": "x"}, `files: "a//b.txt" is not a clean relative path`},
		{"SKILL.md", skillMD("a", "d"), map[string]string{"SKILL.md": "x"}, `files: "SKILL.md" is SKILL.md, which comes from skill_md`},
		{".git", skillMD("a", "d"), map[string]string{".git/hooks/post-checkout": "x"}, `files: ".git/hooks/post-checkout" is inside .git`},
		{"control", skillMD("a", "d"), map[string]string{"a\x00b": "x"}, `files: "a\x00b" segment "a\x00b" contains a control character`},
		{"empty", skillMD("a", "d"), map[string]string{"": "x"}, `files: "" is empty`},
		{"too big", skillMD("a", "d"), map[string]string{"big.txt": strings.Repeat("x", MaxFileSize+1)}, `files: "big.txt" is larger than 1 MiB`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := r.Install([]byte(tt.md), tt.files, false)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
	entries, _ := os.ReadDir(target)
	if len(entries) != 1 || entries[0].Name() != "occupied" {
		t.Errorf("a refused install wrote %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(target), "escape.txt")); err == nil {
		t.Error("a file escaped the target")
	}
	if r.Snapshot().Version() != 1 {
		t.Errorf("a refused install changed the registry (version %d)", r.Snapshot().Version())
	}
}

func TestUninstall(t *testing.T) {
	r, root := hydrated(t)
	in, err := r.Uninstall("pdf-forms")
	if err != nil || in.ID != "pdf-forms" {
		t.Fatal(err)
	}
	snap := r.Snapshot()
	if _, ok := snap.Get("pdf-forms"); ok {
		t.Error("still installed")
	}
	if _, err := snap.ReadResource("skill://pdf-forms/SKILL.md"); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("resource still served: %v", err)
	}
	if res := snap.Search("pdf", 0); len(res) != 0 {
		t.Errorf("still searchable: %v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "pdf-forms/SKILL.md")); err != nil {
		t.Error("uninstall deleted the folder")
	}
	entries, _, _ := r.Discover()
	for _, e := range entries {
		if e.ID == "pdf-forms" && e.Installed {
			t.Error("discover says it is installed")
		}
	}
	if _, err := r.Uninstall("pdf-forms"); !errors.Is(err, ErrUnknownSkill) {
		t.Errorf("second uninstall: %v", err)
	}
	// It comes back at restart.
	r.Hydrate()
	if _, ok := r.Snapshot().Get("pdf-forms"); !ok {
		t.Error("not back after hydration")
	}
}

func TestRemove(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	claude := filepath.Join(ws, ".claude/skills")
	copyFixture(t, "skills", "go-bench", claude, "go-bench")
	r := New(Config{Workspace: ws, Home: home})
	r.Hydrate()
	if _, _, err := r.Install([]byte(skillMD("local-one", "d")), map[string]string{"a/b.txt": "x"}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Install([]byte(skillMD("global-one", "d")), nil, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"local-one", "global-one"} {
		in, err := r.Remove(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if _, err := os.Stat(in.Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: folder still there", id)
		}
		if _, ok := r.Snapshot().Get(id); ok {
			t.Errorf("%s: still installed", id)
		}
	}
	// A skill discovered outside the install targets is not deleted.
	_, err := r.Remove("go-bench")
	want := "skill go-bench lives in " + filepath.Join(claude, "go-bench") + ", which is not directly under an install target (" +
		filepath.Join(ws, ".vox/skills") + ", " + filepath.Join(home, ".vox/skills") + "): delete it by hand, or use vox_skill_uninstall to drop it from this session"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(claude, "go-bench/SKILL.md")); err != nil {
		t.Error("go-bench was deleted")
	}
	// The argument is only looked up, never used as a path.
	for _, arg := range []string{"../go-bench", filepath.Join(claude, "go-bench"), ".claude/skills/go-bench", ""} {
		if _, err := r.Remove(arg); !errors.Is(err, ErrUnknownSkill) {
			t.Errorf("Remove(%q): %v", arg, err)
		}
	}
}

func TestRemoveSymlinkedSkill(t *testing.T) {
	wineshim.SkipSymlinks(t)
	target := t.TempDir()
	copyFixture(t, "skills", "go-bench", filepath.Join(target, ".store"), "go-bench")
	must(t, os.Symlink(filepath.Join(target, ".store/go-bench"), filepath.Join(target, "go-bench")))
	other := t.TempDir()
	copyFixture(t, "skills", "api-docs", other, "api-docs")
	r := New(testConfig(t, target, other))
	r.Hydrate()
	if _, err := r.Remove("go-bench"); err == nil || !strings.Contains(err.Error(), "which is a symlink: delete it by hand") {
		t.Errorf("symlink: %v", err)
	}
	// Only the first VOX_SKILL_ROOTS entry is an install target.
	if _, err := r.Remove("api-docs"); err == nil || !strings.Contains(err.Error(), "is not directly under an install target ("+target+")") {
		t.Errorf("second root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, ".store/go-bench/SKILL.md")); err != nil {
		t.Error("the link's target was deleted")
	}
}

func TestDiscover(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	copyFixture(t, "skills", "go-bench", filepath.Join(ws, ".vox/skills"), "go-bench")
	copyFixture(t, "skills", "go-bench", filepath.Join(home, ".agents/skills"), "go-bench")
	copyFixture(t, "skills", "api-docs", filepath.Join(home, ".agents/skills"), "api-docs")
	r := New(Config{Workspace: ws, Home: home})
	r.Hydrate()
	if _, err := r.Uninstall("api-docs"); err != nil {
		t.Fatal(err)
	}
	entries, _, warnings := r.Discover()
	winner := filepath.Join(ws, ".vox/skills/go-bench")
	want := []DiscoverEntry{
		{ID: "go-bench", Name: "go-bench", Path: winner, Root: filepath.Join(ws, ".vox/skills"), Installed: true},
		{ID: "api-docs", Name: "api-docs", Path: filepath.Join(home, ".agents/skills/api-docs"), Root: filepath.Join(home, ".agents/skills")},
		{ID: "go-bench", Name: "go-bench", Path: filepath.Join(home, ".agents/skills/go-bench"), Root: filepath.Join(home, ".agents/skills"), ShadowedBy: &winner},
	}
	if !reflect.DeepEqual(entries, want) || len(warnings) != 1 {
		t.Errorf("entries %+v\nwarnings %q", entries, warnings)
	}
}

func TestAddLocal(t *testing.T) {
	src := t.TempDir()
	copyFixture(t, "skills", "release-notes", src, "single")
	copyFixture(t, "skills", "commit-message", filepath.Join(src, "multi"), "commit-message")
	copyFixture(t, "skills", "go-bench", filepath.Join(src, "multi/skills"), "go-bench")
	writeFile(t, filepath.Join(src, "multi/README.md"), "a repository of skills")
	writeFile(t, filepath.Join(src, "single/.git/HEAD"), "ref: refs/heads/main")

	ws := t.TempDir()
	r := New(Config{Workspace: ws, Home: t.TempDir()})
	ctx := context.Background()

	// A skill folder (here relative to the workspace), copied without .git.
	rel, _ := filepath.Rel(ws, filepath.Join(src, "single"))
	ins, _, err := r.Add(ctx, rel, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 || ins[0].Path != filepath.Join(ws, ".vox/skills/release-notes") {
		t.Fatalf("added %+v", ins)
	}
	if !reflect.DeepEqual(ins[0].FilePaths(), []string{"SKILL.md", "assets/template.md", "references/style-guide.md", "scripts/collect.sh"}) {
		t.Errorf("files %q", ins[0].FilePaths())
	}
	// Windows has no executable bit to keep.
	if st, _ := os.Stat(filepath.Join(ins[0].Path, "scripts/collect.sh")); runtime.GOOS != "windows" && st.Mode().Perm()&0o100 == 0 {
		t.Error("the script lost its executable bit")
	}
	// A folder of skills: every one, or the one named by skill.
	ins, _, err = r.Add(ctx, filepath.Join(src, "multi"), false, "go-bench")
	if err != nil || len(ins) != 1 || ins[0].ID != "go-bench" {
		t.Fatalf("skill go-bench: %v %+v", err, ins)
	}
	if _, _, err := r.Add(ctx, filepath.Join(src, "multi"), false, ""); err == nil || !strings.Contains(err.Error(), `a skill named "go-bench" is already installed`) {
		t.Errorf("re-adding: %v", err)
	}
	if _, err := r.Remove("go-bench"); err != nil {
		t.Fatal(err)
	}
	ins, _, err = r.Add(ctx, filepath.Join(src, "multi"), true, "")
	if err != nil || len(ins) != 2 || ins[0].ID != "commit-message" || ins[1].ID != "go-bench" {
		t.Fatalf("all of multi: %v %+v", err, ins)
	}
	if r.Snapshot().Len() != 3 {
		t.Errorf("%d installed", r.Snapshot().Len())
	}
}

func TestAddRefusals(t *testing.T) {
	src := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "password")
	linked := copyFixture(t, "skills", "release-notes", src, "linked")
	copyFixture(t, "skills", "go-bench", filepath.Join(src, "multi"), "go-bench")
	copyFixture(t, "broken", "no-description", filepath.Join(src, "multi"), "no-description")
	writeFile(t, filepath.Join(src, "empty/README.md"), "nothing")

	r := New(testConfig(t, t.TempDir()))
	ctx := context.Background()
	t.Run("symlink", func(t *testing.T) {
		wineshim.SkipSymlinks(t)
		must(t, os.Symlink(outside, filepath.Join(linked, "references/secret.txt")))
		want := linked + ": references/secret.txt is a symlink: symlinks are refused, replace it with the file it points to"
		if _, _, err := r.Add(ctx, linked, false, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%q): got %v, want %q", linked, err, want)
		}
	})
	for _, tt := range []struct{ source, skill, want string }{
		{filepath.Join(src, "multi"), "", "no-description/SKILL.md: front matter has no description"},
		{filepath.Join(src, "multi"), "nope", "source " + filepath.Join(src, "multi") + `: no skill "nope": it holds go-bench, no-description`},
		{filepath.Join(src, "multi"), "../multi", `skill "../multi" contains a path separator: give the name of one skill folder`},
		{filepath.Join(src, "multi"), "..", `skill ".." is a relative path step`},
		{filepath.Join(src, "empty"), "", "no SKILL.md in the folder, its subfolders or skills/*: is it a skill?"},
		{filepath.Join(src, "missing"), "", "is not a folder: give a local skill folder or a git URL"},
		{"", "", "source is empty"},
		// Not git URLs: local folders that do not exist, never handed to git.
		{"file://" + filepath.Join(src, "linked"), "", "is not a folder"},
		{"ext::sh -c touch% /tmp/pwned", "", "is not a folder"},
	} {
		_, _, err := r.Add(ctx, tt.source, false, tt.skill)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Add(%q, %q): got %v, want %q", tt.source, tt.skill, err, tt.want)
		}
	}
	if r.Snapshot().Len() != 0 {
		t.Error("a refused add installed something")
	}
	// With skill, the good one of multi is added.
	if ins, _, err := r.Add(ctx, filepath.Join(src, "multi"), false, "go-bench"); err != nil || len(ins) != 1 {
		t.Errorf("go-bench alone: %v", err)
	}
}

func TestIsGitURL(t *testing.T) {
	for source, want := range map[string]bool{
		"https://example.com/skills.git":   true,
		"ssh://git@example.com/skills.git": true,
		"git://127.0.0.1:9418/skills":      true,
		"git@github.com:org/skills.git":    true,
		"me@host:/abs/path":                true,
		"http://example.com/skills.git":    false,
		"file:///tmp/skills":               false,
		"ext::sh -c touch% /tmp/pwned":     false,
		"./skills":                         false,
		"/abs/skills":                      false,
		"skills@2":                         false,
		"-u@host:x":                        false,
		"user@-oProxyCommand=x:y":          false,
		"user@host:":                       false,
		"C:\\skills":                       false,
	} {
		if IsGitURL(source) != want {
			t.Errorf("IsGitURL(%q) = %v", source, !want)
		}
	}
}

// TestRefusedInstallMakesNoFolder: an install refused for its name leaves
// the workspace as it was — no .vox/skills made for nothing.
func TestRefusedInstallMakesNoFolder(t *testing.T) {
	ws := t.TempDir()
	r := New(Config{Workspace: ws, Home: t.TempDir()})
	r.Hydrate()
	if _, _, err := r.Install([]byte(skillMD("twin", "d")), nil, false); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(ws, ".vox")); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.Install([]byte(skillMD("twin", "d")), nil, false)
	if err == nil || !strings.Contains(err.Error(), "is already installed") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".vox")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused install made .vox: %v", err)
	}
}
