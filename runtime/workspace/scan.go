package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// checkGlob returns why a glob is invalid, or "".
func checkGlob(p string) string {
	switch {
	case !doublestar.ValidatePattern(p):
		return fmt.Sprintf("invalid glob %q: check its brackets and braces", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return fmt.Sprintf("invalid glob %q: globs are relative to the repository root", p)
	case strings.Contains(p, "\\"):
		return fmt.Sprintf("invalid glob %q: write paths with / (globs are matched against slash-separated paths)", p)
	case slices.Contains(strings.Split(p, "/"), ".."):
		return fmt.Sprintf("invalid glob %q: globs may not leave the repository root (..)", p)
	}
	return ""
}

// SourceFile is one .vox file found by a scan.
type SourceFile struct {
	Path    string // repo-relative, slash-separated
	Abs     string
	Size    int64
	ModTime time.Time
	// glob is the index of the scan glob that found the file: a file's
	// place in the scan is (glob, Path).
	glob int
	// volatile is set for a symlink or a file with other hard links: a
	// change through another path raises no event in the watched folders,
	// so a refresh from watched changes (refresh.go) checks it anew.
	volatile bool
}

// ScanError is a fatal scan error: the refresh fails and the previous
// surface stays in service.
type ScanError struct{ Msg string }

func (e *ScanError) Error() string { return e.Msg }

// FileError is a per-file problem of a refresh (docs/federation.md §1):
// the repo-relative path and the message.
type FileError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Scan expands the config's scan globs against root (docs/federation.md
// §1.1): globs in config order, the files of one glob in lexical path
// order, each file once at its first position, excluded paths skipped.
// Every path is resolved beneath the root (internal/safefs): symlinked
// directories are not followed, a symlinked file is kept only when it
// leads to a regular file inside the root, and a matching FIFO, socket or
// device is reported, never opened for reading. Unreadable directories
// become file errors; an invalid glob is a *ScanError.
func Scan(root string, cfg *Config) ([]SourceFile, []FileError, error) {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, nil, &ScanError{Msg: fmt.Sprintf("workspace root %s: %v", root, unwrapPathError(err))}
	}
	defer dir.Close()
	return scan(dir, root, cfg)
}

// scan is Scan in the open root dir.
func scan(dir *safefs.Root, root string, cfg *Config) ([]SourceFile, []FileError, error) {
	for _, g := range append(slicesClone(cfg.ScanGlobs), cfg.ExcludeGlobs...) {
		if msg := checkGlob(g.Pattern); msg != "" {
			return nil, nil, &ScanError{Msg: ConfigPath + ": " + msg}
		}
	}
	s := newScanner(cfg.ExcludeGlobs)
	s.root, s.dir = root, dir
	s.walkAll(cfg)
	return s.files, s.errs, nil
}

// walkAll expands every scan glob of cfg.
func (s *scanner) walkAll(cfg *Config) {
	for i, g := range cfg.ScanGlobs {
		// Only a later glob can match a file again.
		s.glob = i
		s.expand(strings.TrimPrefix(g.Pattern, "./"), i < len(cfg.ScanGlobs)-1)
	}
	sortFileErrors(s.errs)
}

// sortFileErrors sorts scan errors by path, keeping the order of one
// path's errors (a refresh from watched changes rebuilds the same list).
func sortFileErrors(errs []FileError) {
	slices.SortStableFunc(errs, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })
}

// newScanner returns a scanner excluding what excludes match.
func newScanner(excludes []Glob) *scanner {
	s := &scanner{excludes: excludes, seen: map[string]bool{}, segments: make([]string, len(excludes))}
	for i, g := range excludes {
		if seg := segmentExclude(g.Pattern); seg != "" {
			s.segments[i] = seg[1 : len(seg)-1]
		}
	}
	return s
}

type scanner struct {
	root     string
	dir      *safefs.Root // root, open; every path is resolved beneath it
	excludes []Glob
	segments []string // per exclude of the form **/NAME/**, NAME; else ""
	seen     map[string]bool
	files    []SourceFile
	errs     []FileError
	glob     int // the index of the glob being expanded
	// onDir, when set, is called with every folder the walk enters,
	// before its entries are read (the loader watches it then: refresh.go).
	onDir func(rel string)
	// recheck are the paths whose scan result a change elsewhere can
	// change: volatile files and the files refused with an error (a broken
	// symlink's target may appear).
	recheck []string
}

// excluded reports whether rel matches an exclude glob.
func (s *scanner) excluded(rel string) bool {
	for i, g := range s.excludes {
		if s.segments[i] != "" {
			// The common form **/NAME/** (all the defaults): a plain
			// segment test instead of a glob match per file.
			if hasSegment(rel, s.segments[i]) {
				return true
			}
			continue
		}
		if ok, _ := doublestar.Match(g.Pattern, rel); ok {
			return true
		}
	}
	return false
}

// hasSegment reports whether the slash-separated path rel has a segment
// name: strings.Contains("/"+rel+"/", "/"+name+"/") without building the
// strings.
func hasSegment(rel, name string) bool {
	for rel != "" {
		seg, rest, _ := strings.Cut(rel, "/")
		if seg == name {
			return true
		}
		rel = rest
	}
	return false
}

// segmentExclude returns "/NAME/" for a pattern **/NAME/** whose NAME is
// literal, else "". Such a pattern matches exactly the paths with a
// segment NAME (the directory itself included).
func segmentExclude(p string) string {
	name, ok := strings.CutPrefix(p, "**/")
	if !ok {
		return ""
	}
	name, ok = strings.CutSuffix(name, "/**")
	if !ok || name == "" || strings.ContainsAny(name, "/*?[]{}\\") {
		return ""
	}
	return "/" + name + "/"
}

// prunable reports whether every path below the directory rel is
// excluded: an exclude of the form P/** matches it.
func (s *scanner) prunable(rel string) bool {
	for _, g := range s.excludes {
		if strings.HasSuffix(g.Pattern, "/**") {
			if ok, _ := doublestar.Match(g.Pattern, rel); ok {
				return true
			}
		}
	}
	return false
}

// expand adds the files matching one glob, in lexical path order; record
// says to remember them for the globs that follow.
func (s *scanner) expand(pattern string, record bool) {
	base, _ := doublestar.SplitPattern(pattern)
	base = path.Clean(base)
	type candidate struct {
		rel, abs string
		d        fs.DirEntry
	}
	var candidates []candidate
	walkErr := fs.WalkDir(s.dir.FS(), base, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if rel == base && errors.Is(err, fs.ErrNotExist) {
				return nil // the glob's directory does not exist: no matches
			}
			s.errs = append(s.errs, FileError{Path: rel, Message: "cannot read: " + unwrapPathError(err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel != "." && s.prunable(rel) {
				return fs.SkipDir
			}
			if s.onDir != nil {
				s.onDir(rel)
			}
			return nil
		}
		if s.seen[rel] || s.excluded(rel) {
			return nil
		}
		if ok, _ := doublestar.Match(pattern, rel); ok {
			candidates = append(candidates, candidate{rel, s.abs(rel), d})
		}
		return nil
	})
	if walkErr != nil {
		s.errs = append(s.errs, FileError{Path: base, Message: "cannot read: " + unwrapPathError(walkErr)})
	}
	// The size and modification time of every candidate tell a refresh
	// what it may reuse; these stat calls are most of a refresh's time,
	// so they run in parallel.
	type checked struct {
		f   SourceFile
		err *FileError
		ok  bool
	}
	results := make([]checked, len(candidates))
	parallel(len(candidates), func(lo, hi int) {
		st := &dirStat{}
		defer st.close()
		for i := lo; i < hi; i++ {
			c := candidates[i]
			f, ferr, ok := s.file(c.rel, c.abs, c.d, st)
			results[i] = checked{f, ferr, ok}
		}
	})
	found := make([]SourceFile, 0, len(results))
	for _, r := range results {
		if r.err != nil {
			s.errs = append(s.errs, *r.err)
			s.recheck = append(s.recheck, r.err.Path)
		}
		if r.ok {
			r.f.glob = s.glob
			if r.f.volatile {
				s.recheck = append(s.recheck, r.f.Path)
			}
			found = append(found, r.f)
		}
	}
	slices.SortFunc(found, func(a, b SourceFile) int { return strings.Compare(a.Path, b.Path) })
	if record {
		for _, f := range found {
			s.seen[f.Path] = true
		}
	}
	if s.files == nil {
		s.files = found
	} else {
		s.files = append(s.files, found...)
	}
}

// parallel runs fn over 0..n-1 in chunks [lo, hi) on up to 2×GOMAXPROCS
// goroutines (the work is mostly system calls).
func parallel(n int, fn func(lo, hi int)) {
	const chunk = 64
	workers := min(2*runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// file checks one matching entry (abs is its path, for the stat): regular
// files are kept; a symlink is kept only when it leads to a regular file
// inside the root; anything else that is not a folder is reported. It is
// called concurrently, each caller with its own st.
func (s *scanner) file(rel, abs string, d fs.DirEntry, st *dirStat) (SourceFile, *FileError, bool) {
	var info fs.FileInfo
	var err error
	if d.Type()&fs.ModeSymlink != 0 {
		info, err = s.dir.Stat(rel)
		switch {
		case errors.Is(err, safefs.ErrEscapes):
			return SourceFile{}, &FileError{Path: rel, Message: s.escapeMessage(abs)}, false
		case errors.Is(err, fs.ErrNotExist):
			return SourceFile{}, &FileError{Path: rel, Message: "broken symlink: " + unwrapPathError(err)}, false
		case err == nil && info.IsDir():
			return SourceFile{}, nil, false // symlinked directories are not followed
		}
	} else {
		info, err = st.lstat(abs, d)
	}
	if err != nil {
		return SourceFile{}, &FileError{Path: rel, Message: "cannot read: " + unwrapPathError(err)}, false
	}
	if m := info.Mode(); !m.IsRegular() {
		if m.IsDir() {
			return SourceFile{}, nil, false
		}
		return SourceFile{}, &FileError{Path: rel, Message: fmt.Sprintf("is %s, not a regular file; not loaded", safefs.KindOf(m))}, false
	}
	volatile := d.Type()&fs.ModeSymlink != 0 || linkCount(info) > 1
	return SourceFile{Path: rel, Abs: abs, Size: info.Size(), ModTime: info.ModTime(), volatile: volatile}, nil, true
}

// escapeMessage words why the symlink at abs was refused. The kernel
// refuses every absolute symlink beneath a root, even one naming a file
// inside it: that one gets its own hint.
func (s *scanner) escapeMessage(abs string) string {
	if target, err := os.Readlink(abs); err == nil && filepath.IsAbs(target) && Inside(filepath.Clean(s.root), filepath.Clean(target)) {
		return "is an absolute symlink: only relative symlinks that stay inside the workspace root are followed; not loaded"
	}
	return "symlink leads outside the workspace root; not loaded"
}

// abs is the path of rel under the root as given (for stats and
// messages; reads go through the open root).
func (s *scanner) abs(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

// Inside reports whether the cleaned path p is dir or below it.
func Inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// unwrapPathError drops the absolute path of an *fs.PathError, keeping
// messages repo-relative.
func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// StaticDirs returns the directories (repo-relative, slash-separated) that
// can contain files matching the config's globs: each glob's static prefix,
// deduplicated, excluding prunable ones. The watcher watches them
// recursively.
func StaticDirs(cfg *Config) []string {
	s := newScanner(cfg.ExcludeGlobs)
	var out []string
	for _, g := range cfg.ScanGlobs {
		base, _ := doublestar.SplitPattern(strings.TrimPrefix(g.Pattern, "./"))
		base = path.Clean(base)
		if base != "." && s.prunable(base) {
			continue
		}
		if !slices.Contains(out, base) {
			out = append(out, base)
		}
	}
	return out
}
