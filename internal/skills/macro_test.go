package skills

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMacroTools(t *testing.T) {
	r, _ := hydrated(t)
	// Catalog and workspace tools as the server would report them.
	taken := map[string]bool{"vox_check": true, "git_log": true, "db_query": true}
	tools, warnings := r.Snapshot().MacroTools(func(name string) bool { return taken[name] })
	type row struct{ name, skill, description string }
	var got []row
	for _, m := range tools {
		got = append(got, row{m.Name, m.SkillID, m.Description})
	}
	want := []row{
		{"audit_deps", "security-audit", "Instructional macro tool from skill: security-audit"},
		{"browser_snapshot", "web-accessibility", "Instructional macro tool from skill: web-accessibility"},
		{"csv_profile", "csv-insights", "Instructional macro tool from skill: csv-insights"},
		{"pdf_fill_form", "pdf-forms", "Instructional macro tool from skill: pdf-forms"},
		{"pdf_read_fields", "pdf-forms", "Instructional macro tool from skill: pdf-forms"},
		{"run_tests", "test-triage", "Instructional macro tool from skill: test-triage"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("macro tools\n got  %v\n want %v", got, want)
	}
	if want := []string{`skill security-audit: tool "scan_secrets!" is not a valid tool name: no macro tool`}; !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q", warnings)
	}
	text := tools[0].Text()
	wantText := "This tool is an instruction from skill 'security-audit'. Carry out the steps below yourself.\n\n# Security audit\n\n1. Call `audit_deps`"
	if !strings.HasPrefix(text, wantText) || !strings.HasSuffix(text, "Report each finding with its severity and the fix.") {
		t.Errorf("text %q", text)
	}
	if MacroToolInputSchema != `{"type":"object"}` {
		t.Error(MacroToolInputSchema)
	}
}

// When several skills name the same macro tool, the first by id wins —
// not the first discovered.
func TestMacroToolFirstByIDWins(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a-first/SKILL.md"), skillMD("zz-last", "d", "metadata:", "  vox-id: zz-last", "  vox-tools: shared, own_z"))
	writeFile(t, filepath.Join(root, "b-second/SKILL.md"), skillMD("aa-first", "d", "metadata:", "  vox-id: aa-first", "  vox-tools: shared, shared"))
	r := New(testConfig(t, root))
	r.Hydrate()
	tools, warnings := r.Snapshot().MacroTools(nil)
	if len(tools) != 2 || tools[0].Name != "own_z" || tools[1].Name != "shared" || tools[1].SkillID != "aa-first" {
		t.Errorf("tools %+v", tools)
	}
	if want := []string{`skill zz-last: macro tool "shared" is already provided by skill aa-first`}; !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q", warnings)
	}
}

func TestAllow(t *testing.T) {
	manifest := []string{"git_log", "vox_check"}
	tests := []struct {
		tools []string
		tool  string
		ok    bool
		text  string
	}{
		{manifest, "git_log", true, ""},
		{manifest, "vox_check", true, ""},
		{manifest, "deploy", false, `Tool 'deploy' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		{manifest, "Git_log", false, `Tool 'Git_log' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		{manifest, "git_log ", false, `Tool 'git_log ' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		// No name is exempt here: exemption is a field of the catalog row,
		// which the server checks (a workspace tool may take any name).
		{manifest, "vox_skill_use", false, `Tool 'vox_skill_use' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		{manifest, "vox_chat_send", false, `Tool 'vox_chat_send' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		{manifest, "vox_skills", false, `Tool 'vox_skills' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		{manifest, "vox_tool_search_all", false, `Tool 'vox_tool_search_all' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`},
		// Empty tools: unrestricted.
		{nil, "anything", true, ""},
		{[]string{}, "deploy", true, ""},
		// Items are JSON strings without HTML escaping, in manifest order; an
		// invalid macro name still counts.
		{[]string{"z<b>&", `say "hi"`, "scan secrets!"}, "scan secrets!", true, ""},
		{[]string{"z<b>&", `say "hi"`, "é"}, "x", false, `Tool 'x' is not in skill 'release-notes' allowlist ["z<b>&", "say \"hi\"", "é"]`},
	}
	for _, tt := range tests {
		ok, text := Allow("release-notes", tt.tools, tt.tool)
		if ok != tt.ok || text != tt.text {
			t.Errorf("Allow(%q, %q) = %v %q, want %v %q", tt.tools, tt.tool, ok, text, tt.ok, tt.text)
		}
	}
}
