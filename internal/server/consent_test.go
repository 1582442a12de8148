package server

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/trust"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// consentFiles is a workspace whose scan config asks to read a variable
// and write out/**, with one tool that writes (through a helper, so the
// hint must follow the call) and two that do not.
var consentFiles = map[string]string{
	workspace.ConfigPath: "scan_globs: [\"tools/**/*.vox\"]\nenv_allow: [VOX_CONSENT_SECRET]\nwrite_globs: [\"out/**\"]\n",
	"tools/t.vox": `@tool "Writes a note"
fn note(text: str) to int { save("out/note.txt", text) }

fn save(p: str, text: str) to int { fs.write(p, text).unwrap_or(0 - 1) }

@tool "Reads the secret"
fn secret() to str { env.get("VOX_CONSENT_SECRET").unwrap_or("none") }

@tool "Reads a file"
fn peek(p: str) to str { fs.read(p).unwrap_or("") }
`,
}

// TestConsentWithholdsUntilTrusted: an untrusted workspace's tools run,
// but env.get gives None and every write is denied with a message naming
// vox trust; every tool is advertised read-only meanwhile. Once vox trust
// records what the config asks for, a refresh grants it, and only the
// tool that can reach fs.write loses readOnlyHint. A changed request
// withholds everything again.
func TestConsentWithholdsUntilTrusted(t *testing.T) {
	t.Setenv("VOX_CONSENT_SECRET", "hunter2")
	store := &trust.Store{Path: filepath.Join(t.TempDir(), "trust.json")}
	s := workspaceServer(t, Options{WorkspaceTools: true, Consent: &workspace.Consent{Store: store}}, consentFiles)

	text, isErr, _ := toolResult(t, callTool(t, s, "secret", `{}`))
	if isErr || text != "none" {
		t.Errorf("untrusted secret = %q (error %v), want none", text, isErr)
	}
	text, isErr, _ = toolResult(t, callTool(t, s, "note", `{"text":"x"}`))
	if !isErr || !strings.Contains(text, "capability denied: fs.write to out/note.txt: the scan config's write_globs allow it, but this workspace is not trusted; run `vox trust ") {
		t.Errorf("untrusted note = %q (error %v)", text, isErr)
	}
	for name, tool := range listedTools(t, s) {
		if ro := tool["annotations"].(map[string]any)["readOnlyHint"]; !strings.HasPrefix(name, "vox_") && ro != true {
			t.Errorf("untrusted: %s readOnlyHint = %v, want true while no write is granted", name, ro)
		}
	}

	cfg, err := workspace.LoadConfig(s.root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Trust(s.root, cfg.Requested(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, isErr, _ := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`)); isErr {
		t.Fatal("refresh failed")
	}
	if text, _, _ := toolResult(t, callTool(t, s, "secret", `{}`)); text != "hunter2" {
		t.Errorf("trusted secret = %q", text)
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "note", `{"text":"x"}`)); isErr || text != "1" {
		t.Errorf("trusted note = %q (error %v)", text, isErr)
	}
	tools := listedTools(t, s)
	for name, want := range map[string]bool{"note": false, "secret": true, "peek": true} {
		if ro := tools[name]["annotations"].(map[string]any)["readOnlyHint"]; ro != want {
			t.Errorf("trusted: %s readOnlyHint = %v, want %v", name, ro, want)
		}
	}

	// The repository asks for more: nothing is granted until trusted again.
	writeFiles(t, s.root, map[string]string{workspace.ConfigPath: strings.Replace(consentFiles[workspace.ConfigPath], "[VOX_CONSENT_SECRET]", "[VOX_CONSENT_SECRET, AWS_SECRET_ACCESS_KEY]", 1)})
	if _, isErr, _ := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`)); isErr {
		t.Fatal("refresh failed")
	}
	if text, _, _ := toolResult(t, callTool(t, s, "secret", `{}`)); text != "none" {
		t.Errorf("changed request: secret = %q, want none", text)
	}
}

// TestConsentProtectsWhatRuns: a trusted write_globs of ** still never
// reaches .git, the scan config, a .vox file or an agent's configuration;
// an operator's --allow-write naming such a path opens it.
func TestConsentProtectsWhatRuns(t *testing.T) {
	files := map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/**/*.vox\"]\nwrite_globs: [\"**\"]\n",
		"tools/w.vox":        "@tool \"Writes\"\nfn w(p: str) to int { fs.write(p, \"x\")? }\n",
	}
	store := &trust.Store{Path: filepath.Join(t.TempDir(), "trust.json")}
	op := trust.Operator{Write: []string{"dynamic/*.vox"}}
	s := workspaceServer(t, Options{Consent: &workspace.Consent{Store: store, Operator: op}}, files)
	cfg, _ := workspace.LoadConfig(s.root)
	if _, err := store.Trust(s.root, cfg.Requested(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, isErr, _ := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`)); isErr {
		t.Fatal("refresh failed")
	}
	for _, p := range []string{".git/config", "sub/.git/hooks/pre-commit", ".GIT/config", workspace.ConfigPath, "tools/new.vox", "x/y.vox",
		".mcp.json", ".claude/settings.json", ".vscode/tasks.json", ".github/workflows/ci.yml", ".vox/skills/a/SKILL.md", ".Git./config"} {
		text, isErr, _ := toolResult(t, callTool(t, s, "w", `{"p":"`+p+`"}`))
		if !isErr || !strings.Contains(text, "capability denied: fs.write to ") || !strings.Contains(text, "protected") {
			t.Errorf("write %s: %q (error %v), want protected", p, text, isErr)
		}
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "w", `{"p":"notes/a.txt"}`)); isErr || text != "1" {
		t.Errorf("write notes/a.txt: %q (error %v)", text, isErr)
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "w", `{"p":"dynamic/a.vox"}`)); isErr || text != "1" {
		t.Errorf("operator-granted dynamic/a.vox: %q (error %v)", text, isErr)
	}
}
