// Package wine runs vox-mcp.exe, built for windows/amd64, under Wine and
// drives it over stdio (make test-windows; docs/platforms.md). It needs
// VOX_TEST_WINE, the program that runs a Windows binary
// (scripts/wine/exec): without it the test is skipped, unless
// VOX_TEST_REQUIRE_WINE=1 (make test sets both), where it fails.
package wine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// winPath is the Windows name of the host path p in Wine's default prefix,
// whose drive Z: is the host's root folder.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

type client struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	id     int
}

// call sends a request and returns its result, skipping the server's
// notifications and requests in between; a JSON-RPC error fails the test.
func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		c.t.Fatalf("%s: write: %v\nstderr:\n%s", method, err, c.stderr)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: read: %v\nstderr:\n%s", method, err, c.stderr)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result map[string]any  `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("%s: not JSON: %q", method, line)
		}
		if m.ID == nil || m.Method != "" || *m.ID != c.id {
			continue // a notification or a request of the server
		}
		if m.Error != nil {
			c.t.Fatalf("%s: error %s", method, m.Error)
		}
		return m.Result
	}
}

func (c *client) notify(method string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.in.Write(append(msg, '\n'))
}

// toolText is the text of a tools/call result, and whether it is an error.
func toolText(res map[string]any) (string, bool) {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

// TestStdioUnderWine: vox-mcp.exe initialises, lists its tools, runs a
// workspace tool that reads a file (and refuses a backslash path as on
// Linux), serves the edit of a .vox file after vox_workspace_mcp_refresh,
// and reads a skill resource.
func TestStdioUnderWine(t *testing.T) {
	wine := os.Getenv("VOX_TEST_WINE")
	if wine == "" {
		if os.Getenv("VOX_TEST_REQUIRE_WINE") == "1" {
			t.Fatal("VOX_TEST_WINE is not set: run make test-windows (make deps prepares Wine)")
		}
		t.Skip("set VOX_TEST_WINE to scripts/wine/exec (make test-windows does) to run vox-mcp.exe under Wine")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "vox-mcp.exe")
	build := exec.Command("go", "build", "-o", exe, "./cmd/vox-mcp")
	build.Dir = repo
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build vox-mcp.exe: %v\n%s", err, out)
	}

	ws := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data/greeting.txt", "hello")
	write("tools/hello.vox", "@tool \"Greets\"\nfn hello(name: str) -> str {\n  fs.read(\"data/greeting.txt\").unwrap() + \" \" + name\n}\n\n@tool \"Reads a path\"\nfn read(p: str) -> str {\n  fs.read(p).unwrap()\n}\n")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, wine, exe, "--root", winPath(ws), "--workspace-tools")
	cmd.Env = append(os.Environ(), "VOX_SKILL_ROOTS="+winPath(filepath.Join(repo, "internal", "skills", "testdata", "skills")))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s %s: %v", wine, exe, err)
	}
	defer func() {
		in.Close() // end of input: the server exits
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	c := &client{t: t, in: in, out: bufio.NewReader(out), stderr: &stderr}

	init := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "wine-smoke", "version": "1"}})
	if info, _ := init["serverInfo"].(map[string]any); info["name"] != "vox-mcp" {
		t.Fatalf("initialize: %v", init)
	}
	c.notify("notifications/initialized")

	// The first list waits for the first scan, but at most 5 s
	// (docs/federation.md §6, "The first list"), which a scan under Wine
	// on a loaded machine may exceed: the workspace tools then follow
	// with list_changed, so the list is asked again until they are in it.
	var tools map[string]bool
	for deadline := time.Now().Add(2 * time.Minute); ; {
		tools = map[string]bool{}
		for _, tl := range c.call("tools/list", map[string]any{})["tools"].([]any) {
			tools[tl.(map[string]any)["name"].(string)] = true
		}
		if tools["hello"] || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, name := range []string{"hello", "read", "vox_workspace_mcp_refresh", "vox_skill_list"} {
		if !tools[name] {
			t.Errorf("tools/list lacks %s: %v", name, tools)
		}
	}

	callTool := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		return toolText(c.call("tools/call", map[string]any{"name": name, "arguments": args}))
	}
	if text, isErr := callTool("hello", map[string]any{"name": "wine"}); isErr || text != "hello wine" {
		t.Errorf("hello: %q (error %v), want \"hello wine\"", text, isErr)
	}
	// The path rule is the same here as on Linux (docs/security.md,
	// "Path rules").
	if text, isErr := callTool("read", map[string]any{"p": `data\greeting.txt`}); !isErr || !strings.Contains(text, `write "data/greeting.txt"`) {
		t.Errorf(`read("data\\greeting.txt"): %q (error %v), want the backslash refused, naming data/greeting.txt`, text, isErr)
	}
	if text, isErr := callTool("read", map[string]any{"p": "data/greeting.txt"}); isErr || text != "hello" {
		t.Errorf(`read("data/greeting.txt"): %q (error %v)`, text, isErr)
	}

	write("tools/hello.vox", "@tool \"Greets\"\nfn hello(name: str) -> str {\n  \"bonjour \" + name\n}\n")
	if text, isErr := callTool("vox_workspace_mcp_refresh", map[string]any{}); isErr {
		t.Fatalf("vox_workspace_mcp_refresh: %s", text)
	}
	if text, isErr := callTool("hello", map[string]any{"name": "wine"}); isErr || text != "bonjour wine" {
		t.Errorf("hello after the edit and a refresh: %q (error %v), want \"bonjour wine\"", text, isErr)
	}

	res := c.call("resources/read", map[string]any{"uri": "skill://csv-insights/SKILL.md"})
	contents, _ := res["contents"].([]any)
	if len(contents) != 1 || !strings.Contains(fmt.Sprint(contents[0].(map[string]any)["text"]), "name: csv-insights") {
		t.Errorf("skill://csv-insights/SKILL.md: %v", res)
	}
}
