package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefreshFromChangesMatchesAWalk changes a workspace step by step —
// edits, new, renamed and removed files, a FIFO, symlinks, a hard link,
// excluded and unrelated files, new folders, a flood of changes, a lost
// record, a config edit — and checks after each refresh that the loader
// serves what a fresh loader's walk serves, and that it walked the tree
// only where the record of changes cannot vouch for them.
func TestRefreshFromChangesMatchesAWalk(t *testing.T) {
	cfg := "scan_globs: [\"tools/*.vox\", \"tools/**/*.vox\", \"more/**/*.vox\"]\nexclude_globs: [\"tools/skip/**\"]\n"
	tool := func(name, desc string) string {
		return fmt.Sprintf("@tool %q\nfn %s(x: int = 1) to int { x + 1 }\n", desc, name)
	}
	root := workspaceTree(t, cfg, map[string]string{
		"tools/a.vox":         tool("a", "A"),
		"tools/b.vox":         tool("b", "B"),
		"tools/sub/c.vox":     tool("c", "C"),
		"tools/skip/keep.txt": "",
		"other/h.vox":         tool("h", "H"),
		"other/real.vox":      tool("r", "R"),
		"outside.txt":         "",
	})
	if processTracker() == nil || !watchedFS(root) {
		t.Skip("this host cannot watch the test's folder")
	}
	abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	write := func(rel, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(abs(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs(rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	l := &Loader{Root: root}
	load(t, l)
	steps := []struct {
		name   string
		change func()
		walks  bool
	}{
		{"nothing changed", func() {}, false},
		{"a body edited", func() { write("tools/a.vox", "\n"+strings.Replace(tool("a", "A"), "x + 1", "x + 2", 1)) }, false},
		{"a description edited", func() { write("tools/sub/c.vox", tool("c", "C, edited")) }, false},
		{"a file added", func() { write("tools/d.vox", tool("d", "D")) }, false},
		{"a file renamed", func() { must(os.Rename(abs("tools/d.vox"), abs("tools/sub/e.vox"))) }, false},
		{"a file removed", func() { must(os.Remove(abs("tools/b.vox"))) }, false},
		{"a duplicate added", func() { write("tools/sub/a2.vox", tool("a", "A again")) }, false},
		{"the first of a duplicate removed", func() { must(os.Remove(abs("tools/a.vox"))) }, false},
		{"a file with an error", func() { write("tools/sub/e.vox", "fn broken( {\n") }, false},
		{"an excluded file added", func() { write("tools/skip/x.vox", tool("x", "X")) }, false},
		{"an unrelated file added", func() { write("tools/notes.md", "# notes") }, false},
		{"a FIFO appears", func() { must(syscall.Mkfifo(abs("tools/pipe.vox"), 0o644)) }, false},
		{"a symlink to a file inside", func() { must(os.Symlink("../other/real.vox", abs("tools/link.vox"))) }, false},
		{"the symlink's target edited", func() { write("other/real.vox", tool("r", "R, edited")) }, false},
		{"a symlink leading outside", func() { must(os.Symlink("../../outside.txt", abs("tools/sub/out.vox"))) }, false},
		{"a hard link", func() { must(os.Link(abs("other/h.vox"), abs("tools/h.vox"))) }, false},
		{"edited through its other link", func() {
			f, err := os.OpenFile(abs("other/h.vox"), os.O_WRONLY|os.O_APPEND, 0)
			must(err)
			_, err = f.WriteString("@tool \"H2\"\nfn h2() to int { 2 }\n")
			must(err)
			must(f.Close())
		}, false},
		{"a new folder", func() { write("tools/new/f.vox", tool("f", "F")) }, true},
		{"a file in the new folder", func() { write("tools/new/g.vox", tool("g", "G")) }, false},
		{"a glob's missing folder created", func() { write("more/m.vox", tool("m", "M")) }, true},
		{"a folder removed", func() { must(os.RemoveAll(abs("tools/new"))) }, true},
		{"more changes than are recorded", func() {
			for i := range maxRecordedChanges + 1 {
				write(fmt.Sprintf("tools/n%d.txt", i), "")
			}
			write("tools/sub/many.vox", tool("many", "Many"))
		}, true},
		{"the record lost (a queue overflow)", func() {
			write("tools/sub/lost.vox", tool("lost", "Lost"))
			tr := processTracker()
			tr.mu.Lock()
			tr.loseLocked("")
			tr.mu.Unlock()
		}, true},
		{"the scan config edited", func() {
			write(ConfigPath, "scan_globs: [\"tools/**/*.vox\"]\n")
		}, true},
		{"an edit after the config's", func() { write("tools/sub/c.vox", tool("c", "C, again")) }, false},
	}
	for _, step := range steps {
		step.change()
		walks := l.walks
		got := load(t, l)
		want := load(t, &Loader{Root: root})
		if g, w := describeSurface(t, got), describeSurface(t, want); g != w {
			t.Fatalf("%s: the refresh serves\n%s\na walk serves\n%s", step.name, g, w)
		}
		if !reflect.DeepEqual(got.Snapshot("m"), want.Snapshot("m")) {
			t.Fatalf("%s: snapshots differ", step.name)
		}
		if walked := l.walks > walks; walked != step.walks {
			t.Errorf("%s: walked the tree %v, want %v", step.name, walked, step.walks)
		}
	}
}

// TestRefreshSeesChangesMadeDuringItsWalk: a folder is watched before the
// walk reads it, so a file written while a refresh walks is found by that
// walk or by the next refresh, never lost.
func TestRefreshSeesChangesMadeDuringItsWalk(t *testing.T) {
	root := workspaceTree(t, cfgExamples, nil)
	synthetic(t, root, 200)
	if processTracker() == nil || !watchedFS(root) {
		t.Skip("this host cannot watch the test's folder")
	}
	l := &Loader{Root: root}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			os.WriteFile(filepath.Join(root, "tools", fmt.Sprintf("late%02d.vox", i)), []byte(fmt.Sprintf("@tool \"L\"\nfn late%d() to int { 1 }\n", i)), 0o644)
			time.Sleep(time.Millisecond)
		}
	}()
	load(t, l)
	<-done
	got := load(t, l)
	want := load(t, &Loader{Root: root})
	if g, w := describeSurface(t, got), describeSurface(t, want); g != w {
		t.Fatalf("the refresh after a walk serves\n%s\na walk serves\n%s", g, w)
	}
}

// TestRefreshWalksATreeOfTooManyFolders: past maxWalkWatches folders the
// walk watches only the folders of the files (watches are shared with
// the user's other tools), every refresh walks, and calls still skip
// their stat while nothing changed.
func TestRefreshWalksATreeOfTooManyFolders(t *testing.T) {
	files := map[string]string{"tools/a/v.vox": "@tool \"V\"\nfn v() to int { 1 }\n"}
	for i := range 6 {
		files[fmt.Sprintf("tools/empty%d/notes.md", i)] = ""
	}
	root := workspaceTree(t, cfgExamples, files)
	if processTracker() == nil || !watchedFS(root) {
		t.Skip("this host cannot watch the test's folder")
	}
	defer func(n int) { maxWalkWatches = n }(maxWalkWatches)
	maxWalkWatches = 4
	l := &Loader{Root: root}
	load(t, l)
	os.WriteFile(filepath.Join(root, "tools", "a", "v.vox"), []byte("@tool \"V2\"\nfn v() to int { 2 }\n"), 0o644)
	walks := l.walks
	s := load(t, l)
	if l.walks == walks {
		t.Error("a refresh of a tree with more folders than are watched did not walk it")
	}
	if tl, ok := s.Tool("v"); !ok || tl.Description != "V2" {
		t.Fatalf("the edit was not seen: %+v", tl)
	}
	tool, _ := s.Tool("v")
	if _, err := s.ToolModule(tool); err != nil {
		t.Fatal(err)
	}
	if gen, ok := tool.file.root.changes(); !ok || tool.file.checked.Load() != gen {
		t.Error("the folders of the files are not watched for the calls")
	}
	owner := l.root.tracking.owner
	tr := processTracker()
	tr.mu.Lock()
	n := len(owner.dirs)
	tr.mu.Unlock()
	if n > 3 { // root, tools, tools/a
		t.Errorf("%d folders watched, want those of the files and their parents", n)
	}
}

// TestRefreshFromChangesUnderARelativeRoot: a root given as "." (vox-mcp
// --root .) refreshes from changes too.
func TestRefreshFromChangesUnderARelativeRoot(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{"tools/a.vox": "@tool \"A\"\nfn a() to int { 1 }\n"})
	if processTracker() == nil || !watchedFS(root) {
		t.Skip("this host cannot watch the test's folder")
	}
	t.Chdir(root)
	l := &Loader{Root: "."}
	load(t, l)
	os.WriteFile(filepath.Join("tools", "b.vox"), []byte("@tool \"B\"\nfn b() to int { 2 }\n"), 0o644)
	walks := l.walks
	got := load(t, l)
	if l.walks != walks {
		t.Error("the refresh walked the tree")
	}
	if g, w := describeSurface(t, got), describeSurface(t, load(t, &Loader{Root: "."})); g != w {
		t.Fatalf("the refresh serves\n%s\na walk serves\n%s", g, w)
	}
}
