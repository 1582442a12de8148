package vox

import (
	"path/filepath"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/vox/internal/chunkedfile"
)

// TestCheck compiles every chunk of testdata/check/*.vox and compares the
// diagnostics with the chunk's ### markers.
func TestCheck(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		chunks, err := chunkedfile.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			m := Compile(filepath.ToSlash(file), []byte(c.Source))
			var reports []chunkedfile.Report
			for _, d := range m.Diagnostics() {
				reports = append(reports, chunkedfile.Report{Line: d.Line, Col: d.Col, Code: d.Code, Message: d.Message})
			}
			for _, p := range c.Match(reports) {
				t.Error(p)
			}
		}
	}
}
