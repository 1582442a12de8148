package gates

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// referenceWorkspace writes the files of internal/skills/testdata/reference/
// <name>.txtar (not its links, its want section or its plugins folder)
// into ws.
func referenceWorkspace(t *testing.T, ws, name string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "skills", "testdata", "reference", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "want" || strings.HasPrefix(f.Name, "symlink ") || strings.HasPrefix(f.Name, "plugins/") {
			continue
		}
		writeFile(t, filepath.Join(ws, filepath.FromSlash(f.Name)), string(f.Data))
	}
}

func reportLines(r *Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "problem %s: %s\n", p.Position(), p.Message)
	}
	for _, p := range r.Warnings {
		fmt.Fprintf(&b, "warning %s: %s\n", p.Position(), p.Message)
	}
	return b.String()
}

// The reference's own skill files pass: canonical list-valued metadata,
// legacy top-level keys, dotted and free-text ids, TOML front matter. The
// gate warns where the Agent Skills format differs, naming the fix.
func TestAgentSkillsComplianceReferenceFilesPass(t *testing.T) {
	ws := t.TempDir()
	referenceWorkspace(t, ws, "skill_files")
	writeFile(t, filepath.Join(ws, "tools/tools.vox"), workspaceTools("git_log", "git_show"))
	r := AgentSkillsCompliance(ws, nil, []string{"vox_check"})
	if !r.OK {
		t.Fatalf("problems:\n%s", reportLines(r))
	}
	want := `warning a/b/c/d/e/deep.skill.md:1: TOML front matter: the Agent Skills format writes YAML (name: x); the reference reads only TOML, so keep TOML while the reference must read this file, or write YAML for other clients
warning crates/vox-plugin-git/vox.git.skill.md:1: TOML front matter: the Agent Skills format writes YAML (name: x); the reference reads only TOML, so keep TOML while the reference must read this file, or write YAML for other clients
warning crates/vox-plugin-git/vox.git.skill.md:6:1: id "vox.git" is served as "vox-git" (skill://vox-git/SKILL.md): an Agent Skills name holds only lowercase letters, digits and hyphens
warning docs/skills/compiler.skill.md:1: TOML front matter: the Agent Skills format writes YAML (name: x); the reference reads only TOML, so keep TOML while the reference must read this file, or write YAML for other clients
warning docs/skills/compiler.skill.md:2:1: id "vox.compiler" is served as "vox-compiler" (skill://vox-compiler/SKILL.md): an Agent Skills name holds only lowercase letters, digits and hyphens
warning docs/skills/compiler.skill.md:2:1: top-level id is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-id (the reference reads both)
warning docs/skills/compiler.skill.md:3:1: name "Vox Compiler" must be lowercase, as the Agent Skills format wants; to follow it, set name to "vox-compiler" and keep the reference's id as metadata vox-id
warning docs/skills/compiler.skill.md:4:1: top-level version is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-version (the reference reads both)
warning docs/skills/compiler.skill.md:5:1: top-level author is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-author (the reference reads both)
warning docs/skills/compiler.skill.md:7:1: top-level category is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-category (the reference reads both)
warning docs/skills/compiler.skill.md:8:1: top-level tools is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-tools (the reference reads both)
warning docs/skills/compiler.skill.md:9:1: top-level tags is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-tags (the reference reads both)
warning docs/skills/compiler.skill.md:10:1: top-level permissions is the reference's legacy form: the Agent Skills format allows only name, description, license, compatibility, metadata, allowed-tools at top level; move it under metadata as vox-permissions (the reference reads both)
warning notes/My Helper.skill.md:1: TOML front matter: the Agent Skills format writes YAML (name: x); the reference reads only TOML, so keep TOML while the reference must read this file, or write YAML for other clients
warning notes/My Helper.skill.md:2:1: id "My Helper" is served as "my-helper" (skill://my-helper/SKILL.md): an Agent Skills name holds only lowercase letters, digits and hyphens
warning notes/My Helper.skill.md:2:1: name "My Helper" must be lowercase, as the Agent Skills format wants; to follow it, set name to "my-helper" and keep the reference's id as metadata vox-id
`
	if got := reportLines(r); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if r.SummaryLine() != "agentskills-compliance ok (5 skills checked)" {
		t.Errorf("summary %q", r.SummaryLine())
	}
}

// What both the reference and vox-mcp reject is still a problem: no front
// matter, no name, no description (also in a front matter neither reads,
// judged by the reference's name and description lines), and a plugin
// whose skill file is missing. A front matter only vox-mcp cannot read,
// and a plugin only vox-mcp refuses, are warnings.
func TestAgentSkillsComplianceReferenceFilesRejected(t *testing.T) {
	ws := t.TempDir()
	referenceWorkspace(t, ws, "plugins")
	writeFile(t, filepath.Join(ws, "docs/none.skill.md"), "# No front matter\n")
	writeFile(t, filepath.Join(ws, "docs/nodesc.skill.md"), "---\nname = \"nodesc\"\n---\nBody.\n")
	writeFile(t, filepath.Join(ws, "docs/noname.skill.md"), "---\ndescription = \"x\"\n[metadata]\nbad = = 1\n---\nBody.\n")
	writeFile(t, filepath.Join(ws, "docs/lines.skill.md"), "---\nname = \"lines\"\ndescription = 'Has both lines.'\ntags = [\n---\nBody.\n")
	writeFile(t, filepath.Join(ws, "docs/lists.skill.md"), "---\nname = \"lists\"\ndescription = \"Lists pass. Use for lists.\"\n[metadata]\n\"vox-tools\" = [\"vox_check\"]\n\"vox-tags\" = [\"a\", \"b\"]\n\"vox-permissions\" = [\"read_files\"]\nowners = [\"ada\"]\n---\nBody.\n")
	r := AgentSkillsCompliance(ws, nil, []string{"vox_check"})
	want := `problem crates/vox-plugin-broken/Plugin.toml:2:15: strings cannot contain newlines
problem crates/vox-plugin-gone/Plugin.toml: the skill file gone.skill.md that skill-md names does not exist: write it, or name the file beside Plugin.toml that holds the skill
problem docs/nodesc.skill.md: missing required field description
problem docs/noname.skill.md: missing required field name
problem docs/none.skill.md:1: no front matter block (--- ... ---) found: open the file with a line --- and close the front matter with another
`
	got := reportLines(r)
	problems, _, _ := strings.Cut(got, "warning ")
	if problems != want {
		t.Errorf("problems:\n%s\nwant:\n%s", problems, want)
	}
	for _, w := range []string{
		"warning crates/vox-plugin-escape/Plugin.toml: skill-md \"../vox-plugin-db/db.skill.md\" leaves the plugin folder: it must name a file inside it, relative to Plugin.toml, with / between folders: vox-mcp does not serve this skill\n",
		"warning docs/lines.skill.md: front matter is neither a YAML nor a TOML mapping",
		"vox-mcp does not serve this skill until its front matter is valid TOML (or YAML); the reference's gate reads only its name and description lines\n",
		"warning docs/lists.skill.md:8:1: metadata.owners is a list: Agent Skills metadata values are strings; write it as one\n",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in\n%s", w, got)
		}
	}
	if strings.Contains(got, "vox-tools") || strings.Contains(got, "vox-tags") || strings.Contains(got, "vox-permissions") {
		t.Errorf("list-valued vox-* metadata passes:\n%s", got)
	}
	// A *.skill.md or Plugin.toml given as an argument is checked too.
	r = AgentSkillsCompliance(t.TempDir(), []string{filepath.Join(ws, "docs/nodesc.skill.md"), filepath.Join(ws, "crates/vox-plugin-db/Plugin.toml")}, nil)
	if len(r.Problems) != 1 || !strings.HasSuffix(r.Problems[0].Path, "docs/nodesc.skill.md") || r.SummaryLine() != "agentskills-compliance: 1 problem(s)" {
		t.Errorf("arguments: %s\n%s", r.SummaryLine(), reportLines(r))
	}
	// A folder of skill files given as an argument is checked as a root.
	r = AgentSkillsCompliance(t.TempDir(), []string{filepath.Join(ws, "docs")}, nil)
	if got := reportLines(r); !strings.Contains(got, "docs/nodesc.skill.md: missing required field description") ||
		!strings.Contains(got, "docs/none.skill.md:1: no front matter block") || strings.Contains(got, "missing SKILL.md") ||
		r.SummaryLine() != "agentskills-compliance: 3 problem(s)" {
		t.Errorf("a folder of skill files: %s\n%s", r.SummaryLine(), got)
	}
}
