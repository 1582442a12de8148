package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestLSPClient runs lsp/lsp.test.mjs: Microsoft's
// vscode-languageserver-protocol client (pinned in package.json) drives
// `vox lsp` over stdio — diagnostics on open and change, hover,
// definition, completion, signature help, a quick fix at the cursor,
// document and workspace symbols, references, rename, inlay hints,
// folding ranges and semantic tokens.
func TestLSPClient(t *testing.T) {
	if _, err := os.Stat("node_modules/vscode-languageserver-protocol/package.json"); err != nil {
		t.Fatal("the LSP client is not installed: run `make deps` (npm ci in e2e/)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the end-to-end tests need Node.js 20 or later")
	}
	vox := filepath.Join(t.TempDir(), "vox")
	build := exec.Command("go", "build", "-o", vox, "./cmd/vox")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/vox: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join("lsp", "lsp.test.mjs"))
	cmd.Env = append(os.Environ(), "VOX_BIN="+vox)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("node --test output:\n%s", out.String())
	if err != nil {
		t.Fatalf("the LSP client test failed: %v", err)
	}
}
