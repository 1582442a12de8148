package vox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/internal/chunkedfile"
)

// TestCheckerCorpus runs the checker over the valid corpus: the realistic
// tools (testdata/corpus) and the examples must give no checker error,
// and in the language's own run-time tests (testdata/run and the
// capability tests) every checker error must stand on a line where the
// program fails at run time (a "### runtime" marker): the checker reports
// only what would fail.
func TestCheckerCorpus(t *testing.T) {
	valid, _ := filepath.Glob("testdata/corpus/*.vox")
	examples, _ := filepath.Glob("../../examples/*.vox")
	valid = append(valid, examples...)
	if len(valid) < 30 || len(examples) == 0 {
		t.Fatalf("the corpus has %d files, %d examples", len(valid), len(examples))
	}
	for _, file := range valid {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := Compile(filepath.ToSlash(file), src)
		for _, d := range m.Check().Diagnostics {
			if d.Severity == diag.Error {
				t.Errorf("valid corpus: %s", d)
			}
		}
	}
	runFiles, _ := filepath.Glob("testdata/run/*.vox")
	capFiles, _ := filepath.Glob("capability/testdata/*.vox")
	runFiles = append(runFiles, capFiles...)
	if len(runFiles) < 10 || len(capFiles) == 0 {
		t.Fatalf("found %d run-time test files", len(runFiles))
	}
	errs := 0
	for _, file := range runFiles {
		chunks, err := chunkedfile.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(mustRead(t, file)), "\n")
		for _, c := range chunks {
			m := Compile(filepath.ToSlash(file), []byte(c.Source))
			for _, d := range m.Check().Diagnostics {
				if d.Severity != diag.Error {
					continue
				}
				errs++
				if d.Line > len(lines) || !strings.Contains(lines[d.Line-1], "### runtime") {
					t.Errorf("checker error on a line that does not fail at run time: %s", d)
				}
			}
		}
	}
	if errs == 0 {
		t.Error("the checker found none of the run-time failures of the run-time tests")
	}
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
