// Package editors tests what the repository ships for editors
// (editors/, docs/vox-lsp.md §3):
//
//   - the VS Code extension's TextMate grammar, tokenized by
//     vscode-textmate and vscode-oniguruma (the libraries VS Code
//     highlights with) against golden tokenizations
//     (editors/vscode/test/grammar.test.mjs, run by Node's test runner);
//   - the client, extension.js, against fakes of VS Code and of its
//     library (editors/vscode/test/extension.test.mjs);
//   - the extension packaged as a .vsix by @vscode/vsce, and the archive
//     checked to hold the manifest, the grammar, the language
//     configuration and the client with its library;
//   - editors/nvim/vox.lua in Debian's Neovim, headless, as a real LSP
//     client of `vox lsp`: diagnostics of a file with an error, hover and
//     definition (editors/nvim/test/lsp_test.lua).
//
// The npm tools are pinned in editors/vscode/package-lock.json and
// installed by `make deps` (npm ci there), which also installs Neovim
// (apt-get). Missing tools fail the tests under `make test`, which sets
// VOX_TEST_REQUIRE_NVIM=1; elsewhere a missing Neovim skips its test.
// -short skips the packing and Neovim (they build and spawn).
package editors

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden tokenizations of editors/vscode/test/testdata")

const extDir = "../../editors/vscode"

// npmTools fails the test when the extension's npm packages are not
// installed, and returns node.
func npmTools(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"vscode-textmate", "vscode-oniguruma", "@vscode/vsce", "vscode-languageclient"} {
		if _, err := os.Stat(filepath.Join(extDir, "node_modules", p, "package.json")); err != nil {
			t.Fatalf("%s is not installed in editors/vscode: run `make deps` (npm ci there)", p)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the editor tests need Node.js 20 or later")
	}
	return node
}

func TestVSCodeGrammar(t *testing.T) {
	t.Parallel()
	env := []string{"VOX_KEYWORDS=" + strings.Join(keywords(), ",")}
	if *update {
		env = append(env, "VOX_UPDATE_GOLDEN=1")
	}
	nodeTest(t, "grammar.test.mjs", env)
}

// TestVSCodeClient runs extension.js against fakes of VS Code and of
// vscode-languageclient: the settings choose the command, a change
// restarts the server, a failure to start says what to set.
func TestVSCodeClient(t *testing.T) {
	t.Parallel()
	nodeTest(t, "extension.test.mjs", nil)
}

// nodeTest runs one test file of editors/vscode/test with Node's test
// runner.
func nodeTest(t *testing.T, file string, env []string) {
	t.Helper()
	node := npmTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join("test", file))
	cmd.Dir = extDir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("node --test output:\n%s", out.String())
	if err != nil {
		t.Fatalf("%s failed: %v", file, err)
	}
}

// TestVSCodePackage packs the extension with the pinned vsce, as a
// release would, and checks what the .vsix holds. --skip-license: the
// repository has no licence file, so the extension declares none
// (editors/vscode/README.md).
func TestVSCodePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("packs the extension with vsce")
	}
	t.Parallel()
	node := npmTools(t)
	vsix := filepath.Join(t.TempDir(), "vox.vsix")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	vsce := filepath.Join("node_modules", "@vscode", "vsce", "vsce")
	cmd := exec.CommandContext(ctx, node, vsce, "package", "--skip-license", "--out", vsix)
	cmd.Dir = extDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vsce package: %v\n%s", err, out)
	}
	zr, err := zip.OpenReader(vsix)
	if err != nil {
		t.Fatalf("the .vsix is not a zip: %v", err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	read := func(name string) []byte {
		t.Helper()
		f := files[name]
		if f == nil {
			t.Fatalf("the .vsix has no %s; it holds:\n%s", name, strings.Join(names(zr.File), "\n"))
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var manifest struct {
		Main        string `json:"main"`
		Contributes struct {
			Languages []struct {
				ID            string   `json:"id"`
				Extensions    []string `json:"extensions"`
				Configuration string   `json:"configuration"`
			} `json:"languages"`
			Grammars []struct {
				Language  string `json:"language"`
				ScopeName string `json:"scopeName"`
				Path      string `json:"path"`
			} `json:"grammars"`
			Configuration struct {
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(read("extension/package.json"), &manifest); err != nil {
		t.Fatalf("extension/package.json: %v", err)
	}
	c := manifest.Contributes
	if len(c.Languages) != 1 || c.Languages[0].ID != "vox" || strings.Join(c.Languages[0].Extensions, ",") != ".vox" {
		t.Fatalf("the extension contributes the languages %+v, want vox for .vox", c.Languages)
	}
	if len(c.Grammars) != 1 || c.Grammars[0].Language != "vox" || c.Grammars[0].ScopeName != "source.vox" {
		t.Fatalf("the extension contributes the grammars %+v, want source.vox for vox", c.Grammars)
	}
	if d := c.Configuration.Properties["vox.lsp.path"].Default; d != "vox" {
		t.Errorf("vox.lsp.path defaults to %v, want vox", d)
	}
	if d, _ := json.Marshal(c.Configuration.Properties["vox.lsp.args"].Default); string(d) != `["lsp"]` {
		t.Errorf("vox.lsp.args defaults to %s, want [\"lsp\"]", d)
	}
	// What the manifest points at is in the archive, byte for byte the
	// repository's files.
	for _, rel := range []string{manifest.Main, c.Languages[0].Configuration, c.Grammars[0].Path} {
		name := "extension/" + strings.TrimPrefix(rel, "./")
		want, err := os.ReadFile(filepath.Join(extDir, filepath.FromSlash(strings.TrimPrefix(rel, "./"))))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(read(name), want) {
			t.Errorf("%s in the .vsix differs from the repository's", name)
		}
	}
	var grammar struct {
		ScopeName string `json:"scopeName"`
	}
	if err := json.Unmarshal(read("extension/"+strings.TrimPrefix(c.Grammars[0].Path, "./")), &grammar); err != nil || grammar.ScopeName != "source.vox" {
		t.Errorf("the grammar in the .vsix: scopeName %q, %v", grammar.ScopeName, err)
	}
	// The client requires vscode-languageclient/node: the library and its
	// protocol are shipped, the development tools are not.
	read("extension/node_modules/vscode-languageclient/lib/node/main.js")
	read("extension/node_modules/vscode-languageserver-protocol/package.json")
	read("extension.vsixmanifest")
	for name := range files {
		for _, dev := range []string{"extension/test/", "extension/node_modules/@vscode/vsce/", "extension/node_modules/vscode-textmate/", "extension/node_modules/vscode-oniguruma/"} {
			if strings.HasPrefix(name, dev) {
				t.Errorf("the .vsix ships %s, which is for development only", name)
			}
		}
	}
	if !strings.Contains(string(read("extension/extension.js")), `getConfiguration("vox.lsp")`) {
		t.Error("extension.js does not read the vox.lsp settings")
	}
}

// keywords are the reserved words of the lexer: the grammar test checks
// that it colours each of them as a keyword, so that a word added to the
// language fails it until the grammar knows it.
func keywords() []string {
	var out []string
	for t := 0; t < 256; t++ {
		if tok := syntax.Token(t); tok.IsKeyword() {
			out = append(out, tok.String())
		}
	}
	return out
}

func names(fs []*zip.File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}
