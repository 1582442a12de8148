package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trackedSurface loads a workspace of one tool file and skips where this
// host cannot watch it (no inotify instance left, a network file system).
func trackedSurface(t *testing.T) (*Loader, *Surface, *Tool) {
	t.Helper()
	root := workspaceTree(t, "scan_globs: [\"tools/**/*.vox\"]\n", map[string]string{"tools/a/v.vox": "@tool \"V\"\nfn v() to int { 1 }\n"})
	l := &Loader{Root: root}
	s := load(t, l)
	if processTracker() == nil || !watchedFS(root) {
		t.Skip("this host cannot watch the test's folder")
	}
	tool, ok := s.Tool("v")
	if !ok {
		t.Fatal("tool v not loaded")
	}
	return l, s, tool
}

// TestCallsSkipTheStatWhileNothingChanged: once a call found the file
// current, the next calls take it without a stat while no change is seen
// beneath the watched directories; a change makes the next call check.
func TestCallsSkipTheStatWhileNothingChanged(t *testing.T) {
	_, s, tool := trackedSurface(t)
	f := tool.file
	if _, err := s.ToolModule(tool); err != nil {
		t.Fatal(err)
	}
	gen, ok := f.root.changes()
	if !ok || f.checked.Load() != gen {
		t.Fatalf("after a call: tracked %v, checked %d at count %d", ok, f.checked.Load(), gen)
	}
	// Unrelated files beneath the watched directories count as changes
	// too: the next call checks again, and finds the module current.
	before := f.cur.Load()
	if err := os.WriteFile(filepath.Join(filepath.Dir(f.Abs), "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if next, _ := f.root.changes(); next == gen {
		t.Fatal("a write beneath a watched directory was not counted before the next call")
	}
	if _, err := s.ToolModule(tool); err != nil {
		t.Fatal(err)
	}
	if f.cur.Load() != before {
		t.Error("an unrelated change recompiled the file")
	}
}

// TestChangesAreCountedBeforeTheNextCall: a change made by a system call
// that returned is counted by the very next changes(), not only once the
// reader goroutine has read it.
func TestChangesAreCountedBeforeTheNextCall(t *testing.T) {
	_, _, tool := trackedSurface(t)
	f := tool.file
	gen, _ := f.root.changes()
	for i := range 500 {
		if err := os.WriteFile(f.Abs, []byte("@tool \"V\"\nfn v() to int { 1 }\n// "+strings.Repeat("x", i%7)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		next, ok := f.root.changes()
		if !ok || next == gen {
			t.Fatalf("write %d: count %d after %d (tracked %v)", i, next, gen, ok)
		}
		gen = next
	}
}

// TestMovedDirectoriesAreNotTrusted: when a watched directory is moved
// away, what appears at its path is not watched, so calls stat again
// until the next load watches it.
func TestMovedDirectoriesAreNotTrusted(t *testing.T) {
	l, _, tool := trackedSurface(t)
	dir := filepath.Dir(tool.file.Abs)
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := tool.file.root.changes(); ok {
		t.Fatal("a moved directory left the files trusted")
	}
	if err := os.WriteFile(filepath.Join(dir, "v.vox"), []byte("@tool \"V\"\nfn v() to int { 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, l)
	tool, _ = s.Tool("v")
	if _, ok := tool.file.root.changes(); !ok {
		t.Fatal("the next load did not watch the new directory")
	}
}
