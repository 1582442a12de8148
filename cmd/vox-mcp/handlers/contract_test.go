package handlers_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/gen"
)

// TestContractIsCheckedByTheCompiler builds vox-mcp with go build
// -overlay, so that nothing in the tree changes: a catalog tool without
// its method, and a method whose row left the catalog, both fail the
// build (docs/contracts.md §5).
func TestContractIsCheckedByTheCompiler(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vox-mcp twice")
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	build := func(overlay map[string]string) string {
		t.Helper()
		tmp := t.TempDir()
		replace := map[string]string{}
		for path, data := range overlay {
			p := filepath.Join(tmp, strings.ReplaceAll(path, "/", "_"))
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			replace[filepath.Join(repo, filepath.FromSlash(path))] = p
		}
		spec, _ := json.Marshal(map[string]any{"Replace": replace})
		ov := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(ov, spec, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-overlay", ov, "-o", os.DevNull, "./cmd/vox-mcp")
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("go build succeeded with %v", overlay)
		}
		return string(out)
	}

	// A tool without its method: the handler file without VoxCheck.
	src, err := os.ReadFile(filepath.Join(repo, "cmd", "vox-mcp", "handlers", "tools.go"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), "// VoxCheck compiles")
	j := strings.Index(string(src), "// readWorkspaceFile reads")
	if i < 0 || j < i {
		t.Fatal("tools.go no longer has VoxCheck where this test expects it")
	}
	noMethod := string(src[:i]) + string(src[j:])
	noMethod = strings.Replace(noMethod, "\t\"github.com/vox-lang/vox-mcp/internal/vox\"\n", "", 1)
	if out := build(map[string]string{"cmd/vox-mcp/handlers/tools.go": noMethod}); !strings.Contains(out, "missing method VoxCheck") {
		t.Errorf("a tool without its method: want \"missing method VoxCheck\", got:\n%s", out)
	}

	// A method without its row: the tables generated from the catalog
	// without the vox_check row.
	cat, err := os.ReadFile(filepath.Join(repo, "contracts", "operations", "catalog.v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	i = strings.Index(string(cat), "  - id: workspace.check\n")
	j = strings.Index(string(cat), "  # --- skills")
	if i < 0 || j < i {
		t.Fatal("the catalog no longer has the vox_check row where this test expects it")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "contracts", "operations"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "contracts", "operations", "catalog.v1.yaml"), append(cat[:i:i], cat[j:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := gen.Generate(root, true)
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]string{}
	for _, f := range res.Files {
		overlay[f.Path] = string(f.Data)
	}
	if out := build(overlay); !strings.Contains(out, "undefined: catalog.VoxCheckArgs") {
		t.Errorf("a method without its row: want \"undefined: catalog.VoxCheckArgs\", got:\n%s", out)
	}
}
