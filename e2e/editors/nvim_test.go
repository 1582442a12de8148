package editors

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The file Neovim opens: add is called with a typo'd name beside it
// (totl, undefined: a diagnostic with a help line), and add(2, 3) is what
// hover and definition are asked about.
const nvimFile = `fn add(a: int, b: int) to int {
    a + b
}

@tool "Add two numbers"
fn sum(total: int) to int {
    add(2, 3) + totl
}
`

// TestNeovimLSP runs Debian's Neovim headless with editors/nvim/vox.lua
// as a user's configuration would load it, against the vox binary built
// here: the file's diagnostics arrive, hover and definition answer, and a
// second file of the same root shares the server.
func TestNeovimLSP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vox and runs Neovim")
	}
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("VOX_TEST_REQUIRE_NVIM") == "1" {
			t.Fatal("nvim is not on PATH; make deps installs it (apt-get install neovim)")
		}
		t.Skip("nvim is not on PATH (make deps installs it; VOX_TEST_REQUIRE_NVIM=1 fails instead)")
	}
	dir := t.TempDir()
	vox := filepath.Join(dir, "vox")
	build := exec.Command("go", "build", "-o", vox, "./cmd/vox")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/vox: %v\n%s", err, out)
	}
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(project, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(project, "tools", "sum.vox")
	if err := os.WriteFile(file, []byte(nvimFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "tools", "other.vox"), []byte("fn other() to int { 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plugin, _ := filepath.Abs("../../editors/nvim/vox.lua")
	script, _ := filepath.Abs("../../editors/nvim/test/lsp_test.lua")
	out := filepath.Join(dir, "results.json")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// --clean: no user configuration or plugins; the script loads vox.lua
	// itself. A private XDG state keeps Neovim's log and shada here.
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-c", "luafile "+script)
	cmd.Dir = project
	cmd.Env = append(os.Environ(),
		"VOX_NVIM_PLUGIN="+plugin, "VOX_BIN="+vox, "VOX_NVIM_FILE="+file, "VOX_NVIM_OUT="+out,
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var stdio bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdio, &stdio
	cmd.Stdin = nil
	if err := cmd.Run(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, stdio.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no results: %v\n%s", err, stdio.String())
	}
	t.Logf("results: %s", raw)
	var r struct {
		Version                 struct{ Major, Minor, Patch int }
		Error                   string
		Filetype, Commentstring string
		Clients                 []struct {
			Name    string
			RootDir string `json:"root_dir"`
		}
		Diagnostics []struct {
			Lnum, Col, Severity int
			Message, Source     string
			Code                any
		}
		Hover      json.RawMessage
		Definition struct {
			URI   string `json:"uri"`
			Range struct {
				Start struct{ Line, Character int }
			}
		}
		Omnifunc       string
		MapK           string `json:"map_k"`
		MapGd          string `json:"map_gd"`
		SameClient     bool   `json:"same_client"`
		ClientsRunning int    `json:"clients_running"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("results: %v", err)
	}
	if r.Error != "" {
		t.Fatalf("the Neovim script failed: %s\n%s", r.Error, stdio.String())
	}
	if r.Filetype != "vox" || r.Commentstring != "// %s" {
		t.Errorf("filetype %q, commentstring %q; want vox and // %%s", r.Filetype, r.Commentstring)
	}
	if len(r.Clients) != 1 || r.Clients[0].Name != "vox" || r.Clients[0].RootDir != project {
		t.Errorf("clients %+v, want one named vox rooted at %s (the folder with .git)", r.Clients, project)
	}
	var typo bool
	for _, d := range r.Diagnostics {
		if d.Lnum == 6 && strings.Contains(d.Message, "totl") && d.Source == "vox" {
			typo = true
		}
	}
	if !typo {
		t.Errorf("no diagnostic about totl on line 7 from vox; got %+v", r.Diagnostics)
	}
	if !strings.Contains(string(r.Hover), "fn add(a: int, b: int) to int") {
		t.Errorf("hover on add: %s, want its signature", r.Hover)
	}
	if !strings.HasSuffix(r.Definition.URI, "/tools/sum.vox") || r.Definition.Range.Start.Line != 0 {
		t.Errorf("definition of add: %+v, want line 0 of tools/sum.vox", r.Definition)
	}
	if r.Omnifunc != "v:lua.vim.lsp.omnifunc" || !strings.Contains(r.MapK, "vim.lsp.buf.hover") || !strings.Contains(r.MapGd, "vim.lsp.buf.definition") {
		t.Errorf("on attach: omnifunc %q, K %q, gd %q; want the LSP's omnifunc, hover and definition", r.Omnifunc, r.MapK, r.MapGd)
	}
	if !r.SameClient || r.ClientsRunning != 1 {
		t.Errorf("a second file of the same root: same client %v, %d clients running; want one shared server", r.SameClient, r.ClientsRunning)
	}
	t.Logf("Neovim %d.%d.%d", r.Version.Major, r.Version.Minor, r.Version.Patch)
}
