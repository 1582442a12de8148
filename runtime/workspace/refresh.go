package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// A refresh from watched changes (docs/federation.md §4): where the
// change tracker (changes_linux.go) watched every folder the last walk
// entered — each one before the walk read it — the next refresh takes the
// paths changed beneath them instead of walking the tree, and scans just
// those paths the way the walk would: so a refresh after one edit costs
// that file, not a stat of every file. .vox files do not link to each
// other (an import is recorded, not resolved: docs/vox-language.md), so a
// changed file is recompiled and checked alone; what one file's change
// does to others — a duplicate name, a shadowed one — is the merge's,
// which runs on every refresh.
//
// The tree is walked instead when the record cannot vouch: the first
// load; a platform or file system without watching; a watch that could
// not be added; a queue overflow; a folder created, removed, moved or
// changed beneath a watched one (its files are not watched yet); more
// than maxRecordedChanges changes; a scan config whose globs changed; a
// glob whose folder is reached through a symlink; a root that is another
// folder now.

// walkResult is what a walk of the tree or a scan of the changed paths
// found: the files in scan order, the scan errors sorted by path, and the
// paths to scan again at every refresh from changes.
type walkResult struct {
	files   []SourceFile
	errs    []FileError
	recheck []string
	// walked are the folders the walk entered and the existing folders
	// above each glob's (repo-relative); nil for a scan of changes.
	walked []string
	// splice, when not nil, says how the files are the last load's with
	// a few removed, added or changed in their places (a scan of
	// changes); nil after a walk.
	splice *splice
	// vouched is set when the changes of the tree from now on are
	// recorded in full, as far as the walk can tell.
	vouched bool
}

// walkTree walks the tree like Scan, watching every folder it enters when
// the tracker can.
func (l *Loader) walkTree(dir *safefs.Root, cfg *Config) (walkResult, error) {
	for _, g := range append(slicesClone(cfg.ScanGlobs), cfg.ExcludeGlobs...) {
		if msg := checkGlob(g.Pattern); msg != "" {
			return walkResult{}, &ScanError{Msg: ConfigPath + ": " + msg}
		}
	}
	l.walks++
	s := newScanner(cfg.ExcludeGlobs)
	s.root, s.dir = l.Root, dir
	watch := l.root.beginWalk()
	var walked []string
	vouched := watch != nil
	entered := map[string]bool{}
	s.onDir = func(rel string) {
		if entered[rel] {
			return
		}
		entered[rel] = true
		walked = append(walked, rel)
		if vouched && (len(walked) > maxWalkWatches || !watch(rel)) {
			vouched = false
		}
	}
	// The folders above each glob's folder are watched too, so that its
	// creation is seen; one reached through a symlink is not the folder
	// whose events are recorded.
	for _, g := range cfg.ScanGlobs {
		base, _ := doublestar.SplitPattern(strings.TrimPrefix(g.Pattern, "./"))
		base = path.Clean(base)
		if base == "." {
			continue
		}
		parts := strings.Split(base, "/")
		s.onDir(".")
		for i := range parts {
			p := strings.Join(parts[:i+1], "/")
			info, err := dir.Lstat(p)
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil || !info.IsDir() {
				vouched = false
				break
			}
			if i < len(parts)-1 {
				s.onDir(p)
			}
		}
	}
	s.walkAll(cfg)
	slices.Sort(s.recheck)
	if !vouched {
		// The folders of the files alone are watched, for the calls.
		walked = nil
	}
	return walkResult{files: s.files, errs: s.errs, recheck: slices.Compact(s.recheck), walked: walked, vouched: vouched}, nil
}

// fromChanges scans the paths changed since the last load, or reports
// false when the tree must be walked.
func (l *Loader) fromChanges(dir *safefs.Root, cfg *Config) (walkResult, bool) {
	last := l.last
	if last == nil || !last.vouched || last.dir != dir || !sameGlobs(last.config, cfg) {
		return walkResult{}, false
	}
	changed, ok := l.root.takeChanges()
	if !ok {
		return walkResult{}, false
	}
	rels := make(map[string]bool, len(changed)+len(last.recheck))
	for _, p := range changed {
		// The watched paths are the root joined with the walk's.
		rel, err := filepath.Rel(l.Root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator)) {
			return walkResult{}, false
		}
		rels[filepath.ToSlash(rel)] = true
	}
	for _, rel := range last.recheck {
		rels[rel] = true
	}
	if len(rels) == 0 {
		return walkResult{files: last.srcs, errs: last.merge.scanErrs, recheck: last.recheck, vouched: true, splice: &splice{}}, true
	}
	s := newScanner(cfg.ExcludeGlobs)
	s.root, s.dir = l.Root, dir
	patterns := make([]string, len(cfg.ScanGlobs))
	for i, g := range cfg.ScanGlobs {
		patterns[i] = strings.TrimPrefix(g.Pattern, "./")
	}
	st := &dirStat{}
	defer st.close()
	var found []SourceFile
	var errs []FileError
	var recheck []string
	for rel := range rels {
		f, ferrs, ok, walk := s.rescan(rel, patterns, st)
		if walk {
			return walkResult{}, false
		}
		errs = append(errs, ferrs...)
		if len(ferrs) > 0 {
			recheck = append(recheck, rel)
		}
		if ok {
			found = append(found, f)
			if f.volatile {
				recheck = append(recheck, rel)
			}
		}
	}
	// The files keep the walk's order, (glob, path): the changed paths
	// leave their places and the found ones are merged in.
	placeOf := func(a, b SourceFile) int {
		if a.glob != b.glob {
			return a.glob - b.glob
		}
		return strings.Compare(a.Path, b.Path)
	}
	slices.SortFunc(found, placeOf)
	var gone []int
	for rel := range rels {
		for gi := range patterns {
			if i, ok := slices.BinarySearchFunc(last.srcs, SourceFile{Path: rel, glob: gi}, placeOf); ok {
				gone = append(gone, i)
			}
		}
	}
	slices.Sort(gone)
	for _, e := range last.merge.scanErrs {
		if !rels[e.Path] {
			errs = append(errs, e)
		}
	}
	sortFileErrors(errs)
	for _, rel := range last.recheck {
		if !rels[rel] {
			recheck = append(recheck, rel)
		}
	}
	slices.Sort(recheck)
	recheck = slices.Compact(recheck)
	sp := &splice{}
	if len(found) == len(gone) && slices.EqualFunc(found, gone, func(f SourceFile, i int) bool { return placeOf(f, last.srcs[i]) == 0 }) {
		// Files changed in their places, none added or removed (an edit):
		// the list is updated where it is, which only the last load held.
		for k, i := range gone {
			last.srcs[i] = found[k]
			sp.changed = append(sp.changed, [2]int{i, i})
		}
		return walkResult{files: last.srcs, errs: errs, recheck: recheck, vouched: true, splice: sp}, true
	}
	// The kept files are copied in runs between the changed places; a
	// found file at a gone one's place replaces it, the others are added
	// where their place is.
	files := make([]SourceFile, 0, len(last.srcs)-len(gone)+len(found))
	add := func(f SourceFile) {
		sp.added = append(sp.added, len(files))
		files = append(files, f)
	}
	from := 0
	for _, g := range append(gone, len(last.srcs)) {
		for kept := last.srcs[from:g]; len(kept) > 0; {
			if len(found) == 0 {
				files = append(files, kept...)
				break
			}
			j, _ := slices.BinarySearchFunc(kept, found[0], placeOf)
			files = append(files, kept[:j]...)
			if kept = kept[j:]; len(kept) > 0 {
				add(found[0])
				found = found[1:]
			}
		}
		if g == len(last.srcs) {
			break
		}
		for len(found) > 0 && placeOf(found[0], last.srcs[g]) < 0 {
			add(found[0])
			found = found[1:]
		}
		if len(found) > 0 && placeOf(found[0], last.srcs[g]) == 0 {
			sp.changed = append(sp.changed, [2]int{len(files), g})
			files = append(files, found[0])
			found = found[1:]
		} else {
			sp.removed = append(sp.removed, g)
		}
		from = g + 1
	}
	for _, f := range found {
		add(f)
	}
	return walkResult{files: files, errs: errs, recheck: recheck, vouched: true, splice: sp}, true
}

// splice relates the files of a refresh from changes to the last load's:
// the files not named here are the last load's, in the same order.
type splice struct {
	removed []int    // the last load's indices of the files gone
	added   []int    // this load's indices of the new files
	changed [][2]int // this load's and the last load's index of a file changed in its place
}

// align returns, for each of n files, the last load's element of the
// same file (the zero value for an added one), copying the kept ones in
// runs.
func align[T any](sp *splice, last []T, n int) []T {
	if len(sp.removed) == 0 && len(sp.added) == 0 {
		return slices.Clone(last)
	}
	out := make([]T, n)
	i, j := 0, 0 // in last and out
	removed, added := sp.removed, sp.added
	for j < n {
		for len(removed) > 0 && removed[0] == i {
			i++
			removed = removed[1:]
		}
		if len(added) > 0 && added[0] == j {
			j++
			added = added[1:]
			continue
		}
		// A run of kept files up to the next removal or addition.
		run := n - j
		if len(added) > 0 {
			run = added[0] - j
		}
		if len(removed) > 0 {
			run = min(run, removed[0]-i)
		}
		copy(out[j:j+run], last[i:i+run])
		i, j = i+run, j+run
	}
	return out
}

// rescan scans the one path rel as the walk would: the file the first
// matching glob keeps (ok), the errors of the globs that refused it, and
// walk when the path is a folder now or cannot be examined (the walk
// reports that).
func (s *scanner) rescan(rel string, patterns []string, st *dirStat) (f SourceFile, errs []FileError, ok, walk bool) {
	if s.excluded(rel) {
		return SourceFile{}, nil, false, false
	}
	var matching []int
	for i, p := range patterns {
		if m, _ := doublestar.Match(p, rel); m {
			matching = append(matching, i)
		}
	}
	if len(matching) == 0 {
		return SourceFile{}, nil, false, false
	}
	abs := s.abs(rel)
	info, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return SourceFile{}, nil, false, false // removed
	case err != nil || info.IsDir():
		return SourceFile{}, nil, false, true
	}
	d := fs.FileInfoToDirEntry(info)
	for _, gi := range matching {
		f, ferr, ok := s.file(rel, abs, d, st)
		if ferr != nil {
			errs = append(errs, *ferr)
		}
		if ok {
			f.glob = gi
			return f, errs, true, false
		}
	}
	return SourceFile{}, errs, false, false
}

// sameGlobs reports whether two configs scan the same globs.
func sameGlobs(a, b *Config) bool {
	eq := func(x, y []Glob) bool {
		return slices.EqualFunc(x, y, func(g, h Glob) bool { return g.Pattern == h.Pattern })
	}
	return a != nil && b != nil && eq(a.ScanGlobs, b.ScanGlobs) && eq(a.ExcludeGlobs, b.ExcludeGlobs)
}
