package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCIAgentSkillsCompliance(t *testing.T) {
	root := t.TempDir()
	fixture := func(set, name, dst string) {
		t.Helper()
		if err := os.CopyFS(filepath.Join(root, dst), os.DirFS(filepath.Join(repoRoot(t), "internal/skills/testdata", set, name))); err != nil {
			t.Fatal(err)
		}
	}
	fixture("skills", "go-bench", ".claude/skills/go-bench")
	code, stdout, stderr := vox(t, "ci", "agentskills-compliance", "--root", root)
	if code != 0 || stdout != "agentskills-compliance ok (1 skills checked)\n" || stderr != "" {
		t.Errorf("clean: %d %q %q", code, stdout, stderr)
	}
	// A broken skill given as an argument (flags after it) fails the gate.
	fixture("broken", "no-description", "extra/no-description")
	code, stdout, stderr = vox(t, "ci", "agentskills-compliance", "extra/no-description", "--root", root)
	if code != 1 || stdout != "agentskills-compliance: 1 problem(s)\n" ||
		stderr != "agentskills-compliance: extra/no-description/SKILL.md: missing required field description\n" {
		t.Errorf("broken: %d %q %q", code, stdout, stderr)
	}
	code, stdout, _ = vox(t, "ci", "agentskills-compliance", "--json", "--root", root, "extra")
	if code != 1 || !strings.HasPrefix(stdout, `{"gate":"agentskills-compliance","ok":false,"problems":[{"path":"extra/no-description/SKILL.md","line":0,"col":0,"message":"missing required field description"}]`) {
		t.Errorf("json: %d %s", code, stdout)
	}
	// A tool name that neither the catalog of this build nor the
	// workspace provides is a warning with the nearest name; the gate
	// passes.
	if err := os.MkdirAll(filepath.Join(root, ".vox/skills/typo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".vox/skills/typo/SKILL.md"), []byte("---\nname: typo\ndescription: Checks. Use when checking.\nmetadata:\n  vox-tools: vox_chek vox_tool_search\n---\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = vox(t, "ci", "agentskills-compliance", "--root", root)
	if code != 0 || stdout != "agentskills-compliance ok (2 skills checked)\n" ||
		!strings.Contains(stderr, "agentskills-compliance: .vox/skills/typo/SKILL.md:5:14: warning: metadata.vox-tools lists \"vox_chek\", which neither a catalog tool nor a workspace tool provides: vox-mcp serves it as an instruction-only macro tool of this skill (did you mean \"vox_check\"?)\n") ||
		strings.Contains(stderr, "vox_tool_search") {
		t.Errorf("typo: %d %q %q", code, stdout, stderr)
	}
	// vox ci all includes the gate.
	_, stdout, _ = vox(t, "ci", "all", "--root", root)
	if !strings.Contains(stdout, "agentskills-compliance ok (2 skills checked)\n") {
		t.Errorf("ci all: %s", stdout)
	}
}

// The reference's skill files pass the gate where the reference's own
// gate passes them (list-valued metadata, TOML front matter, a dotted
// id), with warnings naming what differs from the Agent Skills format;
// a missing description fails both.
func TestCIAgentSkillsComplianceReferenceFile(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "crates/vox-plugin-git/vox.git.skill.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	const skill = "---\nname = \"git\"\ndescription = \"Explains commits. Use when asked what changed.\"\n\n[metadata]\n\"vox-id\" = \"vox.git\"\n\"vox-tools\" = [\"vox_check\"]\n\"vox-tags\" = [\"git\"]\n---\n# Git\n"
	if err := os.WriteFile(file, []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := vox(t, "ci", "agentskills-compliance", "--root", root)
	if code != 0 || stdout != "agentskills-compliance ok (1 skills checked)\n" ||
		!strings.Contains(stderr, "agentskills-compliance: crates/vox-plugin-git/vox.git.skill.md:6:1: warning: id \"vox.git\" is served as \"vox-git\"") ||
		!strings.Contains(stderr, "crates/vox-plugin-git/vox.git.skill.md:1: warning: TOML front matter") {
		t.Errorf("reference file: %d %q %q", code, stdout, stderr)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(skill, "description", "summary", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = vox(t, "ci", "agentskills-compliance", "--root", root)
	if code != 1 || stdout != "agentskills-compliance: 1 problem(s)\n" ||
		!strings.Contains(stderr, "agentskills-compliance: crates/vox-plugin-git/vox.git.skill.md: missing required field description\n") {
		t.Errorf("no description: %d %q %q", code, stdout, stderr)
	}
}
