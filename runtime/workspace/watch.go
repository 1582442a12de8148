package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/vox-lang/vox-mcp/internal/fswatch"
	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	Root string
	// Config returns the scan config in force; it is asked again after
	// every change, so a new config moves the watches.
	Config func() *Config
	// OnChange runs after a burst of relevant changes has settled; calls
	// never overlap.
	OnChange func()
	Log      *slog.Logger
	// Debounce is the quiet time before OnChange (default 200 ms).
	Debounce time.Duration
	// PollInterval is the polling period when the system has no watches
	// left (default 2 s).
	PollInterval time.Duration
	// Data returns data files (slash paths relative to Root) to watch
	// besides the scan: the files resources read. It is asked at every
	// sync, and again when Resync receives.
	Data   func() []string
	Resync <-chan struct{}
	// OnData runs, debounced with OnChange and never at once with it,
	// with the Data files that changed; OnChange runs only when a file
	// of the scan changed too.
	OnData func(files []string)
}

// addWatch adds one watch; tests replace it to simulate ENOSPC.
var addWatch = func(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }

// Watch refreshes on file changes until ctx is done (docs/federation.md
// §4): it watches the directories that can contain matching files (the
// globs' static prefixes and their subdirectories, minus excluded ones) and
// the scan config's directory, and calls OnChange debounced when a matching
// .vox file, a directory or the config changes. When the system runs out of
// watches (ENOSPC, or no inotify instance) it logs a warning and polls
// instead, comparing the scanned files' sizes and modification times.
func Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = 200 * time.Millisecond
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return err
	}
	opts.Root = root
	w := &watcher{opts: opts, watched: map[string]bool{}}
	return fswatch.Run(ctx, fswatch.Options{
		What:     "the workspace",
		Log:      opts.Log,
		Debounce: opts.Debounce,
		Sync: func(fw *fsnotify.Watcher) error {
			w.fw = fw
			err := w.sync()
			opts.Log.Debug("watching the workspace", "directories", len(w.watched))
			return err
		},
		Relevant: w.relevant,
		OnError: func(err error) bool {
			opts.Log.Warn("file watch error", "err", err)
			return false
		},
		OnChange:     w.changed,
		StartPolling: func() func() { return poller(opts) },
		PollInterval: opts.PollInterval,
		Resync:       opts.Resync,
		// No CatchUp: a refresh tells every subscriber of a workspace
		// resource (docs/federation.md §11), so one at start-up would
		// tell them of nothing.
	})
}

// MaxDataDirs bounds the folders watched for WatchOptions.Data.
const MaxDataDirs = 256

type watcher struct {
	opts    WatchOptions
	fw      *fsnotify.Watcher
	cfg     *Config
	watched map[string]bool // absolute directories
	data    map[string]bool // the Data files at the last sync

	mu          sync.Mutex
	dataChanged map[string]bool // since the last changed
	scanChanged bool
}

// changed is fswatch's OnChange: OnChange for a change of the scan (or
// events lost, which may have been one), OnData for the data files.
func (w *watcher) changed() {
	w.mu.Lock()
	files := make([]string, 0, len(w.dataChanged))
	for f := range w.dataChanged {
		files = append(files, f)
	}
	scan := w.scanChanged || len(files) == 0
	w.dataChanged, w.scanChanged = nil, false
	w.mu.Unlock()
	if scan {
		w.opts.OnChange()
	}
	if len(files) > 0 && w.opts.OnData != nil {
		sort.Strings(files)
		w.opts.OnData(files)
	}
}

// configDir is the nearest existing directory on the way to the config
// file, so that creating contracts/mcp and the config is noticed.
func (w *watcher) configDir() string {
	dir := filepath.Dir(filepath.Join(w.opts.Root, filepath.FromSlash(ConfigPath)))
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return dir
		}
		if dir == w.opts.Root || len(dir) <= len(w.opts.Root) {
			return w.opts.Root
		}
		dir = filepath.Dir(dir)
	}
}

// sync makes the watch set equal to the directories the config can match.
func (w *watcher) sync() error {
	w.cfg = w.opts.Config()
	want := map[string]bool{w.configDir(): true}
	w.data = map[string]bool{}
	if w.opts.Data != nil {
		dirs := map[string]bool{}
		for _, f := range w.opts.Data() {
			// The folder holding it, when it exists: a file created
			// there later is an event of it. At most MaxDataDirs, so
			// that files read all over the tree cannot use up the
			// system's watches, which would make the whole watch poll.
			dir := filepath.Join(w.opts.Root, filepath.FromSlash(path.Dir(f)))
			if !dirs[dir] && len(dirs) >= MaxDataDirs {
				continue
			}
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				w.data[f] = true
				dirs[dir] = true
				want[dir] = true
			}
		}
	}
	s := newScanner(w.cfg.ExcludeGlobs)
	s.root = w.opts.Root
	// The directories are listed beneath the root, like a scan's.
	if dir, err := safefs.OpenRoot(w.opts.Root); err == nil {
		for _, base := range StaticDirs(w.cfg) {
			_ = fs.WalkDir(dir.FS(), base, func(rel string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					if err != nil && d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if rel != "." && s.prunable(rel) {
					return fs.SkipDir
				}
				want[s.abs(rel)] = true
				return nil
			})
		}
		dir.Close()
	}
	for dir := range w.watched {
		if !want[dir] {
			_ = w.fw.Remove(dir)
			delete(w.watched, dir)
		}
	}
	for dir := range want {
		if w.watched[dir] {
			continue
		}
		if err := addWatch(w.fw, dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
			return fmt.Errorf("watching %s: %w", dir, err)
		}
		w.watched[dir] = true
	}
	return nil
}

// relevant reports whether an event can change the surface: the config
// file, a file matching a scan glob, or a directory appearing or vanishing
// under the watched ones (it may hold matching files).
func (w *watcher) relevant(ev fsnotify.Event) bool {
	rel, err := filepath.Rel(w.opts.Root, ev.Name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	scan := w.scanRelevant(ev, rel)
	data := w.data[rel] && (!ev.Has(fsnotify.Chmod) || ev.Has(fsnotify.Write))
	w.mu.Lock()
	if data {
		if w.dataChanged == nil {
			w.dataChanged = map[string]bool{}
		}
		w.dataChanged[rel] = true
	}
	w.scanChanged = w.scanChanged || scan
	w.mu.Unlock()
	return scan || data
}

// scanRelevant is relevant for the files of the scan.
func (w *watcher) scanRelevant(ev fsnotify.Event, rel string) bool {
	if rel == ConfigPath || strings.HasPrefix(ConfigPath, rel+"/") {
		return true
	}
	if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
		return false
	}
	s := newScanner(w.cfg.ExcludeGlobs)
	if s.excluded(rel) {
		return false
	}
	for _, g := range w.cfg.ScanGlobs {
		if ok, _ := doublestar.Match(strings.TrimPrefix(g.Pattern, "./"), rel); ok {
			return true
		}
	}
	if w.watched[ev.Name] {
		return true // a watched directory was removed or renamed
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			return true
		}
	}
	return false
}

// poller takes a fingerprint of the scan now and returns the poll that
// compares it at each tick, calling OnChange when it moved.
func poller(opts WatchOptions) func() {
	last := fingerprint(opts.Root, opts.Config())
	return func() {
		if fp := fingerprint(opts.Root, opts.Config()); fp != last {
			last = fp
			opts.OnChange()
		}
	}
}

// fingerprint summarises what a refresh would read: the config file's
// size and time and every scanned file's path, size and time.
func fingerprint(root string, cfg *Config) string {
	var b strings.Builder
	if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(ConfigPath))); err == nil {
		fmt.Fprintf(&b, "%d %d\n", info.Size(), info.ModTime().UnixNano())
	}
	files, errs, err := Scan(root, cfg)
	if err != nil {
		b.WriteString(err.Error())
	}
	for _, f := range files {
		fmt.Fprintf(&b, "%s %d %d\n", f.Path, f.Size, f.ModTime.UnixNano())
	}
	for _, e := range errs {
		fmt.Fprintf(&b, "%s %s\n", e.Path, e.Message)
	}
	return b.String()
}
