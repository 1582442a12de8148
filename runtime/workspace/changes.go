package workspace

import (
	"path/filepath"
	"runtime"
	"sync/atomic"
)

// trackedDirs are the directories a rootDir asked the change tracker to
// watch; a cleanup releases them when the rootDir is gone. The tracker
// also records, for the next refresh, the paths that changed in them
// (refresh.go). The tracker's mutex guards every field.
type trackedDirs struct {
	dirs map[string]bool
	// changed are the paths (directory and entry name) that changed since
	// the last walk or take; nil while nothing is recorded.
	changed map[string]bool
	// lost is set when a change may have escaped changed: a queue
	// overflow, a watch the kernel dropped, a folder created, removed,
	// moved or changed, more changes than maxRecordedChanges. failed is
	// set when a folder of the last walk could not be watched.
	lost, failed bool
	// entries, when set, are the only entries of each folder whose
	// changes the owner counts in hits (PathPresence): an event naming
	// another entry is none of its business.
	entries map[string]map[string]bool
	hits    atomic.Uint64
}

// maxRecordedChanges bounds the paths recorded between refreshes: past
// it the next refresh walks the tree, which costs no more than applying
// that many changes, and a flood of events costs no memory.
const maxRecordedChanges = 4096

// maxWalkWatches bounds the folders a walk watches to refresh from
// changes: watches are a per-user resource (fs.inotify.max_user_watches,
// 8,192 on older kernels) that editors and other tools need too. A tree
// with more folders is walked at every refresh, and only the folders of
// its files are watched, for the calls' stat. A variable for tests.
var maxWalkWatches = 4096

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

// tracker returns the change tracker watching d, nil where the platform
// or the file system does not allow it.
func (d *rootDir) tracker() *changeTracker {
	rt := &d.tracking
	if !rt.checked {
		rt.checked = true
		rt.usable = watchedFS(d.path)
	}
	if !rt.usable {
		return nil
	}
	t := processTracker()
	if t == nil {
		return nil
	}
	if rt.owner == nil {
		rt.owner = &trackedDirs{}
		runtime.AddCleanup(d, func(o *trackedDirs) { t.release(o) }, rt.owner)
	}
	return t
}

// beginWalk starts a new record of the changes beneath d and returns
// what the walk calls with each folder it enters, which watches it before
// the walk reads it (refresh.go); nil when nothing can be watched.
func (d *rootDir) beginWalk() func(rel string) bool {
	t := d.tracker()
	if t == nil {
		return nil
	}
	owner := d.tracking.owner
	t.beginChanges(owner)
	return func(rel string) bool { return t.watchDir(owner, filepath.Join(d.path, filepath.FromSlash(rel))) }
}

// takeChanges returns the paths changed beneath the watched folders since
// the last walk or take, and whether the record vouches for them.
func (d *rootDir) takeChanges() ([]string, bool) {
	t := d.tracker()
	if t == nil {
		return nil, false
	}
	return t.takeChanges(d.tracking.owner)
}

// track watches the directories of files and their ancestors up to the
// root, and the folders walked (repo-relative), where the platform and
// the file system allow it. Loads call it before their surface is
// served, so every change after it is seen.
func (d *rootDir) track(files []*File, walked []string) {
	rt := &d.tracking
	t := d.tracker()
	if t == nil {
		return
	}
	dirs := map[string]bool{}
	up := func(dir string) {
		for ; !dirs[dir]; dir = filepath.Dir(dir) {
			dirs[dir] = true
			if len(dir) <= len(d.path) || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	for _, f := range files {
		if f.Abs != "" {
			up(filepath.Dir(f.Abs))
		}
	}
	for _, rel := range walked {
		up(filepath.Join(d.path, filepath.FromSlash(rel)))
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
