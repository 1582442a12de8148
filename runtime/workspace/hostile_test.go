//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The tests of this file put FIFOs, sockets and symlinks where the
// workspace expects files; nobody ever writes to a FIFO, so a read that
// blocked would hang the test instead of failing it.

func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScanReportsSpecialFilesWithoutOpeningThem(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{"tools/ok.vox": "@tool \"OK\"\nfn ok() to int { 1 }\n"})
	mkfifo(t, filepath.Join(root, "tools", "x.vox"))
	os.Symlink("x.vox", filepath.Join(root, "tools", "to-fifo.vox"))
	s := load(t, &Loader{Root: root})
	if s.Result.ToolCount != 1 {
		t.Errorf("tools = %d, want 1", s.Result.ToolCount)
	}
	got := resultJSON(t, s.Result)
	for _, want := range []string{
		`{"path":"tools/to-fifo.vox","message":"is a named pipe (FIFO), not a regular file; not loaded"}`,
		`{"path":"tools/x.vox","message":"is a named pipe (FIFO), not a regular file; not loaded"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("result %s\nwant %s", got, want)
		}
	}
}

func TestContractsThatAreFIFOsAreErrors(t *testing.T) {
	root := t.TempDir()
	mkfifo(t, filepath.Join(root, filepath.FromSlash(ConfigPath)))
	mkfifo(t, filepath.Join(root, filepath.FromSlash(FixturesPath)))
	mkfifo(t, filepath.Join(root, "go.mod"))
	if _, err := LoadConfig(root); err == nil || err.Error() != ConfigPath+": cannot read: is a named pipe (FIFO), not a regular file or folder: refused (reading it could block or have effects)" {
		t.Errorf("LoadConfig: %v", err)
	}
	if _, err := (&Loader{Root: root}).Load(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Load: %v", err)
	}
	if _, err := LoadFixtures(root); err == nil || !strings.Contains(err.Error(), FixturesPath+": cannot read: is a named pipe") {
		t.Errorf("LoadFixtures: %v", err)
	}
	if got := ModulePath(root); got != "" {
		t.Errorf("ModulePath = %q", got)
	}
	snap := &Snapshot{Module: "x", ConfigSHA256: Hash(nil)}
	if snap.Describes(root) {
		t.Error("a snapshot describes a workspace whose config is a FIFO")
	}
}

func TestConfigThroughSymlinkOutsideIsRefused(t *testing.T) {
	outside := tree(t, map[string]string{"mcp/workspace-mcp-surface.v1.yaml": "scan_globs: [\"x/*.vox\"]\n"})
	root := t.TempDir()
	os.Symlink(outside, filepath.Join(root, "contracts"))
	if _, err := LoadConfig(root); err == nil || !strings.Contains(err.Error(), "leads outside its folder") {
		t.Errorf("LoadConfig: %v", err)
	}
}

// TestCallTimeReadsStayConfined swaps files after the scan: the per-call
// recompile must refuse a symlink leading out (without reading, compiling
// or quoting its target) and a FIFO (at once).
func TestCallTimeReadsStayConfined(t *testing.T) {
	const secret = "TOP-SECRET-7d1f credentials for the production database"
	outside := tree(t, map[string]string{"secret.txt": secret})
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/a.vox": "@tool \"A\"\nfn a() to int { 1 }\n",
		"tools/b.vox": "@tool \"B\"\nfn b() to int { 2 }\n",
		"tools/c.vox": "@tool \"C\"\nfn c() to int { 3 }\n",
		"tools/d.vox": "@tool \"D\"\nfn d() to int { 4 }\n",
		"inner.vox":   "@tool \"D\"\nfn d() to int { 55 }\n", // another size: a recompile whatever the mtimes
	})
	s := load(t, &Loader{Root: root})
	tool := func(name string) *Tool {
		tl, ok := s.Tool(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		if _, err := s.ToolModule(tl); err != nil {
			t.Fatal(err)
		}
		return tl
	}
	a, b, c, d := tool("a"), tool("b"), tool("c"), tool("d")
	swap := func(rel string, make func(string) error) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.Remove(p)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
	}
	swap("tools/a.vox", func(p string) error { return os.Symlink(filepath.Join(outside, "secret.txt"), p) })
	rel, _ := filepath.Rel(filepath.Join(root, "tools"), filepath.Join(outside, "secret.txt"))
	swap("tools/b.vox", func(p string) error { return os.Symlink(rel, p) })
	swap("tools/c.vox", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	swap("tools/d.vox", func(p string) error { return os.Symlink("../inner.vox", p) })
	for tl, want := range map[*Tool]string{
		a: "tools/a.vox: cannot read: leads outside the workspace root (through a symlink or ..); not loaded; " + RefreshHint,
		b: "tools/b.vox: cannot read: leads outside the workspace root (through a symlink or ..); not loaded; " + RefreshHint,
		c: "tools/c.vox: cannot read: is a named pipe (FIFO), not a regular file; " + RefreshHint,
	} {
		_, err := s.ToolModule(tl)
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v\nwant %s", tl.Name, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "TOP") || strings.Contains(err.Error(), "credentials")) {
			t.Errorf("%s: the error quotes the outside file: %v", tl.Name, err)
		}
	}
	// A symlink that stays inside is followed, as by the scan.
	if _, err := s.ToolModule(d); err != nil {
		t.Fatal(err)
	}
	if got, want := d.file.cur.Load().hash, Hash([]byte("@tool \"D\"\nfn d() to int { 55 }\n")); got != want {
		t.Errorf("d was not recompiled from inner.vox")
	}
}

func TestReadSource(t *testing.T) {
	root := tree(t, map[string]string{"tools/a.vox": "fn a() to int { 1 }\n"})
	outside := tree(t, map[string]string{"x.vox": "SECRET"})
	mkfifo(t, filepath.Join(root, "tools", "fifo.vox"))
	os.Symlink(filepath.Join(outside, "x.vox"), filepath.Join(root, "tools", "out.vox"))
	os.Symlink("a.vox", filepath.Join(root, "tools", "in.vox"))
	if rel, src, err := ReadSource(root, "tools/../tools/in.vox"); err != nil || rel != "tools/in.vox" || !strings.Contains(string(src), "fn a") {
		t.Errorf("ReadSource(in) = %q %q %v", rel, src, err)
	}
	for p, want := range map[string]string{
		"tools/fifo.vox":                "path tools/fifo.vox: is a named pipe (FIFO), not a regular file or folder: refused",
		"tools/out.vox":                 "path tools/out.vox is outside the workspace",
		"../x.vox":                      "path ../x.vox is outside the workspace",
		filepath.Join(outside, "x.vox"): "give a path relative to the workspace root",
		"tools/none.vox":                "path tools/none.vox: no such file in the workspace",
		"tools":                         "path tools: is a folder, not a file",
	} {
		_, _, err := ReadSource(root, p)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("ReadSource(%s): %v, want %q", p, err, want)
		}
	}
}
