package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// MaxSourceBytes is the largest .vox file read (by a scan, a call's
// recompile and vox_check): a larger file is a per-file error.
const MaxSourceBytes = 16 << 20

// maxGoModBytes bounds the go.mod read for the module path.
const maxGoModBytes = 4 << 20

// rootDir is the workspace root held open (internal/safefs) for the reads
// of a surface's files: the scan's and, at a call, the check (skipped
// while the folders are watched and nothing changed, changes.go) and the
// reread of an edited file. Each read resolves the file beneath the root
// then, so a symlink or FIFO swapped in after the scan is refused, never
// followed or opened for reading (docs/security.md).
type rootDir struct {
	path string
	mu   sync.Mutex
	dir  *safefs.Root
	// tracking says when a call may skip the stat of its file
	// (changes.go).
	tracking rootTracking
}

func newRootDir(path string) *rootDir { return &rootDir{path: path} }

// open returns the open root, opening it on first use.
func (d *rootDir) open() (*safefs.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == nil {
		r, err := safefs.OpenRoot(d.path)
		if err != nil {
			return nil, err
		}
		d.dir = r
	}
	return d.dir, nil
}

// Close releases the workspace root the loader holds open for its reads
// (files.go). On Windows an open folder cannot be removed or renamed (a
// sharing violation), so whoever is done with a loader closes it; a load
// after Close opens the root again.
func (l *Loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.root == nil {
		return nil
	}
	return l.root.close()
}

// close closes the open root, if any; the next open or reopen opens it
// again.
func (d *rootDir) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == nil {
		return nil
	}
	err := d.dir.Close()
	d.dir = nil
	return err
}

// reopen opens the root again when its path names another folder than the
// one held (a refresh resolves the root anew). The one replaced is left to
// the garbage collector: a call may still be reading through it.
func (d *rootDir) reopen() (*safefs.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir != nil {
		if info, err := os.Stat(d.path); err == nil && d.dir.SameFile(".", info) {
			return d.dir, nil
		}
	}
	r, err := safefs.OpenRoot(d.path)
	if err != nil {
		return nil, err
	}
	d.dir = r
	return r, nil
}

// readContract reads the contract file rel of the open root: nil, nil when
// it does not exist, an error naming rel when it cannot be read (a FIFO,
// a symlink leading outside, too large).
func readContract(dir *safefs.Root, rel string, max int) ([]byte, error) {
	src, err := dir.ReadFile(rel, int64(max))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %s", rel, unwrapPathError(err))
	}
	return src, nil
}

// ReadSource reads the file p of the workspace at root for vox_check: p is
// relative to the root, and the file is read beneath it like a scan's
// (internal/safefs) — refused when it leads outside, is not a regular file
// (a FIFO is refused at once, never waited on) or is larger than
// MaxSourceBytes. It returns p cleaned and slash-separated.
func ReadSource(root, p string) (string, []byte, error) {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return "", nil, fmt.Errorf("path %s: give a path relative to the workspace root", p)
	}
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", nil, fmt.Errorf("path %s is outside the workspace", p)
	}
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return "", nil, fmt.Errorf("workspace root %s: %s", root, unwrapPathError(err))
	}
	defer dir.Close()
	src, err := dir.ReadFile(rel, MaxSourceBytes)
	switch {
	case errors.Is(err, safefs.ErrEscapes):
		return "", nil, fmt.Errorf("path %s is outside the workspace (through a symlink or ..)", p)
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("path %s: no such file in the workspace", p)
	case err != nil:
		return "", nil, fmt.Errorf("path %s: %s", p, unwrapPathError(err))
	}
	return rel, src, nil
}
