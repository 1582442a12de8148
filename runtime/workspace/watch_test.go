package workspace

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// syncLog is a log handler that sends a value on each record of Watch
// saying its watches are set ("watching the workspace", after the first
// sync and after each OnChange): a test waits for it instead of guessing
// how long setting the watches takes (much longer under Wine).
type syncLog chan struct{}

func (syncLog) Enabled(context.Context, slog.Level) bool { return true }
func (l syncLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "watching the workspace" {
		select {
		case l <- struct{}{}:
		default: // a test that does not wait for syncs
		}
	}
	return nil
}
func (l syncLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l syncLog) WithGroup(string) slog.Handler      { return l }

// watchFor runs Watch on root and returns a channel receiving one value
// per OnChange, and one receiving one per sync of the watches.
func watchFor(t *testing.T, root string, cfg *Config, poll time.Duration) (changes, synced <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 16)
	syncs := make(syncLog, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := Watch(ctx, WatchOptions{
			Root:         root,
			Config:       func() *Config { return cfg },
			OnChange:     func() { changed <- struct{}{} },
			Log:          slog.New(syncs),
			Debounce:     20 * time.Millisecond,
			PollInterval: poll,
		})
		if err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return changed, syncs
}

func waitChange(t *testing.T, changes <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatalf("no refresh after %s", what)
	}
}

func TestWatchNotices(t *testing.T) {
	root := tree(t, map[string]string{"tools/a.vox": "x", "contracts/mcp/keep": ""})
	cfg := config(t, `scan_globs: ["tools/**/*.vox"]`)
	changes, synced := watchFor(t, root, cfg, 0)
	waitChange(t, synced, "starting to watch")

	os.WriteFile(filepath.Join(root, "tools", "a.vox"), []byte("edited"), 0o644)
	waitChange(t, changes, "editing a matching file")
	waitChange(t, synced, "watching again after the refresh")

	// A new subdirectory is watched after the refresh that noticed it.
	os.MkdirAll(filepath.Join(root, "tools", "sub"), 0o755)
	waitChange(t, changes, "creating a directory")
	waitChange(t, synced, "watching the new directory")
	os.WriteFile(filepath.Join(root, "tools", "sub", "b.vox"), []byte("new"), 0o644)
	waitChange(t, changes, "creating a file in the new directory")

	os.WriteFile(filepath.Join(root, filepath.FromSlash(ConfigPath)), []byte("scan_globs: [x]\n"), 0o644)
	waitChange(t, changes, "writing the scan config")
}

func TestWatchRelevant(t *testing.T) {
	root := tree(t, map[string]string{"tools/a.vox": "x"})
	w := &watcher{opts: WatchOptions{Root: root}, cfg: config(t, `scan_globs: ["tools/**/*.vox"]
exclude_globs: ["tools/gen/**"]`), watched: map[string]bool{}}
	cases := map[string]bool{
		"tools/a.vox":              true,
		"tools/deep/b.vox":         true,
		"tools/notes.txt":          false,
		"tools/gen/c.vox":          false,
		"other/d.vox":              false,
		ConfigPath:                 true,
		"contracts":                true,
		"tools/node_modules/x.vox": false,
	}
	for rel, want := range cases {
		ev := fsnotify.Event{Name: filepath.Join(root, filepath.FromSlash(rel)), Op: fsnotify.Write}
		if got := w.relevant(ev); got != want {
			t.Errorf("relevant(%s) = %v, want %v", rel, got, want)
		}
	}
}

func TestWatchFallsBackToPolling(t *testing.T) {
	old := addWatch
	addWatch = func(*fsnotify.Watcher, string) error { return syscall.ENOSPC }
	t.Cleanup(func() { addWatch = old })

	root := tree(t, map[string]string{"tools/a.vox": "x"})
	cfg := config(t, `scan_globs: ["tools/*.vox"]`)
	changes, _ := watchFor(t, root, cfg, 30*time.Millisecond)
	// The poller compares each poll with its first fingerprint, which a
	// slow start (Wine) may take after a single write: the new file grows
	// until a poll notices it (not a timing assertion).
	deadline := time.Now().Add(10 * time.Second)
	for n := 1; ; n++ {
		os.WriteFile(filepath.Join(root, "tools", "b.vox"), []byte(strings.Repeat("x", n)), 0o644)
		select {
		case <-changes:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no refresh after adding a file while polling")
		}
	}
}
