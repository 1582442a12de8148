package vox

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCompileCorpus compiles the realistic corpus (32 files of tools
// mixed with the wider language): the per-file cost of a workspace refresh.
func BenchmarkCompileCorpus(b *testing.B) {
	files, _ := filepath.Glob("testdata/corpus/*.vox")
	var srcs [][]byte
	var total int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, data)
		total += int64(len(data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if m := Compile(files[i], src); m.HasErrors() {
				b.Fatal(m.Diagnostics())
			}
		}
	}
}
