package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestAuditTrailOverStdio runs `vox-mcp --audit FILE` over stdio with
// mcp-go's client: activating a skill, running its command, reading its
// SKILL.md, getting its prompt and a refused call each leave their line,
// every one of principal stdio, and a secret-looking value sent in each
// appears nowhere in the file.
func TestAuditTrailOverStdio(t *testing.T) {
	skillRoot := t.TempDir()
	if err := os.CopyFS(filepath.Join(skillRoot, "pdf-forms"), os.DirFS(filepath.Join(repoRoot, "internal/skills/testdata/skills/pdf-forms"))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	env := serverEnv(t)
	env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, "VOX_SKILL_ROOTS=") })
	env = append(env, "VOX_SKILL_ROOTS="+skillRoot)
	c, err := client.NewStdioMCPClient(voxMCP, env, "--root", t.TempDir(), "--audit", path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: "2025-06-18", ClientInfo: mcp.Implementation{Name: "audit", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	const secret = "ghp_SECRETaudit0123456789"
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if res := call("vox_skill_use", map[string]any{"id": "pdf-forms"}); res.IsError {
		t.Fatalf("vox_skill_use: %v", res.Content)
	}
	call("vox_skill_run", map[string]any{"id": "pdf-forms", "command": "echo " + secret})
	// pdf-forms allows its two macro tools (and the infrastructure, such
	// as vox_skill_run): vox_check is refused.
	if refused := call("vox_check", map[string]any{"source": secret}); !refused.IsError {
		t.Fatalf("vox_check ran under the allowlist: %v", refused.Content)
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "skill://pdf-forms/SKILL.md"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "pdf-forms", Arguments: map[string]string{"task": secret}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Logf("close: %v", err)
	}

	var raw []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if raw, err = os.ReadFile(path); err == nil && strings.Count(string(raw), "\n") >= 7 {
			break
		}
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("the audit file holds the secret argument:\n%s", raw)
	}
	var got []string
	for ln := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var l struct{ Principal, Action, What, Outcome, Reason string }
		if err := json.Unmarshal([]byte(ln), &l); err != nil {
			t.Fatalf("%v: %s", err, ln)
		}
		if l.Principal != "stdio" {
			t.Errorf("principal %q, want stdio: %s", l.Principal, ln)
		}
		got = append(got, l.Action+" "+l.What+" "+l.Outcome+" "+l.Reason)
	}
	for _, want := range []string{
		"skill/activate pdf-forms ok ",
		"tools/call vox_skill_use ok ",
		"tools/call vox_skill_run ",
		"skill/run pdf-forms ",
		"tools/call vox_check refused allowlist",
		"resources/read skill://pdf-forms/SKILL.md ok ",
		"prompts/get pdf-forms ok ",
	} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
			t.Errorf("no line %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
}
