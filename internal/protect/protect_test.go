package protect

import (
	"os"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	s := New(Options{ScanGlobs: []string{"tools/*.VOX", "lib/**"}, Dirs: []Dir{{Path: ".config/vox-mcp", Why: "trust records"}}})
	for _, rel := range []string{
		".git", ".git/config", "a/b/.git/hooks/pre-commit", ".GIT/config", ".Git./config", ".git /config",
		".git::$INDEX_ALLOCATION/config", ".g\u200cit/config", ".git\ufeff/HEAD", "\u0130\u0131/x/.gıt/config",
		".gitmodules", "x/.GitAttributes", "tools/a.vox", "deep/x.Vox", "lib/anything.txt", "tools/a.vox",
		"contracts/mcp/workspace-mcp-surface.v1.yaml", "CONTRACTS/MCP/workspace-mcp-surface.v1.yaml",
		".mcp.json", "sub/.mcp.json", ".claude/settings.json", ".cursor/mcp.json", ".vscode/tasks.json",
		".github/workflows/ci.yml", ".github/actions/a/action.yml", ".envrc", ".vox/skills/a/SKILL.md",
		"assets/skills/a/run.sh", ".github/skills/x/run.sh", ".config/vox-mcp/trust.json", ".config/vox-mcp", "x.code-workspace",
	} {
		if _, ok := s.Match(rel); !ok {
			t.Errorf("%q is not protected", rel)
		}
	}
	for _, rel := range []string{
		"notes/a.md", "out/gitlog.txt", "git/config", ".gitignore", ".github/ISSUE_TEMPLATE/bug.md", ".config/other/x",
		"tools/a.vox.txt", "contracts/mcp/other.yaml", "docs/.git-notes.md", "GIT~1/config",
	} {
		if r, ok := s.Match(rel); ok {
			t.Errorf("%q is protected by %q", rel, r.Pattern)
		}
	}
	if _, ok := New(Options{ShortNames: true}).Match("GIT~1/config"); !ok {
		t.Error("with short names refused, GIT~1 is not protected")
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		".GIT":                ".git",
		".git.":               ".git",
		".git . .":            ".git",
		".git::$DATA":         ".git",
		"K\u212a":             "kk",
		"ſ":                   "s",
		"e\u0301":             "\u00e9",
		"a/.G\u200dIT/b.VOX.": "a/.git/b.vox",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMayBeShortName(t *testing.T) {
	for c, want := range map[string]bool{"GIT~1": true, "GITHUB~12": true, "MCP~1.JSO": true, "git": false, "a~b": false, "backup~": false, "toolong~1": false} {
		if got := MayBeShortName(c); got != want {
			t.Errorf("MayBeShortName(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestTableIsDocumented: docs/security.md shows every rule of the Table
// with its reason, and no other.
func TestTableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "| path (any depth unless it names a folder of the root) | why |")
	if start < 0 {
		t.Fatal("docs/security.md has no table of protected paths")
	}
	rest := text[start:]
	end := strings.Index(rest, "\n\n")
	rows := strings.Split(strings.TrimSpace(rest[:end]), "\n")[2:]
	if len(rows) != len(Table) {
		t.Errorf("docs/security.md lists %d protected paths, the Table %d", len(rows), len(Table))
	}
	for i, r := range Table {
		want := "| `" + r.Pattern + "` | " + r.Why + " |"
		if i >= len(rows) || rows[i] != want {
			t.Errorf("row %d of docs/security.md's table: want %q", i+1, want)
		}
	}
}
