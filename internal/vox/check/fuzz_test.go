package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
)

// FuzzCheck compiles arbitrary text with every checker option and asks
// the editor queries about positions in it: the checker never panics
// (Compile would turn a panic into vox/internal/panic), never overflows
// the stack, and positions every diagnostic inside the file.
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{"../testdata/corpus/*.vox", "../testdata/check/*.vox", "../testdata/run/*.vox"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, chunk := range strings.Split(string(data), "\n---\n") {
				f.Add(chunk)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m := vox.CompileWith("f.vox", []byte(src), check.Options{Compat: true, Record: true})
		lines := strings.Count(src, "\n") + 1
		for _, d := range m.Diagnostics() {
			if d.Code == "vox/internal/panic" {
				t.Fatalf("panic: %s", d.Message)
			}
			if d.Line < 1 || d.Line > lines || d.Col < 1 || !strings.HasPrefix(d.Code, "vox/") {
				t.Fatalf("diagnostic outside the file: %s", d)
			}
		}
		r := m.Check()
		for i, line := range strings.Split(src, "\n") {
			for col := 1; col <= len(line) && col < 200; col += 7 {
				r.At(i+1, col)
				r.Definition(i+1, col)
			}
			if i < 50 {
				r.Names(i+1, 1)
			}
		}
	})
}
