package vox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// todoScanVox is the naive TODO scan a tool author writes first: every
// Go file of the repository, split into lines, a contains check and a
// count per line.
const todoScanVox = `@tool "Count the TODO lines of the repository's Go files"
fn todos() to int {
    let mut count = 0
    for path in fs.glob("**/*.go").unwrap_or([]) {
        let text = fs.read(path).unwrap_or("")
        for line in text.split("\n") {
            if line.contains("TODO") {
                count += 1
            }
        }
    }
    count
}
`

// goLines are lines of the lengths Go source has (about 30 bytes on
// average), one in ten a TODO.
var goLines = []string{
	"package scan",
	"",
	"// Scan walks the files of a repository and counts what it finds.",
	"func Scan(root string, opts Options) (Result, error) {",
	"\tentries, err := os.ReadDir(root)",
	"\tif err != nil {",
	"\t\treturn Result{}, fmt.Errorf(\"scan %s: %w\", root, err) // TODO: wrap",
	"\t}",
	"\tfor i, e := range entries {",
	"\t\tres.Count += len(e.Name()) + i",
}

// TestDefaultStepsFitARepositoryScan sizes the default step budget
// (docs/vox-language.md, Limits): the naive TODO scan over 100,000 lines
// of Go in 250 files fits DefaultLimits, and the steps it takes are
// logged so that the budget's margin can be read off the test.
func TestDefaultStepsFitARepositoryScan(t *testing.T) {
	root := t.TempDir()
	const files, linesPerFile = 250, 400
	for f := range files {
		var b strings.Builder
		for i := range linesPerFile {
			b.WriteString(goLines[(f+i)%len(goLines)])
			b.WriteByte('\n')
		}
		p := filepath.Join(root, "pkg", fmt.Sprintf("d%d", f%10), fmt.Sprintf("f%d.go", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := Compile("todo.vox", []byte(todoScanVox))
	if m.HasErrors() {
		t.Fatal(m.Diagnostics())
	}
	want := files * linesPerFile / len(goLines) // one TODO line in ten
	def := DefaultLimits()
	res, err := m.Call(context.Background(), "todos", nil, &Env{Root: root, Limits: def})
	if err != nil {
		t.Fatalf("the scan of %d lines does not fit the default limits: %v", files*linesPerFile, err)
	}
	if string(res.JSON) != fmt.Sprint(want) {
		t.Fatalf("todos = %s, want %d", res.JSON, want)
	}
	t.Logf("%d lines: %d steps of the default %d (%.0f%%)", files*linesPerFile, res.Steps, def.Steps, 100*float64(res.Steps)/float64(def.Steps))
	// The margin: a scan twice that size still fits (a repository grows).
	if 2*res.Steps > def.Steps {
		t.Errorf("%d steps for %d lines leave less than half the default budget of %d", res.Steps, files*linesPerFile, def.Steps)
	}
}
