package main

import (
	"bufio"
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

// TestGenAppBuildsAndServes generates an app from the repository's
// examples, builds it with the command vox prints — plain go build, with
// GOPROXY=off as the proof that nothing is fetched: the written go.mod
// and go.sum are complete, and the module cache that built vox holds every
// dependency — and drives it over stdio.
func TestGenAppBuildsAndServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := repoRoot(t)
	dir := filepath.Join(t.TempDir(), "slugs")
	code, out, errOut := vox(t, "gen", "app", "--out", dir, "--module", "example.com/slugs", "--replace", root, filepath.Join(root, "examples", "text.vox"))
	if code != 0 {
		t.Fatalf("vox gen app: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "build it with: cd "+dir+" && go build") {
		t.Errorf("printed build command: %s", out)
	}
	for _, f := range []string{"main.go", "tables.go", "go.mod", "go.sum", "vox/text.vox"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	build := exec.Command(goBin, "build", "-o", "slugs.bin", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// The app links the runtime, not this repository's tables: no symbol
	// of generated/ (the catalog, the workspace snapshot), gen/ or the
	// handlers of vox-mcp is in the binary.
	nm, err := exec.Command(goBin, "tool", "nm", filepath.Join(dir, "slugs.bin")).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, pkg := range []string{"github.com/vox-lang/vox-mcp/generated/", "github.com/vox-lang/vox-mcp/gen.", "github.com/vox-lang/vox-mcp/cmd/vox-mcp/handlers."} {
		if strings.Contains(string(nm), pkg) {
			t.Errorf("the app binary links %s", pkg)
		}
	}
	if !strings.Contains(string(nm), "github.com/vox-lang/vox-mcp/runtime/app.Main") {
		t.Error("go tool nm shows no runtime/app.Main: the check above would see nothing")
	}

	call := startApp(t, filepath.Join(dir, "slugs.bin"), "--root", root)
	init := call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	if name := init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"]; name != "slugs" {
		t.Errorf("server name = %v", name)
	}
	var names []string
	for _, tl := range call(2, "tools/list", `{}`)["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, " "); got != "fibonacci slugify" {
		t.Errorf("tools = %s: want only the tools of examples/text.vox", got)
	}
	res := call(3, "resources/list", `{}`)["result"].(map[string]any)["resources"].([]any)
	if len(res) != 1 || res[0].(map[string]any)["uri"] != "vox-mcp://examples/README.md" {
		t.Errorf("resources = %v", res)
	}
	appCallChecks(t, call)
}

// startApp starts a built app and returns the function that sends it
// one request and waits for its answer.
func startApp(t *testing.T, bin string, args ...string) func(id int, method, params string) map[string]any {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	return func(id int, method, params string) map[string]any {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		if method == "initialize" {
			defer fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		done := make(chan map[string]any, 1)
		go func() {
			for lines.Scan() {
				var msg map[string]any
				if json.Unmarshal(lines.Bytes(), &msg) == nil && msg["id"] == float64(id) {
					done <- msg
					return
				}
			}
			close(done)
		}()
		select {
		case msg := <-done:
			if msg == nil {
				t.Fatalf("%s: the app closed its output", method)
			}
			return msg
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer", method)
		}
		return nil
	}
}

// appCallChecks calls the app's tools (needs internal/vox Module.Call).
func appCallChecks(t *testing.T, call func(int, string, string) map[string]any) {
	r := call(4, "tools/call", `{"name":"slugify","arguments":{"title":"Hello Vox World"}}`)["result"].(map[string]any)
	if r["isError"] == true || r["content"].([]any)[0].(map[string]any)["text"] != "hello-vox-world" {
		t.Errorf("slugify = %v", r)
	}
	rr := call(5, "resources/read", `{"uri":"vox-mcp://examples/README.md"}`)["result"].(map[string]any)["contents"].([]any)
	if len(rr) != 1 || !strings.HasPrefix(rr[0].(map[string]any)["text"].(string), "# vox-mcp examples") {
		t.Errorf("readme = %v", rr)
	}
}

// TestGenAppEmbedsEveryName: sources whose names a //go:embed of the vox
// folder would skip (starting with _ or .) and one with a space are
// embedded; the app builds, starts and answers a call of each tool.
func TestGenAppEmbedsEveryName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	src := t.TempDir()
	tools := map[string]string{"plain.vox": "plain", "_under.vox": "under", ".dot.vox": "dot", "two words.vox": "spaced"}
	var files []string
	for name, fn := range tools {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte("@tool \"T\"\nfn "+fn+"() to str { \""+fn+" answers\" }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	dir := filepath.Join(t.TempDir(), "names")
	if code, out, errOut := vox(t, append([]string{"gen", "app", "--out", dir, "--module", "example.com/names", "--replace", repoRoot(t)}, files...)...); code != 0 {
		t.Fatalf("vox gen app: exit %d\n%s%s", code, out, errOut)
	}
	build := exec.Command(goBin, "build", "-o", "names.bin", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	call := startApp(t, filepath.Join(dir, "names.bin"), "--root", src)
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	id := 2
	for _, fn := range tools {
		r := call(id, "tools/call", `{"name":"`+fn+`","arguments":{}}`)
		id++
		res, _ := r["result"].(map[string]any)
		if res == nil || res["isError"] == true || res["content"].([]any)[0].(map[string]any)["text"] != fn+" answers" {
			t.Errorf("%s: %v", fn, r)
		}
	}
}
