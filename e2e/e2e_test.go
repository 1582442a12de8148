// Package e2e drives the vox-mcp binary with real MCP clients: the
// official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json and installed by `npm ci` in this folder, which `make
// deps` runs). The Go test builds the binary, then runs every *.test.mjs
// file with Node's test runner.
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestTypeScriptClient(t *testing.T) {
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk/package.json"); err != nil {
		t.Fatal("the TypeScript client is not installed: run `make deps` (npm ci in e2e/)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the end-to-end tests need Node.js 20 or later")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "vox-mcp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vox-mcp")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tests, _ := filepath.Glob("*.test.mjs")
	if len(tests) == 0 {
		t.Fatal("no *.test.mjs files")
	}
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	cmd.Env = append(os.Environ(), "VOX_MCP_BIN="+bin, "VOX_REPO_ROOT="+repo)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("node --test output:\n%s", out.String())
	if err != nil {
		t.Fatalf("the TypeScript client tests failed: %v", err)
	}
}
