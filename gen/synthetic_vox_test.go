package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// writeSyntheticWorkspace adds a scan config and n .vox files of one tool
// each (with a parameter of each kind and a default) to root.
func writeSyntheticWorkspace(tb testing.TB, root string, n int) {
	tb.Helper()
	cfg := filepath.Join(root, filepath.FromSlash(workspace.ConfigPath))
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	if err := os.WriteFile(cfg, []byte("scan_globs: [\"tools/**/*.vox\"]\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		dir := filepath.Join(root, "tools", fmt.Sprintf("g%02d", i%64))
		os.MkdirAll(dir, 0o755)
		src := fmt.Sprintf(`// Synthetic workspace tool %d.
@tool "Scale the numbers of batch %d and label them"
fn batch_%05d(values: list[int], factor: float = 1.5, label: str = "b%d", strict: bool = false) to list[float] {
    values.map(fn(v) v * factor)
}
`, i, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%05d.vox", i)), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
