//go:build unix

package capability_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/internal/chunkedfile"
)

// TestCapabilities runs the chunks of testdata/*.vox: each test_* function
// is called, assertions check results, and a "### runtime" marker expects
// the error raised on its line.
func TestCapabilities(t *testing.T) {
	root := workspace(t)
	t.Setenv("VOX_TEST_ALLOWED", "yes")
	files, err := filepath.Glob("testdata/*.vox")
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
			m := vox.Compile(path, []byte(c.Source))
			// The checker's findings here are tested by vox's
			// TestCheckerCorpus: its errors must be run-time failures.
			var reports []chunkedfile.Report
			for _, d := range m.Diagnostics() {
				if !slices.ContainsFunc(m.Check().Diagnostics, func(x diag.Diagnostic) bool { return diag.Compare(x, d) == 0 }) {
					reports = append(reports, chunkedfile.Report{Line: d.Line, Col: d.Col, Code: d.Code, Message: d.Message})
				}
			}
			env := &vox.Env{Root: root, Powers: &capability.Powers{Env: []string{"VOX_TEST_ALLOWED"}, Write: []string{"out/**", "escape-link", "pipe"}}, Limits: vox.DefaultLimits()}
			for _, line := range strings.Split(c.Source, "\n") {
				rest, ok := strings.CutPrefix(line, "fn test_")
				if !ok || m.HasErrors() {
					continue
				}
				fn := "test_" + rest[:strings.IndexByte(rest, '(')]
				_, err := m.Call(context.Background(), fn, nil, env)
				if err == nil {
					continue
				}
				var e *vox.Error
				if !errors.As(err, &e) || e.Line == 0 {
					t.Errorf("%s:%d: %s: error without a position: %v", path, c.StartLine, fn, err)
					continue
				}
				reports = append(reports, chunkedfile.Report{Line: e.Line, Col: e.Col, Code: "runtime", Message: e.Message})
			}
			for _, p := range c.Match(reports) {
				t.Error(p)
			}
		}
	}
}

// workspace copies ../testdata/fsroot (symbolic links as links) into a
// temporary folder and adds a named pipe and a socket, which git cannot
// hold. escape-link points two levels up, out of the copy, as in the
// original.
func workspace(t *testing.T) string {
	parent := t.TempDir()
	root := filepath.Join(parent, "a", "fsroot")
	src := "../testdata/fsroot"
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(parent, "a", "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "a", "corpus", "blog.vox"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return root
}
