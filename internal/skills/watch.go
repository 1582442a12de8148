package skills

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vox-lang/vox-mcp/internal/fswatch"
)

// WatchOptions configure Registry.Watch.
type WatchOptions struct {
	Log *slog.Logger
	// Debounce is the quiet time before a reload (default 200 ms).
	Debounce time.Duration
	// PollInterval is the reload period when the system has no watches
	// left (default 2 s).
	PollInterval time.Duration
	// MaxDirs caps the folders watched (default maxWatchedDirs): a skill
	// folder holding thousands of folders cannot exhaust the user's
	// inotify watches.
	MaxDirs int
	// Reloaded, when set, is called after each reload that changed the
	// installed skills, with discovery's warnings.
	Reloaded func(warnings []string)
}

// maxWatchedDirs is the default cap on watched folders: far above what
// the skills of a machine hold, far below the default inotify limit.
const maxWatchedDirs = 4096

// Watch reloads the skills when their folders change, until ctx is done
// (vox-mcp --watch, docs/skills.md §5). It watches each search root, each
// folder directly under one (where a new skill appears), and every folder
// of each installed skill (where its files change), and after a quiet
// Debounce calls Rehydrate: a skill whose folder changed is loaded again
// and announced to the listeners, unchanged ones stay as they were, and a
// skill uninstalled in this process stays uninstalled. Symlinked folders
// and .git folders are not watched, and at most MaxDirs folders are (a
// warning says when more exist). When the system has no watches left it
// polls instead.
func (r *Registry) Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 200 * time.Millisecond
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = maxWatchedDirs
	}
	w := &skillWatcher{r: r, opts: opts, watched: map[string]bool{}}
	return fswatch.Run(ctx, fswatch.Options{
		What:     "the skill folders",
		Log:      opts.Log,
		Debounce: opts.Debounce,
		Sync: func(fw *fsnotify.Watcher) error {
			w.fw = fw
			return w.sync()
		},
		Relevant: func(ev fsnotify.Event) bool { return ev.Op != fsnotify.Chmod },
		OnError: func(err error) bool {
			// An overflow lost events: reload to be sure.
			opts.Log.Warn("skill folder watch error; reloading the skills", "err", err)
			return true
		},
		OnChange:     func() { r.reload(opts) },
		StartPolling: func() func() { return func() { r.reload(opts) } },
		PollInterval: opts.PollInterval,
		CatchUp:      true, // a skill rewritten while the watches were placed
	})
}

// reload rehydrates and reports a change.
func (r *Registry) reload(opts WatchOptions) {
	changed, warnings := r.Rehydrate()
	if changed && opts.Reloaded != nil {
		opts.Reloaded(warnings)
	}
}

// skillWatcher keeps the watched folders in step with the registry.
type skillWatcher struct {
	r       *Registry
	opts    WatchOptions
	fw      *fsnotify.Watcher
	watched map[string]bool
	capped  bool // the MaxDirs warning was logged
}

// sync watches the folders the registry's skills and roots need now and
// drops the watches of folders no longer needed.
func (w *skillWatcher) sync() error {
	want := w.folders()
	for dir := range w.watched {
		if !want[dir] {
			_ = w.fw.Remove(dir) // gone already when the folder was deleted
			delete(w.watched, dir)
		}
	}
	for dir := range want {
		if w.watched[dir] {
			continue
		}
		if err := w.fw.Add(dir); err != nil {
			if fswatch.Exhausted(err) {
				return err
			}
			continue // removed meanwhile: the next reload sees it
		}
		w.watched[dir] = true
	}
	return nil
}

// folders are the folders to watch, at most MaxDirs.
func (w *skillWatcher) folders() map[string]bool {
	want := map[string]bool{}
	full := func() bool {
		if len(want) < w.opts.MaxDirs {
			return false
		}
		if !w.capped {
			w.capped = true
			w.opts.Log.Warn("the skill folders hold more folders than are watched; changes in the others are seen at the next reload", "watched", w.opts.MaxDirs)
		}
		return true
	}
	for _, root := range w.r.cfg.SearchRoots() {
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		if full() {
			return want
		}
		want[filepath.Clean(root)] = true
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue // a symlinked skill folder is watched below when installed
			}
			if full() {
				return want
			}
			want[filepath.Join(root, e.Name())] = true
		}
	}
	for _, in := range w.r.Snapshot().Skills() {
		if !in.IsFolder() {
			// A reference skill file: only the folder holding it (which
			// may be the workspace itself) is its, not what lies below.
			if !full() {
				want[filepath.Dir(filepath.Join(in.RealPath(), filepath.FromSlash(in.doc)))] = true
			}
			continue
		}
		_ = filepath.WalkDir(in.RealPath(), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			if full() {
				return fs.SkipAll
			}
			want[p] = true
			return nil
		})
	}
	return want
}
