package skills

import (
	"os"
	"path/filepath"
	"testing"
)

// goodFixtures are the realistic skills of testdata/skills, by folder.
var goodFixtures = []string{
	"api-docs", "changelog-lint", "commit-message", "csv-insights", "go-bench", "i18n-strings",
	"pdf-forms", "release-notes", "security-audit", "sql-review", "test-triage", "web-accessibility",
}

// copyFixture copies testdata/<set>/<name> to <root>/<folder> and returns
// the new folder, so tests never change the fixtures.
func copyFixture(t testing.TB, set, name, root, folder string) string {
	t.Helper()
	dst := filepath.Join(root, folder)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", set, name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fixtureRoot is a fresh root holding every good fixture.
func fixtureRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range goodFixtures {
		copyFixture(t, "skills", name, root, name)
	}
	return root
}

// testConfig confines a registry to temporary folders: its own workspace
// and home, and the given roots (none: the nine standard ones under them),
// so no test sees the machine's skills.
func testConfig(t testing.TB, roots ...string) Config {
	t.Helper()
	return Config{Workspace: t.TempDir(), Home: t.TempDir(), Roots: roots}
}

func readFixture(t testing.TB, set, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", set, name, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillMD is a minimal valid SKILL.md with extra front matter lines.
func skillMD(name, description string, extra ...string) string {
	s := "---\nname: " + name + "\ndescription: " + description + "\n"
	for _, e := range extra {
		s += e + "\n"
	}
	return s + "---\n# " + name + "\n\nSteps of " + name + ".\n"
}
