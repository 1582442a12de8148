package gates

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// fixture copies internal/skills/testdata/<set>/<name> to <dst>.
func fixture(t *testing.T, set, name, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "skills", "testdata", set, name))); err != nil {
		t.Fatal(err)
	}
}

func TestAgentSkillsCompliancePasses(t *testing.T) {
	ws := t.TempDir()
	// Compliant skills in four of the workspace roots; the TOML one only
	// warns.
	fixture(t, "skills", "release-notes", filepath.Join(ws, ".vox/skills/release-notes"))
	fixture(t, "skills", "pdf-forms", filepath.Join(ws, ".claude/skills/pdf-forms"))
	fixture(t, "skills", "i18n-strings", filepath.Join(ws, ".agents/skills/i18n-strings"))
	fixture(t, "skills", "sql-review", filepath.Join(ws, "assets/skills/sql-review"))
	// Hidden folders and files are not skill folders.
	fixture(t, "broken", "unparseable", filepath.Join(ws, ".vox/skills/.staging"))
	if err := os.WriteFile(filepath.Join(ws, ".vox/skills/README.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The machine's VOX_SKILL_ROOTS and HOME do not matter.
	t.Setenv("VOX_SKILL_ROOTS", t.TempDir())
	// Every tool the skills list is a catalog or a workspace tool.
	writeFile(t, filepath.Join(ws, "tools/tools.vox"), workspaceTools("git_log", "pdf_fill_form", "pdf_read_fields", "db_query"))

	r := AgentSkillsCompliance(ws, nil, []string{"vox_check", "vox_tool_search"})
	if !r.OK || len(r.Problems) != 0 {
		t.Fatalf("problems %+v", r.Problems)
	}
	want := []Problem{{Path: "assets/skills/sql-review/SKILL.md", Line: 2, Message: "TOML front matter: use YAML front matter"}}
	if !reflect.DeepEqual(r.Warnings, want) {
		t.Errorf("warnings %+v", r.Warnings)
	}
	if r.SummaryLine() != "agentskills-compliance ok (4 skills checked)" {
		t.Errorf("summary %q", r.SummaryLine())
	}
	var out bytes.Buffer
	if err := r.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"gate":"agentskills-compliance","ok":true,"problems":[],"warnings":[{"path":"assets/skills/sql-review/SKILL.md","line":2,"col":0,"message":"TOML front matter: use YAML front matter"}],"summary":{"skills_checked":4}}` + "\n"
	if out.String() != wantJSON {
		t.Errorf("json\n got  %s want %s", out.String(), wantJSON)
	}
	// A workspace without skills passes with nothing checked.
	if r := AgentSkillsCompliance(t.TempDir(), nil, nil); !r.OK || r.SummaryLine() != "agentskills-compliance ok (0 skills checked)" {
		t.Errorf("empty workspace: %s", r.SummaryLine())
	}
}

// Each broken skill fails the gate with its own message and position.
func TestAgentSkillsComplianceBroken(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		want    []Problem
	}{
		{"no description", "no-description", []Problem{
			{Path: ".vox/skills/no-description/SKILL.md", Message: "missing required field description"}}},
		{"bad name", "Bad_Name", []Problem{
			{Path: ".vox/skills/Bad_Name/SKILL.md", Line: 2, Col: 7, Message: `name "Bad_Name" must be lowercase`}}},
		{"folder and name differ", "folder-mismatch", []Problem{
			{Path: ".vox/skills/folder-mismatch/SKILL.md", Line: 2, Col: 7, Message: `the folder name "folder-mismatch" must equal the skill name "deploy-preview"`}}},
		{"long description", "long-description", []Problem{
			{Path: ".vox/skills/long-description/SKILL.md", Line: 3, Col: 14, Message: "description is 1143 characters long: at most 1024 are allowed"}}},
		{"unparseable", "unparseable", []Problem{
			{Path: ".vox/skills/unparseable/SKILL.md", Message: "front matter is neither a YAML nor a TOML mapping (YAML: line 3: did not find expected ',' or ']'; TOML: line 2, column 5: expected '.' or '=', but got ':' instead)"}}},
		{"top-level fields", "top-level-fields", []Problem{
			{Path: ".vox/skills/top-level-fields/SKILL.md", Line: 4, Col: 1, Message: `unexpected key "version": only name, description, license, compatibility, metadata, allowed-tools are allowed at top level (put it under metadata as vox-version)`},
			{Path: ".vox/skills/top-level-fields/SKILL.md", Line: 5, Col: 1, Message: `unexpected key "tools": only name, description, license, compatibility, metadata, allowed-tools are allowed at top level (put it under metadata as vox-tools)`},
			{Path: ".vox/skills/top-level-fields/SKILL.md", Line: 7, Col: 13, Message: "metadata.vox-tags is a list: metadata values must be strings (write a list as a comma-separated string)"}}},
		// A list in metadata loads in vox-mcp but breaks the standard.
		{"metadata list", "test-triage", []Problem{
			{Path: ".vox/skills/test-triage/SKILL.md", Line: 8, Col: 5, Message: "metadata.vox-tags is a list: metadata values must be strings (write a list as a comma-separated string)"},
			{Path: ".vox/skills/test-triage/SKILL.md", Line: 12, Col: 5, Message: "metadata.vox-tools is a list: metadata values must be strings (write a list as a comma-separated string)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			set := "broken"
			if tt.fixture == "test-triage" {
				set = "skills"
			}
			fixture(t, set, tt.fixture, filepath.Join(ws, ".vox/skills", tt.fixture))
			fixture(t, "skills", "go-bench", filepath.Join(ws, ".vox/skills/go-bench"))
			r := AgentSkillsCompliance(ws, nil, nil)
			if r.OK || !reflect.DeepEqual(r.Problems, tt.want) {
				t.Errorf("problems\n got  %+v\n want %+v", r.Problems, tt.want)
			}
			if want := "agentskills-compliance: " + strconv.Itoa(len(tt.want)) + " problem(s)"; r.SummaryLine() != want {
				t.Errorf("summary %q", r.SummaryLine())
			}
			var stderr, stdout bytes.Buffer
			r.WriteText(&stdout, &stderr)
			first := "agentskills-compliance: " + tt.want[0].Position() + ": " + tt.want[0].Message
			if !strings.HasPrefix(stderr.String(), first+"\n") {
				t.Errorf("stderr %q, want it to start with %q", stderr.String(), first)
			}
		})
	}
}

func TestAgentSkillsComplianceRules(t *testing.T) {
	ws := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("c", 501)
	write(".cursor/skills/rules/SKILL.md", "---\nname: rules\ndescription: d\ncompatibility: "+long+"\nmetadata:\n  version: 1.0\n  ok: \"1.0\"\nvox-id: x\n---\n")
	write(".cursor/skills/no-skill-md/notes.txt", "where is SKILL.md?")
	write(".cursor/skills/empty-desc/SKILL.md", "---\nname: empty-desc\ndescription: \"\"\n---\n")
	write(".cursor/skills/scalar/SKILL.md", "---\njust text\n---\n")
	write(".cursor/skills/ｆｕｌｌ/SKILL.md", "---\nname: full\ndescription: NFKC folds the full-width folder name\n---\n")
	write(".cursor/skills/a--b/SKILL.md", "---\nname: a--b\ndescription: d\n---\n")
	write(".cursor/skills/compat-list/SKILL.md", "---\nname: compat-list\ndescription: d\ncompatibility: [go]\nmetadata: text\n---\n")
	write(".cursor/skills/no-front/SKILL.md", "# No front matter\n")
	r := AgentSkillsCompliance(ws, nil, nil)
	p := func(skill string, line, col int, msg string) Problem {
		return Problem{Path: ".cursor/skills/" + skill + "/SKILL.md", Line: line, Col: col, Message: msg}
	}
	want := []Problem{
		p("a--b", 2, 7, `name "a--b" must not contain consecutive hyphens`),
		p("compat-list", 4, 16, "compatibility is a list: it must be a string"),
		p("compat-list", 5, 11, "metadata is a string: it must be a mapping of strings to strings"),
		p("empty-desc", 3, 14, "description is empty"),
		p("no-front", 1, 0, "SKILL.md must start with front matter: a first line ---"),
		{Path: ".cursor/skills/no-skill-md", Message: "missing SKILL.md: a skill folder holds SKILL.md with front matter"},
		p("rules", 4, 16, "compatibility is 501 characters long: at most 500 are allowed"),
		p("rules", 6, 12, "metadata.version is a scalar: metadata values must be strings (write a list as a comma-separated string)"),
		p("rules", 8, 1, `unexpected key "vox-id": only name, description, license, compatibility, metadata, allowed-tools are allowed at top level (vox-* keys go under metadata)`),
		p("scalar", 0, 0, "front matter is neither a YAML nor a TOML mapping (YAML: line 2, column 1: front matter is a scalar, not a mapping; TOML: line 2, column 6: expected '.' or '=', but got 't' instead)"),
	}
	if !reflect.DeepEqual(r.Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", dump(r.Problems), dump(want))
	}
	if r.Detail != "8 skills checked" {
		t.Errorf("detail %q", r.Detail)
	}
}

func dump(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Position() + ": " + p.Message + "\n")
	}
	return b.String()
}

// Paths given as arguments: a skill folder, or a folder of skill folders,
// relative to the root or absolute.
func TestAgentSkillsComplianceArguments(t *testing.T) {
	ws := t.TempDir()
	fixture(t, "skills", "go-bench", filepath.Join(ws, "examples/one/go-bench"))
	fixture(t, "skills", "api-docs", filepath.Join(ws, "examples/many/api-docs"))
	fixture(t, "broken", "Bad_Name", filepath.Join(ws, "examples/many/Bad_Name"))
	outside := t.TempDir()
	fixture(t, "skills", "commit-message", filepath.Join(outside, "commit-message"))
	r := AgentSkillsCompliance(ws, []string{"examples/one/go-bench", "examples/many", filepath.Join(outside, "commit-message"), "examples/missing"}, nil)
	want := []Problem{
		{Path: "examples/many/Bad_Name/SKILL.md", Line: 2, Col: 7, Message: `name "Bad_Name" must be lowercase`},
		{Path: "examples/missing", Message: "no such skill folder: no such file or directory"},
	}
	if !reflect.DeepEqual(r.Problems, want) || r.Detail != "4 skills checked" {
		t.Errorf("problems %+v, %s", r.Problems, r.Detail)
	}
	// A folder given twice (and found under a root) is checked once.
	fixture(t, "skills", "go-bench", filepath.Join(ws, ".vox/skills/go-bench"))
	r = AgentSkillsCompliance(ws, []string{".vox/skills/go-bench", ".vox/skills"}, nil)
	if !r.OK || r.Detail != "1 skills checked" {
		t.Errorf("dedup: %+v %s", r.Problems, r.Detail)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// workspaceTools is a .vox file declaring a tool of each name.
func workspaceTools(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString("@tool \"The tool " + n + "\"\nfn " + n + "() to str { \"ok\" }\n\n")
	}
	return b.String()
}

// TestAgentSkillsComplianceUnknownTools: a name in metadata.vox-tools
// that neither a catalog tool nor a workspace tool provides is a warning
// at the list's position, with the nearest tool name when one is close
// (a typo); names of either kind, written with spaces or commas, pass.
func TestAgentSkillsComplianceUnknownTools(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "tools/tools.vox"), workspaceTools("git_log", "ws_lint"))
	writeFile(t, filepath.Join(ws, ".vox/skills/release/SKILL.md"),
		"---\nname: release\ndescription: Writes release notes. Use when releasing.\nmetadata:\n  vox-tools: git_lgo, vox_check ws_lint notify_me bad!name\n---\nBody.\n")
	writeFile(t, filepath.Join(ws, ".vox/skills/known/SKILL.md"),
		"---\nname: known\ndescription: Lists known tools only. Use when testing.\nmetadata:\n  vox-tools: vox_check git_log,ws_lint\n---\nBody.\n")
	r := AgentSkillsCompliance(ws, nil, []string{"vox_check", "vox_tool_search"})
	at := func(msg string) Problem {
		return Problem{Path: ".vox/skills/release/SKILL.md", Line: 5, Col: 14, Message: msg}
	}
	want := []Problem{
		at(`metadata.vox-tools lists "bad!name", which neither a catalog tool nor a workspace tool provides: it is not a valid MCP tool name either, so nothing serves it`),
		at(`metadata.vox-tools lists "git_lgo", which neither a catalog tool nor a workspace tool provides: vox-mcp serves it as an instruction-only macro tool of this skill (did you mean "git_log"?)`),
		at(`metadata.vox-tools lists "notify_me", which neither a catalog tool nor a workspace tool provides: vox-mcp serves it as an instruction-only macro tool of this skill`),
	}
	if !r.OK || !reflect.DeepEqual(r.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", dump(r.Warnings), dump(want))
	}
	// A workspace that does not load: the names are not checked, and the
	// gate says why.
	writeFile(t, filepath.Join(ws, "contracts/mcp/workspace-mcp-surface.v1.yaml"), "scan_globs: 7\n")
	r = AgentSkillsCompliance(ws, nil, []string{"vox_check"})
	if len(r.Warnings) != 1 || r.Warnings[0].Path != "contracts/mcp/workspace-mcp-surface.v1.yaml" ||
		!strings.HasPrefix(r.Warnings[0].Message, "the tools of metadata.vox-tools are not checked, because the workspace does not load: ") {
		t.Errorf("warnings: %s", dump(r.Warnings))
	}
}

func TestNearestToolName(t *testing.T) {
	names := []string{"git_log", "vox_check", "ws_lint"}
	for in, want := range map[string]string{"git_lgo": "git_log", "vox_chek": "vox_check", "Git_Log": "git_log", "gl": "", "notify_me": "", "ws_lin": "ws_lint"} {
		if got := nearest(in, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", in, got, want)
		}
	}
}
