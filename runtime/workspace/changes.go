package workspace

import (
	"path/filepath"
	"runtime"
	"sync/atomic"
)

// trackedDirs are the directories a rootDir asked the change tracker to
// watch; a cleanup releases them when the rootDir is gone.
type trackedDirs struct{ dirs map[string]bool }

// rootTracking is the change tracking of one rootDir: whether its files
// may skip the stat before a call (docs/federation.md §3).
type rootTracking struct {
	tracker atomic.Pointer[changeTracker]
	// trust is 1 + the tracker's torn count when the last load watched
	// every directory of its files; 0 when the files must stat.
	trust   atomic.Uint64
	owner   *trackedDirs // guarded by the Loader's mutex
	checked bool         // the file system was checked (watchedFS)
	usable  bool
}

// track watches the directories of files and their ancestors up to the
// root, where the platform and the file system allow it. Loads call it
// before their surface is served, so every change after it is seen.
func (d *rootDir) track(files []*File) {
	rt := &d.tracking
	if !rt.checked {
		rt.checked = true
		rt.usable = watchedFS(d.path)
	}
	if !rt.usable {
		return
	}
	t := processTracker()
	if t == nil {
		return
	}
	if rt.owner == nil {
		rt.owner = &trackedDirs{}
		runtime.AddCleanup(d, func(o *trackedDirs) { t.release(o) }, rt.owner)
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if f.Abs == "" {
			continue
		}
		for dir := filepath.Dir(f.Abs); !dirs[dir]; dir = filepath.Dir(dir) {
			dirs[dir] = true
			if len(dir) <= len(d.path) || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	rt.trust.Store(0)
	ok, torn := t.watch(rt.owner, dirs)
	rt.tracker.Store(t)
	if ok {
		rt.trust.Store(torn + 1)
	}
}

// changes returns the tracker's count of changes once every change made
// before the call is counted, and ok when the files beneath d may trust
// it: when a file was checked at the same count, nothing beneath its
// directory changed since.
func (d *rootDir) changes() (gen uint64, ok bool) {
	rt := &d.tracking
	trust := rt.trust.Load()
	if trust == 0 {
		return 0, false
	}
	t := rt.tracker.Load()
	gen = t.settled()
	return gen, t.tornCount()+1 == trust
}
