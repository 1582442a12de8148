package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// The folders of the data files (the files resources read) are watched
// besides the scan's, at most MaxDataDirs of them: files read all over a
// tree cannot use up the system's watches. An event on a data file is
// reported by OnData alone; the scan is not refreshed for it.
func TestWatchDataFiles(t *testing.T) {
	root := t.TempDir()
	var data []string
	for i := range MaxDataDirs + 20 {
		rel := fmt.Sprintf("data/d%03d/f.md", i)
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		data = append(data, rel)
	}
	old := addWatch
	var added []string
	addWatch = func(_ *fsnotify.Watcher, dir string) error { added = append(added, dir); return nil }
	t.Cleanup(func() { addWatch = old })

	// The scan's folders are elsewhere (tools/, missing here).
	cfg, errs := ParseConfig(ConfigPath, []byte("scan_globs: [\"tools/**/*.vox\"]\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var changes, datas [][]string
	w := &watcher{opts: WatchOptions{
		Root:     root,
		Config:   func() *Config { return cfg },
		Data:     func() []string { return data },
		OnChange: func() { changes = append(changes, nil) },
		OnData:   func(files []string) { datas = append(datas, files) },
	}, watched: map[string]bool{}}
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	dataDirs := 0
	for _, d := range added {
		if filepath.Dir(d) == filepath.Join(root, "data") {
			dataDirs++
		}
	}
	if dataDirs != MaxDataDirs {
		t.Errorf("%d data folders watched, want %d", dataDirs, MaxDataDirs)
	}
	ev := fsnotify.Event{Name: filepath.Join(root, "data", "d007", "f.md"), Op: fsnotify.Write}
	if !w.relevant(ev) {
		t.Fatal("a write of a data file is not relevant")
	}
	last := fsnotify.Event{Name: filepath.Join(root, "data", fmt.Sprintf("d%03d", MaxDataDirs+5), "f.md"), Op: fsnotify.Write}
	if w.relevant(last) {
		t.Error("a data file past the bound of watched folders is relevant")
	}
	w.changed()
	if len(changes) != 0 || fmt.Sprint(datas) != "[[data/d007/f.md]]" {
		t.Errorf("OnChange %d times, OnData %v; want only OnData [[data/d007/f.md]]", len(changes), datas)
	}
	// A change of the scan, or events lost, is OnChange.
	w.changed()
	if len(changes) != 1 {
		t.Errorf("OnChange %d times after a change without data files, want 1", len(changes))
	}
}
