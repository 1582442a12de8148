package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exportSetup is a workspace with one skill in .vox/skills and an empty
// home, both temporary, as the environment of the command.
func exportSetup(t *testing.T) (ws, home string) {
	t.Helper()
	ws, home = t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	home, _ = filepath.EvalSymlinks(home)
	t.Setenv("HOME", home)
	t.Setenv("VOX_SKILL_ROOTS", "")
	t.Setenv("CODEX_HOME", "")
	writeTestFile(t, filepath.Join(ws, ".vox", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\n# Greet\n")
	writeTestFile(t, filepath.Join(ws, ".vox", "skills", "greet", "references", "style.md"), "Be brief.\n")
	return ws, home
}

func TestSkillExportCLI(t *testing.T) {
	ws, home := exportSetup(t)
	folder := filepath.Join(ws, ".claude", "skills")

	code, out, errOut := vox(t, "skill", "export", "--client", "claude", "--root", ws, "--check")
	if code != 1 || !strings.Contains(out, "missing   greet: not exported yet\n") || !strings.Contains(out, folder+" (Claude Code) has drifted from the workspace's skills: 1 missing; run vox skill export --client claude") {
		t.Fatalf("check before: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = vox(t, "skill", "export", "--client", "claude", "--root", ws)
	if code != 0 || out != "wrote     "+filepath.Join(folder, "greet")+" (2 file(s))\nexported to "+folder+" (Claude Code): 1 wrote\n" || errOut != "" {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	for rel, want := range map[string]string{"SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n# Greet\n", "references/style.md": "Be brief.\n"} {
		if b, err := os.ReadFile(filepath.Join(folder, "greet", filepath.FromSlash(rel))); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", rel, b, err)
		}
	}
	code, out, _ = vox(t, "skill", "export", "--client", "claude", "--root", ws, "--check")
	if code != 0 || !strings.HasSuffix(out, folder+" (Claude Code) is in sync with the workspace's skills: 1 unchanged\n") {
		t.Fatalf("check after: exit %d\n%s", code, out)
	}
	writeTestFile(t, filepath.Join(ws, ".vox", "skills", "greet", "references", "style.md"), "Be briefer.\n")
	if code, out, _ = vox(t, "skill", "export", "--client", "claude", "--root", ws, "--check"); code != 1 || !strings.Contains(out, "changed   greet: the exported copy differs from the skill\n") {
		t.Fatalf("check after a change: exit %d\n%s", code, out)
	}

	// The user scope of VS Code is ~/.copilot/skills.
	code, out, _ = vox(t, "skill", "export", "--client", "vscode", "--scope", "user", "--root", ws)
	if code != 0 || !strings.Contains(out, "wrote     "+filepath.Join(home, ".copilot", "skills", "greet")+" (2 file(s))\n") {
		t.Fatalf("vscode user: exit %d\n%s", code, out)
	}

	// A foreign folder in the way: refused, named, exit 1, untouched.
	writeTestFile(t, filepath.Join(ws, ".cursor", "skills", "greet", "notes.txt"), "mine\n")
	code, out, _ = vox(t, "skill", "export", "--client", "cursor", "--root", ws)
	if code != 1 || !strings.Contains(out, "refused   greet: "+filepath.Join(ws, ".cursor", "skills", "greet")+" was not written by vox skill export: remove or rename it, or rename the skill\n") {
		t.Fatalf("foreign folder: exit %d\n%s", code, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, ".cursor", "skills", "greet")); len(entries) != 1 {
		t.Errorf("the foreign folder was changed: %v", entries)
	}
}

func TestSkillExportUsage(t *testing.T) {
	ws, _ := exportSetup(t)
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{}, 2, "usage: vox skill export --client NAME"},
		{[]string{"--client", "emacs"}, 2, `vox skill export: --client, --scope: unknown client "emacs": give one of claude, cursor, vscode, codex`},
		{[]string{"--client", "claude", "--scope", "global"}, 2, `unknown scope "global": give project or user`},
		{[]string{"--client", "claude", "extra"}, 2, "usage: vox skill export"},
		{[]string{"--client", "codex"}, 1, "Codex reads no skills folder of a project that vox knows of: export with --scope user (~/.codex/skills)"},
		{[]string{"--client", "claude", "--root", filepath.Join(ws, "nope")}, 1, "vox skill export: --root " + filepath.Join(ws, "nope")},
	} {
		args := append([]string{"skill", "export"}, c.args...)
		if !slices.Contains(c.args, "--root") {
			args = append(args, "--root", ws)
		}
		code, _, errOut := vox(t, args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.err)
		}
	}
	if code, out, _ := vox(t, "help"); code != 0 || !regexp.MustCompile(`(?m)^  skill export +write the workspace's skills`).MatchString(out) {
		t.Errorf("help: %s", out)
	}
}
