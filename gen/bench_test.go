package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGenerate measures a whole Generate(root, write=false) run —
// load, validate, render, compare — on synthetic repositories: a catalog
// of ops rows and a workspace of vox one-tool .vox files (scanned,
// compiled and snapshotted into generated/workspace). The ratio of the two
// sizes shows how generation scales (target: 10× input ≤ 11× time; under
// 1 s for the first).
func BenchmarkGenerate(b *testing.B) {
	for _, size := range []struct{ ops, vox int }{{5000, 1000}, {50000, 10000}} {
		ops := size.ops
		b.Run(fmt.Sprintf("ops=%d,vox=%d", size.ops, size.vox), func(b *testing.B) {
			root := b.TempDir()
			p := filepath.Join(root, "contracts", "operations", "catalog.v1.yaml")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, syntheticCatalog(ops, false), 0o644); err != nil {
				b.Fatal(err)
			}
			writeSyntheticWorkspace(b, root, size.vox)
			if _, err := Generate(root, true); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				res, err := Generate(root, false)
				if err != nil || len(res.Stale()) != 0 {
					b.Fatalf("err=%v stale=%d", err, len(res.Stale()))
				}
			}
		})
	}
}
