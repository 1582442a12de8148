package vox

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/internal/chunkedfile"
)

// TestRun runs the in-language tests of testdata/run/*.vox: every chunk
// must compile as its markers say, then every plain function whose name
// starts with test_ is called with no arguments. A run-time error must be
// expected by a "### runtime" marker on the line where it is raised;
// assert calls check everything else.
func TestRun(t *testing.T) {
	files, err := filepath.Glob("testdata/run/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		chunks, err := chunkedfile.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			path := filepath.ToSlash(file)
			m := Compile(path, []byte(c.Source))
			// The checker's findings in these files are tested by
			// TestCheckerCorpus: its errors must be run-time failures.
			var reports []chunkedfile.Report
			for _, d := range m.Diagnostics() {
				if !slices.ContainsFunc(m.Check().Diagnostics, func(x diag.Diagnostic) bool { return diag.Compare(x, d) == 0 }) {
					reports = append(reports, chunkedfile.Report{Line: d.Line, Col: d.Col, Code: d.Code, Message: d.Message})
				}
			}
			if !m.HasErrors() {
				env := &Env{Root: "testdata/fsroot", Powers: &capability.Powers{Env: []string{"VOX_TEST_ALLOWED"}}, Limits: DefaultLimits()}
				for _, fn := range testFuncs(c.Source) {
					_, err := m.Call(context.Background(), fn, nil, env)
					if err == nil {
						continue
					}
					var e *Error
					if !errors.As(err, &e) || e.Line == 0 {
						t.Errorf("%s:%d: %s: error without a position: %v", path, c.StartLine, fn, err)
						continue
					}
					reports = append(reports, chunkedfile.Report{Line: e.Line, Col: e.Col, Code: "runtime", Message: e.Message})
				}
			}
			for _, p := range c.Match(reports) {
				t.Error(p)
			}
		}
	}
}

// testFuncs lists the functions named test_* declared at the start of a
// line.
func testFuncs(src string) []string {
	var names []string
	for _, line := range strings.Split(src, "\n") {
		if rest, ok := strings.CutPrefix(line, "fn test_"); ok {
			if i := strings.IndexByte(rest, '('); i >= 0 {
				names = append(names, "test_"+rest[:i])
			}
		}
	}
	return names
}
