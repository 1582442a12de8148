// Package e2e drives the vox-mcp binary with real MCP clients, all pinned
// in package.json and installed by `npm ci` in this folder (which `make
// deps` runs):
//
//   - the official TypeScript SDK (*.test.mjs, run with the machine's
//     Node.js, 20 or later, by Node's test runner) over stdio and HTTP,
//     and its client-credentials OAuth provider against a real
//     authorization server (oauth/, oauth_test.go);
//   - the MCP conformance suite against `vox-mcp --http`, with the
//     expected-failures baseline in conformance-baseline.yml, and both
//     pinned suites (0.1.16; 0.2.0-alpha.12 as conformance-next, for
//     protocol 2026-07-28) against the conformance workspace in Vox,
//     conformance/, with none (conformance_workspace_test.go);
//   - the MCP Inspector CLI over stdio;
//   - Go clients (mcp-go) for the soak test and the load benchmarks
//     (BenchmarkToolsCall, BenchmarkIdleRSS; `make load`);
//   - the documentation test, which runs every sh block of README.md and
//     docs/*.md (docs_test.go says how).
//
// The conformance suite and the Inspector need Node.js 22: they run with
// the binary of the pinned npm package "node" (node_modules/.bin/node).
// TestMain builds vox-mcp once for every test.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// voxMCP is the binary under test, built by TestMain.
var voxMCP string

// repoRoot is the repository the binary is built from and serves.
var repoRoot string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "vox-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	voxMCP = filepath.Join(dir, "vox-mcp")
	build := exec.Command("go", "build", "-o", voxMCP, "./cmd/vox-mcp")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/vox-mcp: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// node22 is the Node.js 22 binary of the pinned npm package "node".
func node22(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal("node_modules/.bin/node (Node.js 22 from the npm package node) is missing: run `make deps` (npm ci in e2e/)")
	}
	return bin
}

func TestTypeScriptClient(t *testing.T) {
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk/package.json"); err != nil {
		t.Fatal("the TypeScript client is not installed: run `make deps` (npm ci in e2e/)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the end-to-end tests need Node.js 20 or later")
	}
	tests, _ := filepath.Glob("*.test.mjs")
	if len(tests) == 0 {
		t.Fatal("no *.test.mjs files")
	}
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	cmd.Env = append(os.Environ(), "VOX_MCP_BIN="+voxMCP, "VOX_REPO_ROOT="+repoRoot)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("node --test output:\n%s", out.String())
	if err != nil {
		t.Fatalf("the TypeScript client tests failed: %v", err)
	}
}
