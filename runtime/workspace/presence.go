package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// PathPresence answers whether any of a fixed list of paths is a directory,
// checking the file system only when something may have changed: it
// watches, with the process's change tracker (changes_linux.go), every
// existing folder above each path — where the path, or any folder on the
// way to it, would be created, removed or renamed — and stats the paths
// again only after an event naming the next step of a path in one of
// them (in /tmp, a change of /tmp/x when a path is /tmp/x/skills; not of
// the other entries of /tmp, which builds keep changing), or when a watch
// was torn.
// The server uses it for the skills requirement, which held that a skill
// root exists by stating every root on every call (docs/federation.md §3,
// docs/benchmarks.md "Stdio calls at the floor").
//
// It stats on every call, as before, wherever a change could escape the
// watch: without a change tracker (other systems, no inotify instance), on
// network and FUSE file systems, when a path or a folder above it is a
// symlink (its target's folders are not watched), and when a folder could
// not be watched. A change made before a call is seen by that call: the
// tracker counts what inotify queued before it answers.
type PathPresence struct {
	paths []string

	mu      sync.Mutex // serialises checks
	t       *changeTracker
	owner   *trackedDirs
	checked atomic.Pointer[presenceCheck] // the last check, nil before the first
}

// presenceCheck is one check of the paths: its answer, and the count of
// relevant changes when its watches were in place.
type presenceCheck struct {
	found string // the first path that is a directory, "" for none
	hits  uint64
	trust uint64 // 1 + the torn count when watched; 0: not trusted
}

// NewPathPresence returns the presence check of paths.
func NewPathPresence(paths []string) *PathPresence {
	p := &PathPresence{paths: append([]string(nil), paths...)}
	if t := processTracker(); t != nil {
		p.t, p.owner = t, &trackedDirs{}
		runtime.AddCleanup(p, func(o *trackedDirs) { t.release(o) }, p.owner)
	}
	return p
}

// First returns the first of the paths that is a directory (os.Stat
// follows symlinks), and false when none is.
func (p *PathPresence) First() (string, bool) {
	if c := p.checked.Load(); c != nil && c.trust != 0 {
		p.t.settled() // counts every change made before the call
		if p.owner.hits.Load() == c.hits && p.t.tornCount()+1 == c.trust {
			return c.found, c.found != ""
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.check()
	p.checked.Store(c)
	return c.found, c.found != ""
}

// check stats the paths, watching the folders above them first so that a
// change after the stat raises an event. p.mu is held.
func (p *PathPresence) check() *presenceCheck {
	c := &presenceCheck{}
	dirs, watchable := p.folders()
	if p.t != nil && watchable {
		ok, torn := p.t.watchEntries(p.owner, dirs)
		p.t.settled()
		c.hits = p.owner.hits.Load()
		if ok {
			c.trust = torn + 1
		}
	}
	c.found = p.firstDir()
	if c.trust != 0 {
		// A folder created above a path between folders and the watch is
		// not watched: trust the check only if the folders are the same.
		if again, watchable := p.folders(); !watchable || !sameDirs(again, dirs) {
			c.trust = 0
		}
	}
	return c
}

// firstDir is the first path that is a directory, "" for none.
func (p *PathPresence) firstDir() string {
	for _, path := range p.paths {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return path
		}
	}
	return ""
}

// folders are the existing folders above each path, up to the file
// system's root, each with the entry on the way to the path; watchable is
// false when one of them, or a path, is a symlink or on a file system
// whose changes inotify may not see.
func (p *PathPresence) folders() (dirs map[string]map[string]bool, watchable bool) {
	dirs = map[string]map[string]bool{}
	for _, path := range p.paths {
		path = filepath.Clean(path)
		if !filepath.IsAbs(path) {
			return nil, false
		}
		if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, false
		}
		for step, dir := path, filepath.Dir(path); ; step, dir = dir, filepath.Dir(dir) {
			if names, seen := dirs[dir]; seen {
				names[filepath.Base(step)] = true
			} else {
				st, err := os.Lstat(dir)
				switch {
				case err == nil && st.Mode()&os.ModeSymlink != 0:
					return nil, false
				case err == nil && st.IsDir():
					if !watchedFS(dir) {
						return nil, false
					}
					dirs[dir] = map[string]bool{filepath.Base(step): true}
				}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return dirs, true
}

func sameDirs(a, b map[string]map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for d, names := range a {
		other, ok := b[d]
		if !ok || len(other) != len(names) {
			return false
		}
		for n := range names {
			if !other[n] {
				return false
			}
		}
	}
	return true
}
