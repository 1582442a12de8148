package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

func TestYAMLErrorLines(t *testing.T) {
	// Each error is positioned on the SKILL.md line that holds the problem
	// (front matter line + 1), whatever yaml.v3 counts internally. A flow
	// opened on the first line is reported where the parser gave up: the
	// end of the front matter.
	for src, want := range map[string]string{
		"description: [open":                 "line 3: did not find expected ',' or ']'",
		"name: x\ndescription: [open":        "line 3: did not find expected ',' or ']'",
		"name: x\n  bad: indent\n":           "line 3: mapping values are not allowed in this context",
		"a: 1\nb: 2\nc 2\nd: 3\n":            "line 4: could not find expected ':'",
		"a:\n- b\nc: {x: 1\n":                "line 4: did not find expected ',' or '}'",
		"a: 1\n\tb: 2\n":                     "line 3: found a tab character that violates indentation",
		"- a\nb: 1\n":                        "line 3: did not find expected '-' indicator",
		"a: 1\n- b\n":                        "line 3: did not find expected key",
		"a: @x\n":                            "line 2: found character that cannot start any token",
		"a: *nope\n":                         "line 2: unknown anchor 'nope' referenced",
		"a: 1\nb:\n  c: 1\n   d: 2\n":        "line 5: mapping values are not allowed in this context",
		"name: x\ndescription: y\nname: z\n": `line 4, column 1: key "name" is already defined on line 2`,
	} {
		_, err := parseYAML(src)
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

// osAbs makes the slash path p absolute on this system: /ws here, C:\ws
// on Windows, where /ws has no volume and is not absolute.
func osAbs(p string) string {
	if runtime.GOOS == "windows" {
		return `C:` + filepath.FromSlash(p)
	}
	return p
}

func TestSearchRoots(t *testing.T) {
	abs := osAbs
	ws, home := abs("/ws"), abs("/home/u")
	c := configFrom(ws, home, "")
	var want []string
	for _, p := range []string{
		"/ws/.vox/skills", "/ws/.cursor/skills", "/ws/.agents/skills", "/ws/.claude/skills",
		"/home/u/.vox/skills", "/home/u/.cursor/skills", "/home/u/.agents/skills", "/home/u/.claude/skills",
		"/ws/assets/skills",
	} {
		want = append(want, abs(p))
	}
	if got := c.SearchRoots(); !reflect.DeepEqual(got, want) {
		t.Errorf("roots %q\nwant  %q", got, want)
	}
	if got, _ := c.InstallTarget(false); got != abs("/ws/.vox/skills") {
		t.Errorf("target %q", got)
	}
	if got, _ := c.InstallTarget(true); got != abs("/home/u/.vox/skills") {
		t.Errorf("global target %q", got)
	}
	if _, err := configFrom(ws, "", "").InstallTarget(true); err == nil || !strings.Contains(err.Error(), "set HOME or drop global") {
		t.Errorf("global without home: %v", err)
	}

	// VOX_SKILL_ROOTS replaces all nine; relative entries are relative to
	// the workspace and empty entries do not count.
	c = configFrom(ws, home, abs("/a")+string(os.PathListSeparator)+string(os.PathListSeparator)+"rel/b")
	if got := c.SearchRoots(); !reflect.DeepEqual(got, []string{abs("/a"), abs("/ws/rel/b")}) {
		t.Errorf("custom roots %q", got)
	}
	if got, _ := c.InstallTarget(false); got != abs("/a") {
		t.Errorf("custom target %q", got)
	}
	if _, err := c.InstallTarget(true); err == nil || err.Error() != "global is not available while VOX_SKILL_ROOTS is set: installs go to "+abs("/a")+"; drop global" {
		t.Errorf("custom global: %v", err)
	}
	if got := c.installTargets(); !reflect.DeepEqual(got, []string{abs("/a")}) {
		t.Errorf("custom remove targets %q", got)
	}

	// The home is the system's (os.UserHomeDir): $HOME here, %USERPROFILE%
	// on Windows.
	homeVar := "HOME"
	if runtime.GOOS == "windows" {
		homeVar = "USERPROFILE"
	}
	t.Setenv(homeVar, abs("/home/env"))
	t.Setenv(RootsEnv, abs("/x"))
	if c := ConfigFromEnv(ws); c.Home != abs("/home/env") || !reflect.DeepEqual(c.Roots, []string{abs("/x")}) {
		t.Errorf("from env: %+v", c)
	}
}

// Discovery goes root by root in precedence order, folders in lexical
// order within a root; the first skill of an id wins and the others are
// reported shadowed by the winner's folder.
func TestScanOrderAndShadowing(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	c := Config{Workspace: ws, Home: home}
	roots := c.SearchRoots()
	// The same id in three roots, lowest precedence written first.
	copyFixture(t, "skills", "commit-message", filepath.Join(ws, "assets/skills"), "commit-message")
	copyFixture(t, "skills", "commit-message", filepath.Join(home, ".claude/skills"), "commit-message")
	copyFixture(t, "skills", "commit-message", filepath.Join(ws, ".cursor/skills"), "commit-message")
	copyFixture(t, "skills", "release-notes", filepath.Join(home, ".vox/skills"), "release-notes")
	copyFixture(t, "skills", "go-bench", filepath.Join(ws, ".vox/skills"), "go-bench")
	copyFixture(t, "skills", "api-docs", filepath.Join(ws, ".vox/skills"), "api-docs")
	// A folder named differently from its skill still loads (a warning);
	// it shadows nothing because its id is its name.
	copyFixture(t, "broken", "folder-mismatch", filepath.Join(ws, ".agents/skills"), "folder-mismatch")
	// Not skills: a hidden folder, a file, a folder without SKILL.md.
	copyFixture(t, "skills", "go-bench", filepath.Join(ws, ".vox/skills"), ".hidden")
	writeFile(t, filepath.Join(ws, ".vox/skills/README.md"), "not a skill")
	writeFile(t, filepath.Join(ws, ".vox/skills/empty/notes.txt"), "no SKILL.md here")

	found, warnings := Scan(roots)
	type row struct{ id, path, shadowedBy string }
	var got []row
	for _, f := range found {
		got = append(got, row{f.ID, f.Path, f.ShadowedBy})
	}
	winner := filepath.Join(ws, ".cursor/skills/commit-message")
	want := []row{
		{"api-docs", filepath.Join(ws, ".vox/skills/api-docs"), ""},
		{"go-bench", filepath.Join(ws, ".vox/skills/go-bench"), ""},
		{"commit-message", winner, ""},
		{"deploy-preview", filepath.Join(ws, ".agents/skills/folder-mismatch"), ""},
		{"release-notes", filepath.Join(home, ".vox/skills/release-notes"), ""},
		{"commit-message", filepath.Join(home, ".claude/skills/commit-message"), winner},
		{"commit-message", filepath.Join(ws, "assets/skills/commit-message"), winner},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discovery\n got  %v\n want %v", got, want)
	}
	wantWarnings := []string{
		filepath.Join(ws, ".agents/skills/folder-mismatch/SKILL.md") + `: the folder name "folder-mismatch" differs from the skill name "deploy-preview"`,
		filepath.Join(home, ".claude/skills/commit-message") + `: skill "commit-message" is shadowed by ` + winner,
		filepath.Join(ws, "assets/skills/commit-message") + `: skill "commit-message" is shadowed by ` + winner,
	}
	if !reflect.DeepEqual(warnings, wantWarnings) {
		t.Errorf("warnings\n got  %q\n want %q", warnings, wantWarnings)
	}
	if f := found[0]; f.Root != filepath.Join(ws, ".vox/skills") {
		t.Errorf("root %q", f.Root)
	}

	// Deterministic: a second scan is identical.
	again, againWarnings := Scan(roots)
	if !reflect.DeepEqual(found, again) || !reflect.DeepEqual(warnings, againWarnings) {
		t.Error("a second scan differs")
	}
}

// Lenient loading: broken skills are skipped (or loaded) with a warning
// that names the file and says why; the good ones load.
func TestScanBrokenSkills(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"Bad_Name", "folder-mismatch", "long-description", "no-description", "top-level-fields", "unparseable"} {
		copyFixture(t, "broken", name, root, name)
	}
	copyFixture(t, "skills", "go-bench", root, "go-bench")
	found, warnings := Scan([]string{root})
	var ids []string
	for _, f := range found {
		ids = append(ids, f.ID)
	}
	if want := []string{"deploy-preview", "go-bench", "long-description", "top-level-fields"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("loaded %q, want %q", ids, want)
	}
	p := func(name string) string { return filepath.Join(root, name, "SKILL.md") }
	want := []string{
		p("Bad_Name") + `:2: id "Bad_Name" is not valid: an id is 1–64 lowercase letters, digits and single hyphens, starting and ending with a letter or digit (rename the skill or set metadata.vox-id): skipped`,
		p("folder-mismatch") + `: the folder name "folder-mismatch" differs from the skill name "deploy-preview"`,
		p("long-description") + ": line 3: description is 1143 characters long: at most 1024 are allowed",
		p("no-description") + ": front matter has no description: add a description saying what the skill does and when to use it: skipped",
		p("unparseable") + ": front matter is neither a YAML nor a TOML mapping (YAML: line 3: did not find expected ',' or ']'; TOML: line 2, column 5: expected '.' or '=', but got ':' instead): skipped",
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings\n got  %q\n want %q", warnings, want)
	}
}

func TestScanSymlinks(t *testing.T) {
	wineshim.SkipSymlinks(t)
	outside := t.TempDir()
	copyFixture(t, "skills", "go-bench", outside, "go-bench")
	root := t.TempDir()
	copyFixture(t, "skills", "api-docs", filepath.Join(root, "store"), "api-docs")
	// Inside the root: followed. Leaving it: skipped with a warning.
	must(t, os.Symlink(filepath.Join(root, "store/api-docs"), filepath.Join(root, "linked-docs")))
	must(t, os.Symlink(filepath.Join(outside, "go-bench"), filepath.Join(root, "escape")))
	must(t, os.Symlink("../", filepath.Join(root, "parent")))
	must(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")))

	found, warnings := Scan([]string{root})
	if len(found) != 1 || found[0].Path != filepath.Join(root, "linked-docs") || found[0].ID != "api-docs" {
		t.Fatalf("found %+v", found)
	}
	want := []string{
		filepath.Join(root, "escape") + ": symlinked skill folder leaves its root " + root + ": skipped",
		filepath.Join(root, "linked-docs/SKILL.md") + `: the folder name "linked-docs" differs from the skill name "api-docs"`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings\n got  %q\n want %q", warnings, want)
	}
}

func TestFilesEnumeration(t *testing.T) {
	wineshim.SkipSymlinks(t)
	root := t.TempDir()
	dir := copyFixture(t, "skills", "release-notes", root, "release-notes")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "password")
	writeFile(t, filepath.Join(dir, ".git/config"), "[core]")
	writeFile(t, filepath.Join(dir, "a-b.txt"), "sorts before a/")
	writeFile(t, filepath.Join(dir, "a/z.txt"), "z")
	writeFile(t, filepath.Join(dir, "big.bin"), strings.Repeat("x", MaxFileSize+1))
	must(t, os.Symlink(secret, filepath.Join(dir, "references/leak.txt")))
	must(t, os.Symlink("../assets/template.md", filepath.Join(dir, "references/template-link.md")))
	must(t, os.Symlink("../assets", filepath.Join(dir, "references/assets-dir")))
	must(t, os.Symlink("/etc", filepath.Join(dir, "etc")))

	in, warnings, err := Load(dir, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SKILL.md", "a-b.txt", "a/z.txt", "assets/template.md", "big.bin", "references/style-guide.md",
		"references/template-link.md", "scripts/collect.sh"}
	if got := in.FilePaths(); !reflect.DeepEqual(got, want) {
		t.Errorf("files\n got  %q\n want %q", got, want)
	}
	wantWarnings := []string{
		"etc is a symlink leaving the skill folder: not served",
		"references/assets-dir is a symlinked folder: not followed",
		"references/leak.txt is a symlink leaving the skill folder: not served",
	}
	if !reflect.DeepEqual(warnings, wantWarnings) {
		t.Errorf("warnings\n got  %q\n want %q", warnings, wantWarnings)
	}
	for _, f := range in.Files {
		if f.Path == "big.bin" && f.Size != MaxFileSize+1 {
			t.Errorf("size %d", f.Size)
		}
	}
	if data, err := in.ReadFile("references/template-link.md"); err != nil || !strings.HasPrefix(string(data), "## {{version}}") {
		t.Errorf("symlink inside the folder: %q, %v", data, err)
	}
	if _, err := in.ReadFile("big.bin"); err == nil || err.Error() != "file larger than 1 MiB" {
		t.Errorf("big file: %v", err)
	}
	for _, rel := range []string{"references/leak.txt", "../release-notes/SKILL.md", "/etc/passwd", "etc/passwd"} {
		if data, err := in.ReadFile(rel); err == nil {
			t.Errorf("ReadFile(%q) escaped the folder: %q", rel, data)
		}
	}
}

func TestLoadLargeSkillMD(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "huge")
	writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD("huge", "d")+strings.Repeat("x", MaxFileSize))
	if _, _, err := Load(dir, filepath.Dir(dir)); err == nil || err.Error() != "SKILL.md is larger than 1 MiB" {
		t.Errorf("got %v", err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
