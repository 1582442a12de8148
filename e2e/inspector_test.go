package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/generated/catalog"
)

// fixtureSkills are the skills the Inspector's server sees: the skills
// package's test corpus, read only.
func fixtureSkills() string {
	return filepath.Join(repoRoot, "internal", "skills", "testdata", "skills")
}

// Exit codes of the Inspector CLI.
const (
	inspectorOK            = 0
	inspectorToolIsError   = 5 // the tool answered isError: true
	inspectorNonconformant = 7 // --verify found a SEP-2640 violation
)

// inspector runs one method of the MCP Inspector CLI against the stdio
// binary serving this repository with its workspace tools advertised (the
// Inspector calls only listed tools), in the Inspector's default (legacy)
// protocol era, checks its exit
// code and decodes the result it prints on stdout.
func inspector(t *testing.T, wantExit int, args ...string) map[string]any {
	t.Helper()
	home := t.TempDir()
	cli := []string{filepath.Join("node_modules", ".bin", "inspector"), "--cli", "--format", "json", "--quiet",
		"-e", "VOX_SKILL_ROOTS=" + fixtureSkills(),
		voxMCP, "--root", repoRoot, "--workspace-tools"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node22(t), append(cli, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MCP_CATALOG_PATH=" + filepath.Join(home, "mcp.json")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != wantExit {
		t.Fatalf("inspector %v: exit %d (%v), want %d\nstdout: %s\nstderr: %s", args, code, err, wantExit, &stdout, &stderr)
	}
	var envelope map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &envelope); err != nil {
		t.Fatalf("inspector %v printed no JSON object: %v\n%s", args, err, &stdout)
	}
	res, ok := envelope["result"].(map[string]any)
	if !ok {
		t.Fatalf("inspector %v: no result in %s", args, &stdout)
	}
	return res
}

// TestInspectorCLI runs every one-shot method of the Inspector CLI 2.12.0
// that vox-mcp serves. Completion and subscriptions are not among them:
// the CLI rejects --method resources/subscribe in one-shot mode (a stream
// method of its REPL), and its prompts/complete branch reads options the
// command line never sets; completion/complete and resources/subscribe
// are tested through the TypeScript client (skills.test.mjs,
// workspace.test.mjs) and the Go wire tests instead.
func TestInspectorCLI(t *testing.T) {
	t.Run("tools/list", func(t *testing.T) {
		res := inspector(t, inspectorOK, "--method", "tools/list")
		var names []string
		for _, tl := range res["tools"].([]any) {
			tool := tl.(map[string]any)
			names = append(names, tool["name"].(string))
			if tool["inputSchema"].(map[string]any)["type"] != "object" {
				t.Errorf("%s: input schema %v", tool["name"], tool["inputSchema"])
			}
		}
		for _, op := range catalog.Catalog.MCPTools() {
			if !slices.Contains(names, op.MCP.Name) {
				t.Errorf("the catalog tool %s is not listed: %v", op.MCP.Name, names)
			}
		}
		if !slices.IsSorted(names) {
			t.Errorf("tools/list is not sorted by name: %v", names)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		res := inspector(t, inspectorOK, "--method", "tools/call", "--tool-name", "vox_tool_search", "--tool-args-json", `{"query":"search tools","limit":1}`)
		if res["isError"] == true {
			t.Fatalf("vox_tool_search failed: %v", res)
		}
		hits := res["structuredContent"].(map[string]any)["results"].([]any)
		if len(hits) != 1 || hits[0].(map[string]any)["name"] != "vox_tool_search" {
			t.Errorf("results = %v", hits)
		}
		// A workspace tool written in Vox (examples/text.vox).
		slug := inspector(t, inspectorOK, "--method", "tools/call", "--tool-name", "slugify", "--tool-args-json", `{"title":"Hello Big World"}`)
		if sc, _ := slug["structuredContent"].(map[string]any); slug["isError"] == true || sc["result"] != "hello-big-world" {
			t.Errorf("slugify: %v", slug)
		}
		bad := inspector(t, inspectorToolIsError, "--method", "tools/call", "--tool-name", "vox_tool_search", "--tool-args-json", `{"query":42}`)
		content := bad["content"].([]any)
		if bad["isError"] != true || len(content) != 1 || content[0].(map[string]any)["text"] != "argument query: want string, got integer" {
			t.Errorf("a wrong argument type: %v", bad)
		}
	})
	t.Run("resources", func(t *testing.T) {
		list := inspector(t, inspectorOK, "--method", "resources/list")
		var uris []string
		for _, r := range list["resources"].([]any) {
			uris = append(uris, r.(map[string]any)["uri"].(string))
		}
		// Skill resources (text, the JSON index and a binary file) and a
		// workspace resource.
		reads := map[string]func(c map[string]any) bool{
			"skill://index.json": func(c map[string]any) bool {
				return c["mimeType"] == "application/json" && strings.Contains(str(c["text"]), `"url":"skill://release-notes/SKILL.md"`)
			},
			"skill://release-notes/SKILL.md": func(c map[string]any) bool {
				return strings.Contains(str(c["text"]), "name: release-notes")
			},
			"vox-mcp://examples/README.md": func(c map[string]any) bool { // a workspace resource (examples/text.vox)
				return c["mimeType"] == "text/markdown" && strings.HasPrefix(str(c["text"]), "# vox-mcp examples")
			},
			"skill://pdf-forms/assets/logo.png": func(c map[string]any) bool {
				return c["mimeType"] == "image/png" && strings.HasPrefix(str(c["blob"]), "iVBORw0KGgo") // base64 of the PNG signature
			},
		}
		for _, uri := range sortedKeys(reads) {
			if !slices.Contains(uris, uri) {
				t.Errorf("resources/list lacks %s: %v", uri, uris)
				continue
			}
			read := inspector(t, inspectorOK, "--method", "resources/read", "--uri", uri)
			contents, _ := read["contents"].([]any)
			if len(contents) != 1 {
				t.Errorf("resources/read %s: want one content, got %v", uri, read)
				continue
			}
			c := contents[0].(map[string]any)
			if c["uri"] != uri || !reads[uri](c) {
				t.Errorf("resources/read %s: %v", uri, c)
			}
		}
	})
	// Every installed skill is a prompt (docs/skills.md §9).
	t.Run("prompts", func(t *testing.T) {
		list := inspector(t, inspectorOK, "--method", "prompts/list")
		var names []string
		for _, p := range list["prompts"].([]any) {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		if !slices.Contains(names, "release-notes") || !slices.Contains(names, "pdf-forms") {
			t.Fatalf("prompts/list: %v", names)
		}
		got := inspector(t, inspectorOK, "--method", "prompts/get", "--prompt-name", "release-notes", "--prompt-args", "task=notes for v1.2")
		msgs := got["messages"].([]any)
		text := str(msgs[0].(map[string]any)["content"].(map[string]any)["text"])
		if !strings.HasSuffix(text, "\n\nTask: notes for v1.2") || len(msgs) < 2 {
			t.Errorf("prompts/get release-notes: %v", got)
		}
	})
	// Workspace resources with URI parameters are templates beside the
	// skill file template (docs/vox-language.md, Tools and resources).
	t.Run("resources/templates/list", func(t *testing.T) {
		list := inspector(t, inspectorOK, "--method", "resources/templates/list")
		byURI := map[string]map[string]any{}
		for _, tp := range list["resourceTemplates"].([]any) {
			m := tp.(map[string]any)
			byURI[str(m["uriTemplate"])] = m
		}
		skill, example := byURI["skill://{id}/{+path}"], byURI["vox-mcp://examples/files/{+path}"]
		if skill == nil || skill["name"] != "skill-file" || example == nil || example["name"] != "example_file" ||
			example["_meta"].(map[string]any)["vox_source"] != "workspace" {
			t.Fatalf("resources/templates/list: %v", list)
		}
		read := inspector(t, inspectorOK, "--method", "resources/read", "--uri", "vox-mcp://examples/files/data/notes.txt")
		notes, err := os.ReadFile(filepath.Join(repoRoot, "examples", "data", "notes.txt"))
		if err != nil {
			t.Fatal(err)
		}
		contents, _ := read["contents"].([]any)
		if len(contents) != 1 || contents[0].(map[string]any)["text"] != strings.ReplaceAll(string(notes), "\r\n", "\n") ||
			contents[0].(map[string]any)["uri"] != "vox-mcp://examples/files/data/notes.txt" {
			t.Errorf("resources/read of the template: %v", read)
		}
	})
	t.Run("initialize", func(t *testing.T) {
		caps, _ := inspector(t, inspectorOK, "--method", "initialize")["capabilities"].(map[string]any)
		res, _ := caps["resources"].(map[string]any)
		for _, c := range []string{"tools", "resources", "prompts", "logging", "completions"} {
			if caps[c] == nil {
				t.Errorf("initialize declares no %s: %v", c, caps)
			}
		}
		if res["subscribe"] != true || res["listChanged"] != true {
			t.Errorf("resources capability %v", res)
		}
	})
	t.Run("logging/setLevel", func(t *testing.T) {
		if res := inspector(t, inspectorOK, "--method", "logging/setLevel", "--log-level", "debug"); len(res) != 0 {
			t.Errorf("logging/setLevel: %v", res)
		}
	})
}

func str(v any) string { s, _ := v.(string); return s }

// TestInspectorVerifiesSkills: the Inspector CLI lists the skills through
// the skills extension (skills/list, served by the shim), reads every file
// of every manifest with resources/read and checks it against its size
// and SHA-256 digest, and checks each entry's front matter against the
// served SKILL.md. Every file verifies; the only skills it fails are the
// two whose SKILL.md has TOML front matter (the Vox plugin convention,
// docs/skills.md), which is no Agent Skills front matter.
func TestInspectorVerifiesSkills(t *testing.T) {
	node := node22(t)
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", ".bin", "inspector"), "--cli", "--format", "json", "--quiet",
		"-e", "VOX_SKILL_ROOTS="+fixtureSkills(), voxMCP, "--root", repoRoot, "--method", "skills/list", "--verify")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MCP_CATALOG_PATH=" + filepath.Join(home, "mcp.json")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != inspectorNonconformant {
		t.Fatalf("inspector skills/list --verify: exit %d, want %d (the TOML skills)\nstdout: %s\nstderr: %s", code, inspectorNonconformant, &stdout, &stderr)
	}
	var failed []string
	files := 0
	for line := range strings.SplitSeq(strings.TrimSpace(stdout.String()), "\n") {
		var report struct {
			URI         string `json:"uri"`
			OK          bool   `json:"ok"`
			Conformance []any  `json:"conformance"`
			Frontmatter []struct {
				Code string `json:"code"`
			} `json:"frontmatter"`
			Files []struct {
				URI    string `json:"uri"`
				Status string `json:"status"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(line), &report); err != nil {
			t.Fatalf("a report line %q: %v", line, err)
		}
		for _, f := range report.Files {
			files++
			if f.Status != "verified" {
				t.Errorf("%s: %s", f.URI, f.Status)
			}
		}
		if len(report.Conformance) > 0 {
			t.Errorf("%s: conformance issues %v", report.URI, report.Conformance)
		}
		if !report.OK {
			failed = append(failed, report.URI)
			for _, fm := range report.Frontmatter {
				if fm.Code != "frontmatter-unparsable" {
					t.Errorf("%s: front matter issue %s", report.URI, fm.Code)
				}
			}
		}
	}
	if want := []string{"skill://changelog-lint/SKILL.md", "skill://sql-review/SKILL.md"}; !slices.Equal(failed, want) {
		t.Errorf("failed skills %v, want only the TOML ones %v", failed, want)
	}
	if files < 20 {
		t.Errorf("only %d files verified: %s", files, &stdout)
	}

	got := inspector(t, inspectorOK, "--method", "skills/get", "--uri", "skill://release-notes/SKILL.md")
	skill, _ := got["skill"].(map[string]any)
	if files, _ := json.Marshal(skill["resources"]); skill["uri"] != "skill://release-notes/SKILL.md" || !strings.Contains(string(files), `"digest":"sha256:`) {
		t.Errorf("skills/get: %v", got)
	}
}

// mcpdo is the MCP Inspector's connection CLI (the pinned Inspector's
// mcpdo): one private daemon per test holds a stdio connection to vox-mcp,
// and each command is a separate mcpdo process against it, as an agent
// shell drives it.
type mcpdo struct {
	t    *testing.T
	node string
	env  []string
}

// newMCPDo starts nothing yet: the daemon starts with the first connect.
// catalog is the mcpServers catalog the connection named vox comes from.
func newMCPDo(t *testing.T, catalog map[string]any) *mcpdo {
	t.Helper()
	node := node22(t)
	home := t.TempDir()
	data, _ := json.Marshal(map[string]any{"mcpServers": catalog})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	d := &mcpdo{t: t, node: node, env: []string{
		"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "MCP_CATALOG_PATH=" + filepath.Join(home, "mcp.json"),
		"MCP_INSPECTOR_SECRET_STORE=memory",
	}}
	// A private daemon: an isolated, token-gated one for this test only.
	out, err := d.command(context.Background(), "private").Output()
	if err != nil {
		t.Fatalf("mcpdo private: %v", err)
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		if kv, ok := strings.CutPrefix(line, "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			d.env = append(d.env, k+"="+strings.Trim(v, "'"))
		}
	}
	t.Cleanup(func() { _ = d.command(context.Background(), "daemon", "stop").Run() })
	return d
}

func (d *mcpdo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, d.node, append([]string{filepath.Join("node_modules", ".bin", "mcpdo")}, args...)...)
	cmd.Env = d.env
	return cmd
}

// run runs one mcpdo command with --format json and decodes its output.
func (d *mcpdo) run(args ...string) map[string]any {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := d.command(ctx, append([]string{"--format", "json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		d.t.Fatalf("mcpdo %v: %v\nstdout: %s\nstderr: %s", args, err, &stdout, &stderr)
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		d.t.Fatalf("mcpdo %v printed no JSON object: %v\n%s", args, err, &stdout)
	}
	return out
}

// TestInspectorConnectionCLI drives vox-mcp with the Inspector's
// connection CLI: a skill used as a prompt (prompts/list, prompts/get),
// the log level set, a variable of the skill:// template completed, and a
// subscription to a skill file that hears the file change (--watch).
func TestInspectorConnectionCLI(t *testing.T) {
	skillsRoot := t.TempDir()
	if err := os.CopyFS(filepath.Join(skillsRoot, "go-bench"), os.DirFS(filepath.Join(fixtureSkills(), "go-bench"))); err != nil {
		t.Fatal(err)
	}
	d := newMCPDo(t, map[string]any{"vox": map[string]any{
		"command": voxMCP, "args": []string{"--root", t.TempDir(), "--watch"},
		"env": map[string]string{"VOX_SKILL_ROOTS": skillsRoot},
	}})
	if got := d.run("connect", "vox"); got["name"] != "vox" {
		t.Fatalf("connect: %v", got)
	}

	prompts := d.run("@vox", "prompts/list")
	if names := fmt.Sprint(prompts["prompts"]); !strings.Contains(names, "name:go-bench") {
		t.Errorf("prompts/list: %v", prompts)
	}
	got := d.run("@vox", "prompts/get", "go-bench", "--prompt-args", "task=profile the parser")
	if msgs, _ := json.Marshal(got["messages"]); !strings.Contains(string(msgs), "profile the parser") {
		t.Errorf("prompts/get go-bench: %v", got)
	}

	if got := d.run("@vox", "logging/setLevel", "debug"); got == nil {
		t.Error("logging/setLevel answered nothing")
	}

	completion := d.run("@vox", "prompts/complete", "--complete-ref-type", "ref/resource",
		"--complete-ref", "skill://{id}/{+path}", "--complete-arg-name", "id", "--complete-arg-value", "go")
	if values := fmt.Sprint(completion["values"]); values != "[go-bench]" {
		t.Errorf("completion of the skill id 'go': %v", completion)
	}

	// resources/subscribe streams: its output says subscribed, then one
	// line per notifications/resources/updated, until it is stopped.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := d.command(ctx, "--format", "json", "@vox", "resources/subscribe", "skill://go-bench/SKILL.md")
	var out lockedBuffer
	sub.Stdout, sub.Stderr = &out, &out
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = sub.Wait() }()
	skillMD := filepath.Join(skillsRoot, "go-bench", "SKILL.md")
	original, err := os.ReadFile(skillMD)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for i := 0; !strings.Contains(out.String(), `"resources/updated"`); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no update of the subscribed skill file after editing it:\n%s", out.String())
		}
		// Edit again until heard: the subscription and the watches are
		// set up in the background.
		edited := strings.Replace(string(original), "description: ", "description: Edited "+strings.Repeat("again ", i), 1)
		if err := os.WriteFile(skillMD, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !strings.Contains(out.String(), `"uri": "skill://go-bench/SKILL.md"`) {
		t.Errorf("the subscription's output: %s", out.String())
	}
}
