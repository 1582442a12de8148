package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ErrSymlink is the error of a write whose path has a symbolic link at
// some component: writes follow none, even one that stays beneath the
// root, since a link inside a repository can lead to what git or the
// server runs (.git, the scan config) under a name that looks harmless.
var ErrSymlink = errors.New("is a symbolic link: writes follow none")

// ReplaceFile writes data to the regular file rel, creating it and its
// missing folders, without following a symbolic link at any component:
// every folder on the way is opened with links refused (openat2 with
// RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH on Linux, then openat with
// O_NOFOLLOW component by component where openat2 is missing and on
// macOS; on Windows os.Root with each component checked by Lstat and the
// opened folder compared with it, so that a link swapped in between is
// caught). The data goes to a new file beside rel (O_EXCL, never through
// a link) that is renamed over it within the opened folder: a reader
// never sees half of it, and the rename replaces a name, never what a
// link points at. An existing rel that is not a regular file is refused
// (*NotRegularError, or ErrSymlink for a link).
//
// Errors are *fs.PathError whose Path is the component refused (for
// ErrSymlink) or rel.
func (r *Root) ReplaceFile(rel string, data []byte, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return pathError("write", rel, err)
	}
	rel = path.Clean(rel)
	if rel == "." {
		return pathError("write", rel, errors.New("is the root itself"))
	}
	return r.replaceFile(rel, data, perm)
}

// OpenDirNoFollow opens the folder rel beneath r as a new Root without
// following a symbolic link at any component, as ReplaceFile opens the
// folder it writes into: a link on the way — even one that stays beneath
// the root — is refused with ErrSymlink naming that component, and so is
// rel itself when it is a link. With create, missing folders are made
// (0o755); without, a missing one is fs.ErrNotExist. It is how a caller
// writes a whole folder (stage, then rename) where a repository may have
// planted a link: `vox skill export` into a client's skills folder.
func (r *Root) OpenDirNoFollow(rel string, create bool) (*Root, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("open", rel, err)
	}
	rel = path.Clean(rel)
	if rel == "." {
		return r.OpenRoot(".")
	}
	return r.openDirNoFollowRoot(rel, create)
}

// components splits a cleaned relative path into its folders and its
// final name.
func components(rel string) (dirs []string, base string) {
	parts := strings.Split(rel, "/")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// tempName is the name of the new file written beside base.
func tempName(base string) string {
	return "." + base + ".vox-write-" + randomHex(6)
}

// replaceRooted is ReplaceFile through os.Root alone: each folder is
// Lstat'ed (a link refused), created when missing, opened as a new root
// and compared with what Lstat saw, so that a link swapped in between
// the two is refused rather than followed. The way on Windows, and a
// test of it everywhere.
func (r *Root) replaceRooted(rel string, data []byte, perm fs.FileMode) error {
	dirs, base := components(rel)
	cur, err := r.walkRooted(dirs, true)
	if err != nil {
		return err
	}
	if cur != r.root {
		defer cur.Close()
	}
	if info, err := cur.Lstat(base); err == nil {
		if err := fileKind(info.Mode()); err != nil {
			return pathError("write", rel, err)
		}
	}
	tmp := tempName(base)
	f, err := cur.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return pathError("write", rel, unwrap(err))
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = cur.Rename(tmp, base)
	}
	if werr != nil {
		_ = cur.Remove(tmp)
		return pathError("write", rel, unwrap(werr))
	}
	return nil
}

// walkRooted opens the folders dirs below r with os.Root, each Lstat'ed
// first (a link refused), created when missing and create is set, opened
// and compared with what Lstat saw, so that a link swapped in between is
// refused rather than followed. It returns the last folder, r.root itself
// when dirs is empty; the caller closes any other.
func (r *Root) walkRooted(dirs []string, create bool) (*os.Root, error) {
	cur := r.root
	closeCur := func() {
		if cur != r.root {
			cur.Close()
		}
	}
	for i, name := range dirs {
		at := strings.Join(dirs[:i+1], "/")
		info, err := cur.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := cur.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				closeCur()
				return nil, pathError("mkdir", at, unwrap(err))
			}
			info, err = cur.Lstat(name)
		}
		if err != nil {
			closeCur()
			return nil, pathError("write", at, unwrap(err))
		}
		if err := dirKind(info.Mode()); err != nil {
			closeCur()
			return nil, pathError("write", at, err)
		}
		next, err := cur.OpenRoot(name)
		closeCur()
		if err != nil {
			return nil, pathError("write", at, unwrap(err))
		}
		cur = next
		now, err := next.Stat(".")
		if err != nil || !os.SameFile(now, info) {
			closeCur()
			return nil, pathError("write", at, errors.New("changed while it was opened: try again"))
		}
	}
	return cur, nil
}

// openDirRooted is OpenDirNoFollow through os.Root alone (walkRooted):
// the way on Windows, and a test of it everywhere.
func (r *Root) openDirRooted(rel string, create bool) (*Root, error) {
	cur, err := r.walkRooted(strings.Split(rel, "/"), create)
	if err != nil {
		return nil, err
	}
	dir, err := cur.Open(".")
	if err != nil {
		cur.Close()
		return nil, pathError("open", rel, unwrap(err))
	}
	return &Root{name: joinName(r.name, rel), dir: dir, root: cur}, nil
}

// dirKind refuses a folder on the way that is a link or not a folder.
func dirKind(m fs.FileMode) error {
	switch {
	case m&fs.ModeSymlink != 0:
		return ErrSymlink
	case m&fs.ModeIrregular != 0:
		// A Windows junction or mount point, which os.Root would follow.
		return ErrSymlink
	case !m.IsDir():
		return errNotDir
	}
	return nil
}

// fileKind refuses an existing target that is not a regular file.
func fileKind(m fs.FileMode) error {
	switch {
	case m&fs.ModeSymlink != 0, m&fs.ModeIrregular != 0:
		return ErrSymlink
	case m.IsDir():
		return errors.New("is a folder, not a file")
	case !m.IsRegular():
		return &NotRegularError{Mode: m}
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
