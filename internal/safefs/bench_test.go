package safefs

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkStat is the check a workspace call makes of its tool's file.
func BenchmarkStat(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "tools"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "a.vox"), []byte("x"), 0o644)
	r, err := OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.Run("safefs", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Stat("tools/a.vox"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.Stat", func(b *testing.B) {
		p := filepath.Join(dir, "tools", "a.vox")
		for b.Loop() {
			if _, err := os.Stat(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
