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
		if err := os.CopyFS(filepath.Join(root, dst), os.DirFS(filepath.Join(repoRoot(t), "runtime/skills/testdata", set, name))); err != nil {
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
	// vox ci all includes the gate.
	_, stdout, _ = vox(t, "ci", "all", "--root", root)
	if !strings.Contains(stdout, "agentskills-compliance ok (1 skills checked)\n") {
		t.Errorf("ci all: %s", stdout)
	}
}
