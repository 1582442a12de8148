package workspace

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// changeTracker tells a call whether anything may have changed beneath
// the directories of the workspace files since a file was last checked,
// so that the call skips the stat of its tool's file when nothing did
// (docs/federation.md §3). It is one inotify instance per process,
// watching the directories of every loaded surface's files and their
// ancestors up to the root; every event counts as a change.
//
// An edit is seen by the very next call, not only once the reader
// goroutine gets to it: inotify queues an event within the system call
// that makes the change, and settled applies what is queued (or waits for
// the reader applying it) before it answers.
type changeTracker struct {
	fd   int
	file *os.File // fd, for the reader's wait in the runtime poller

	// gen counts the event batches applied; it starts at 1 so that 0
	// means "never checked".
	gen atomic.Uint64
	// applying is non-zero while events read from fd are not yet counted
	// in gen.
	applying atomic.Int32

	mu   sync.Mutex     // serialises reads of fd and guards the maps
	wds  map[int]string // watch descriptor -> directory
	dirs map[string]int // directory -> watch descriptor
	refs map[string]int // directory -> owners that want it watched
	// owners are the owners with watches, whose changes are recorded.
	owners map[*trackedDirs]bool
	torn   atomic.Uint64 // counts watches the kernel dropped (directory removed) and queue overflows
	buf    []byte
}

// processTracker is the process's tracker; nil where inotify is
// unavailable (no instance left, a seccomp policy), and calls then stat.
var processTracker = sync.OnceValue(func() *changeTracker {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	t := &changeTracker{fd: fd, file: os.NewFile(uintptr(fd), "inotify"),
		wds: map[int]string{}, dirs: map[string]int{}, refs: map[string]int{},
		owners: map[*trackedDirs]bool{}, buf: make([]byte, 64<<10)}
	t.gen.Store(1)
	go t.read()
	return t
})

// trackerMask: everything that can change what a path beneath a watched
// directory reads.
const trackerMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// read applies events as they come, until the process ends.
func (t *changeTracker) read() {
	rc, err := t.file.SyscallConn()
	if err != nil {
		return
	}
	for {
		if err := rc.Read(func(uintptr) bool {
			t.mu.Lock()
			defer t.mu.Unlock()
			return t.applyLocked()
		}); err != nil {
			return
		}
	}
}

// applyLocked reads every queued event and counts them; it reports
// whether there were any. t.mu is held.
func (t *changeTracker) applyLocked() bool {
	t.applying.Add(1)
	defer t.applying.Add(-1)
	got := false
	for {
		n, err := unix.Read(t.fd, t.buf)
		if err != nil || n <= 0 {
			break
		}
		got = true
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&t.buf[off]))
			name := t.buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+int(ev.Len))]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				t.torn.Add(1)
				t.loseLocked("")
			case ev.Mask&(unix.IN_IGNORED|unix.IN_MOVE_SELF) != 0:
				// The kernel dropped the watch (the directory is gone), or
				// the directory now has another path: what appears at its
				// path is not watched until the next load watches it.
				// A watch this tracker removed itself (released) is
				// unknown by then and tears nothing.
				if dir, ok := t.wds[int(ev.Wd)]; ok {
					t.loseLocked(dir)
					t.dropLocked(int(ev.Wd), ev.Mask&unix.IN_MOVE_SELF != 0)
					t.torn.Add(1)
				}
			default:
				t.recordLocked(int(ev.Wd), ev.Mask, name)
			}
		}
	}
	if got {
		t.gen.Add(1)
	}
	return got
}

// recordLocked records a change event of the watch wd for the owners
// watching its directory: the path of the entry named, or the loss of
// the record when the event concerns a folder (one created, removed,
// moved or changed beneath a watched one: its files are not watched, or
// were watched under its old path) or the watched folder itself. t.mu is
// held.
func (t *changeTracker) recordLocked(wd int, mask uint32, name []byte) {
	dir, ok := t.wds[wd]
	if !ok {
		return
	}
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	for o := range t.owners {
		if names, ok := o.entries[dir]; ok && (len(name) == 0 || names[string(name)]) {
			o.hits.Add(1)
		}
	}
	if len(name) == 0 || mask&unix.IN_ISDIR != 0 {
		t.loseLocked(dir)
		return
	}
	var p string
	for o := range t.owners {
		if o.changed == nil || o.lost || !o.dirs[dir] {
			continue
		}
		if len(o.changed) >= maxRecordedChanges {
			o.lost, o.changed = true, nil
			continue
		}
		if p == "" {
			p = dir + string(os.PathSeparator) + string(name)
		}
		o.changed[p] = true
	}
}

// loseLocked marks the record of the owners watching dir lost (every
// owner's for ""). t.mu is held.
func (t *changeTracker) loseLocked(dir string) {
	for o := range t.owners {
		if dir == "" || o.dirs[dir] {
			o.lost, o.changed = true, nil
		}
	}
}

// beginChanges starts recording the owner's changes afresh: called before
// a walk, which sees everything changed before it.
func (t *changeTracker) beginChanges(owner *trackedDirs) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.owners[owner] = true
	owner.changed, owner.lost, owner.failed = map[string]bool{}, false, false
}

// watchDir watches dir for the owner as a walk enters it, before the walk
// reads it: a change after that read raises an event. It reports whether
// the changes in dir are recorded.
func (t *changeTracker) watchDir(owner *trackedDirs, dir string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if owner.dirs[dir] {
		return !owner.failed
	}
	if owner.dirs == nil {
		owner.dirs = map[string]bool{}
	}
	owner.dirs[dir] = true
	t.refs[dir]++
	if !t.addWatchLocked(dir) || t.wds[t.dirs[dir]] != dir {
		owner.failed = true
	}
	return !owner.failed
}

// takeChanges returns the paths changed beneath the owner's folders since
// the last walk or take, once every change made before the call is
// counted, and starts a new record; ok is false when the record cannot
// vouch for them (the caller walks instead).
func (t *changeTracker) takeChanges(owner *trackedDirs) (paths []string, ok bool) {
	t.settled()
	t.mu.Lock()
	defer t.mu.Unlock()
	if owner.changed == nil || owner.lost || owner.failed {
		return nil, false
	}
	paths = make([]string, 0, len(owner.changed))
	for p := range owner.changed {
		paths = append(paths, p)
	}
	owner.changed = map[string]bool{}
	return paths, true
}

// tornCount counts the watches the kernel dropped and the queue
// overflows so far.
func (t *changeTracker) tornCount() uint64 { return t.torn.Load() }

// dropLocked forgets the watch wd under every path, removing it from the
// instance too when remove is set. t.mu is held.
func (t *changeTracker) dropLocked(wd int, remove bool) {
	if _, ok := t.wds[wd]; !ok {
		return
	}
	delete(t.wds, wd)
	for dir, w := range t.dirs {
		if w == wd {
			delete(t.dirs, dir)
		}
	}
	if remove {
		_, _ = unix.InotifyRmWatch(t.fd, uint32(wd))
	}
}

// settled returns the count of changes once every change made before the
// call is counted in it.
func (t *changeTracker) settled() uint64 {
	n, err := unix.IoctlGetInt(t.fd, unix.TIOCINQ) // FIONREAD: the bytes queued
	if err != nil || n > 0 {
		t.mu.Lock()
		t.applyLocked()
		t.mu.Unlock()
	}
	if t.applying.Load() != 0 {
		// Events read meanwhile are being counted: wait for that.
		t.mu.Lock()
		//lint:ignore SA2001 an empty critical section waits for the reader
		t.mu.Unlock()
	}
	return t.gen.Load()
}

// watch makes dirs the directories the owner wants watched (replacing
// what it wanted before) and reports whether every one of them is
// watched, with the count of torn watches at that moment: the owner's
// files may skip their stat while that count stays the same.
func (t *changeTracker) watch(owner *trackedDirs, dirs map[string]bool) (ok bool, torn uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Count what is queued first: a tear made before this load (a folder
	// removed, the reader goroutine not yet run) must not be counted after
	// the snapshot below, which would distrust this load's watches until
	// the next one.
	t.applyLocked()
	torn = t.torn.Load()
	for dir := range owner.dirs {
		if !dirs[dir] {
			t.releaseLocked(dir)
		}
	}
	ok = true
	for dir := range dirs {
		if !owner.dirs[dir] {
			t.refs[dir]++
		}
		if !t.addWatchLocked(dir) {
			ok = false
		} else if t.wds[t.dirs[dir]] != dir {
			owner.failed = true
		}
	}
	owner.dirs = dirs
	t.owners[owner] = true
	if !ok {
		owner.failed = true
	}
	return ok, torn
}

// watchEntries is watch for an owner that counts in its hits only the
// changes of the named entries of each folder (and of the folder itself).
// The entries are in place before the watches, so no event of a new watch
// goes uncounted.
func (t *changeTracker) watchEntries(owner *trackedDirs, entries map[string]map[string]bool) (ok bool, torn uint64) {
	dirs := make(map[string]bool, len(entries))
	for dir := range entries {
		dirs[dir] = true
	}
	t.mu.Lock()
	owner.entries = entries
	t.mu.Unlock()
	return t.watch(owner, dirs)
}

// addWatchLocked watches dir unless it is watched; it reports whether it
// is. A folder that is another path of a watched one shares its watch,
// whose events are recorded under one path only: it counts as not
// watched for the record of changes (but does for the calls' stat). t.mu
// is held.
func (t *changeTracker) addWatchLocked(dir string) bool {
	if _, watched := t.dirs[dir]; watched {
		return true
	}
	wd, err := unix.InotifyAddWatch(t.fd, dir, trackerMask)
	if err != nil {
		return false
	}
	if old, taken := t.wds[wd]; taken && old != dir {
		// Another path of the same directory: both name one watch.
		t.dirs[dir] = wd
		t.loseLocked(old)
		return true
	}
	t.wds[wd], t.dirs[dir] = dir, wd
	return true
}

// release forgets the directories of an owner that is gone.
func (t *changeTracker) release(owner *trackedDirs) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for dir := range owner.dirs {
		t.releaseLocked(dir)
	}
	owner.dirs = nil
	delete(t.owners, owner)
}

func (t *changeTracker) releaseLocked(dir string) {
	if t.refs[dir]--; t.refs[dir] > 0 {
		return
	}
	delete(t.refs, dir)
	wd, ok := t.dirs[dir]
	if !ok {
		return
	}
	delete(t.dirs, dir)
	for _, w := range t.dirs {
		if w == wd {
			return // still watched under another path
		}
	}
	delete(t.wds, wd)
	_, _ = unix.InotifyRmWatch(t.fd, uint32(wd))
}

// watchedFS reports whether inotify sees every change of the file system
// holding path: not on network and FUSE file systems, where another host
// or the FUSE server changes files without the local kernel knowing.
func watchedFS(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC,
		unix.FUSE_SUPER_MAGIC, unix.V9FS_MAGIC, unix.CEPH_SUPER_MAGIC, unix.AFS_SUPER_MAGIC, unix.CODA_SUPER_MAGIC:
		return false
	}
	return true
}
