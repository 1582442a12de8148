// Package safefs is how vox-mcp reads (and, for skill installs, writes)
// trees it does not trust — a repository's workspace, a skill folder, an
// install target — so that no path, at any time, can make it leave the
// tree or block:
//
//   - Every path is resolved beneath a Root, a folder held open: symlinks
//     and ".." are followed only while they stay inside it, and the check
//     is part of the open itself (openat2 with RESOLVE_BENEATH on Linux,
//     os.Root elsewhere), so a symlink swapped in after a scan is refused
//     when the file is read, never followed. Absolute symlinks are refused.
//   - Files are opened non-blocking and without becoming a controlling
//     terminal, and the opened descriptor is fstat'ed: anything that is
//     not a regular file or a folder (a FIFO, socket or device) is refused
//     with NotRegularError before a byte is read. A FIFO's open returns at
//     once instead of waiting for a writer.
//   - Writes create only (O_EXCL, no symlink followed), renames never
//     replace, removals stay beneath the root.
//
// Errors are *fs.PathError with the path relative to the root; their Err
// is ErrEscapes, a *NotRegularError, a *TooLargeError or the system's.
// docs/security.md lists the attacks this closes.
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ErrEscapes is the error of a path that leads outside its root: through
// "..", an absolute symlink, or a symlink whose target is outside.
var ErrEscapes = errors.New("leads outside its folder (through a symlink or ..): refused")

// ErrNotRegular matches every *NotRegularError (errors.Is).
var ErrNotRegular = errors.New("not a regular file or folder")

// NotRegularError is the error of opening a FIFO, socket, device or other
// special file.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("is %s, not a regular file or folder: refused (reading it could block or have effects)", KindOf(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// KindOf names the type of a file mode for messages: "a named pipe
// (FIFO)", "a socket", "a device", "a folder", "a regular file", ...
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// TooLargeError is the error of reading a file over the caller's limit.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("is larger than %s: at most that much is read", sizeText(e.Max))
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Root is an open folder that every path below it is resolved beneath.
// A Root is safe for concurrent use. The paths given to its methods are
// relative and slash-separated; "." is the root itself.
type Root struct {
	name string
	dir  *os.File // the folder, for openat2
	root *os.Root // the same folder
}

// OpenRoot opens the folder at path (symlinks in path itself are
// followed: the caller chose it). It refuses, without blocking, anything
// that is not a folder.
func OpenRoot(path string) (*Root, error) {
	dir, err := openDirNonblocking(path)
	if err != nil {
		return nil, err
	}
	osr, err := osRootOf(dir, func() (*os.Root, error) { return os.OpenRoot(path) })
	if err != nil {
		dir.Close()
		return nil, err
	}
	return &Root{name: path, dir: dir, root: osr}, nil
}

// Name is the path the root was opened with (joined with the relative
// paths of OpenRoot for sub-roots).
func (r *Root) Name() string { return r.name }

// Close closes the root; files opened through it stay open.
func (r *Root) Close() error {
	err := r.root.Close()
	if e := r.dir.Close(); err == nil {
		err = e
	}
	return err
}

// OpenRoot opens the folder rel beneath r as a new Root.
func (r *Root) OpenRoot(rel string) (*Root, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("open", rel, err)
	}
	// os.Root.OpenRoot would open a FIFO in rel's place for reading,
	// and block: the folder is opened first, with O_DIRECTORY.
	dir, err := r.openNonblocking(rel, true)
	if err != nil {
		return nil, pathError("open", rel, err)
	}
	osr, err := osRootOf(dir, func() (*os.Root, error) { return r.root.OpenRoot(rel) })
	if err != nil {
		dir.Close()
		return nil, pathError("open", rel, unwrap(err))
	}
	return &Root{name: joinName(r.name, rel), dir: dir, root: osr}, nil
}

// Open opens rel for reading: a regular file or a folder. It never blocks
// and never opens anything else.
func (r *Root) Open(rel string) (*os.File, fs.FileInfo, error) {
	if err := checkRel(rel); err != nil {
		return nil, nil, pathError("open", rel, err)
	}
	f, err := r.openNonblocking(rel, false)
	if err != nil {
		// Opening a socket fails (ENXIO): say what it is instead.
		if info, serr := r.stat(rel); serr == nil && !info.Mode().IsRegular() && !info.IsDir() {
			err = &NotRegularError{Mode: info.Mode()}
		}
		return nil, nil, pathError("open", rel, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, pathError("open", rel, unwrap(err))
	}
	if m := info.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, nil, pathError("open", rel, &NotRegularError{Mode: m})
	}
	return f, info, nil
}

// ReadFile reads the regular file rel, refusing one larger than max bytes
// (*TooLargeError) and anything that is not a regular file.
func (r *Root) ReadFile(rel string, max int64) ([]byte, error) {
	data, _, err := r.ReadFileInfo(rel, max)
	return data, err
}

// ReadFileInfo is ReadFile that also returns what the opened file's fstat
// said (before reading): size and modification time of the bytes read,
// never of a file swapped in later.
func (r *Root) ReadFileInfo(rel string, max int64) ([]byte, fs.FileInfo, error) {
	return r.AppendFileInfo(nil, rel, max)
}

// AppendFileInfo is ReadFileInfo that appends the file's bytes to buf
// (nil when it fails), so that a caller reading many files can reuse one
// buffer instead of leaving one as garbage per file.
func (r *Root) AppendFileInfo(buf []byte, rel string, max int64) ([]byte, fs.FileInfo, error) {
	f, info, err := r.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if info.IsDir() {
		return nil, nil, pathError("read", rel, errors.New("is a folder, not a file"))
	}
	if info.Size() > max {
		return nil, nil, pathError("read", rel, &TooLargeError{Size: info.Size(), Max: max})
	}
	// Room for the size fstat gave and one byte more, to see the end
	// without growing; a file that grew since is read on, up to max+1.
	start := len(buf)
	data := slices.Grow(buf, int(info.Size())+1)
	lim := io.LimitReader(f, max+1)
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, 512)
		}
		n, err := lim.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, pathError("read", rel, unwrap(err))
		}
	}
	if size := int64(len(data) - start); size > max {
		return nil, nil, pathError("read", rel, &TooLargeError{Size: size, Max: max})
	}
	return data, info, nil
}

// ReadNamedFile reads the regular file at path, a path a user named (on
// a command line, say): symlinks are followed, as the user asked for that
// path, but like ReadFile it never blocks on a FIFO, never opens a device
// or a terminal, and refuses a file larger than max bytes.
func ReadNamedFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock|oNoctty, 0)
	if err != nil {
		// Opening a socket fails (ENXIO): say what it is instead.
		if info, serr := os.Stat(path); serr == nil && !info.Mode().IsRegular() && !info.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Mode: info.Mode()}}
		}
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a folder, not a file")}
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Mode: info.Mode()}}
	}
	if info.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: info.Size(), Max: max}}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: int64(len(data)), Max: max}}
	}
	return data, nil
}

// Stat describes what Open(rel) would open (symlinks followed beneath the
// root) without opening it for reading: a FIFO is described, not opened.
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("stat", rel, err)
	}
	info, err := r.stat(rel)
	if err != nil {
		return nil, pathError("stat", rel, err)
	}
	return info, nil
}

// Lstat describes rel without following a final symlink.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("lstat", rel, err)
	}
	info, err := r.root.Lstat(rel)
	if err != nil {
		return nil, pathError("lstat", rel, unwrap(err))
	}
	return info, nil
}

// ReadDir lists the folder rel, sorted by name. Opening it never blocks: a
// FIFO in its place is "not a directory".
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("open", rel, err)
	}
	f, err := r.openNonblocking(rel, true)
	if err != nil {
		return nil, pathError("open", rel, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathError("readdir", rel, unwrap(err))
	}
	sortEntries(entries)
	return entries, nil
}

// Mkdir creates the folder rel; its parent is resolved beneath the root and
// rel itself is never followed.
func (r *Root) Mkdir(rel string, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return pathError("mkdir", rel, err)
	}
	if err := r.root.Mkdir(rel, perm); err != nil {
		return pathError("mkdir", rel, unwrap(err))
	}
	return nil
}

// MkdirAll creates the folder rel and its missing parents beneath the
// root; an existing part may be a symlink only to a folder beneath it.
func (r *Root) MkdirAll(rel string, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return pathError("mkdir", rel, err)
	}
	if err := r.root.MkdirAll(rel, perm); err != nil {
		return pathError("mkdir", rel, unwrap(err))
	}
	return nil
}

// MkdirTemp creates a new folder directly in the root named prefix plus
// random characters, and returns its name.
func (r *Root) MkdirTemp(prefix string) (string, error) {
	for range 100 {
		var b [8]byte
		rand.Read(b[:])
		name := prefix + hex.EncodeToString(b[:])
		err := r.root.Mkdir(name, 0o700)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", pathError("mkdir", name, unwrap(err))
		}
	}
	return "", pathError("mkdir", prefix+"*", errors.New("no free name"))
}

// Create creates the regular file rel for writing; it fails when rel
// exists (a symlink included), so it never writes through one.
func (r *Root) Create(rel string, perm fs.FileMode) (*os.File, error) {
	if err := checkRel(rel); err != nil {
		return nil, pathError("create", rel, err)
	}
	f, err := r.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, pathError("create", rel, unwrap(err))
	}
	return f, nil
}

// WriteFile creates the regular file rel (see Create) holding data.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	f, err := r.Create(rel, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return pathError("write", rel, unwrap(err))
	}
	if err := f.Close(); err != nil {
		return pathError("write", rel, unwrap(err))
	}
	return nil
}

// Rename renames the entry old of the root to new, both names directly in
// the root, refusing to replace an existing new.
func (r *Root) Rename(old, new string) error {
	for _, name := range []string{old, new} {
		if err := checkName(name); err != nil {
			return pathError("rename", name, err)
		}
	}
	if err := r.renameNoReplace(old, new); err != nil {
		return pathError("rename", new, err)
	}
	return nil
}

// RemoveAll removes rel and everything below it, beneath the root only.
func (r *Root) RemoveAll(rel string) error {
	if err := checkRel(rel); err != nil {
		return pathError("remove", rel, err)
	}
	if rel == "." {
		return pathError("remove", rel, errors.New("is the root itself"))
	}
	if err := r.root.RemoveAll(rel); err != nil {
		return pathError("remove", rel, unwrap(err))
	}
	return nil
}

// FS returns the root as an fs.FS, with ReadDir and Stat, for fs.WalkDir
// and friends: every name is resolved beneath the root, folders are opened
// as folders only and files as regular files or folders only, never
// blocking.
func (r *Root) FS() fs.FS { return rootFS{r} }

type rootFS struct{ r *Root }

func (f rootFS) Open(name string) (fs.File, error) {
	file, _, err := f.r.Open(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return f.r.ReadDir(name) }

func (f rootFS) Stat(name string) (fs.FileInfo, error) { return f.r.Stat(name) }

// SameFile reports whether the file rel (symlinks followed beneath the
// root) is the file described by info, an os.Stat or os.Lstat result.
func (r *Root) SameFile(rel string, info fs.FileInfo) bool {
	if checkRel(rel) != nil {
		return false
	}
	cur, err := r.root.Stat(rel)
	return err == nil && os.SameFile(cur, info)
}

// checkRel refuses paths that are not relative and slash-separated:
// absolute paths, backslashes, NUL, and paths whose ".." segments climb
// above the root once the path is cleaned lexically (the methods take the
// path as given; the kernel or os.Root resolves it beneath the root).
func checkRel(rel string) error {
	switch {
	case rel == "":
		return errors.New("empty path")
	case strings.HasPrefix(rel, "/"), filepath.VolumeName(rel) != "":
		return ErrEscapes
	case strings.ContainsAny(rel, "\\\x00"):
		return errors.New("not a slash-separated relative path")
	}
	if c := path.Clean(rel); c == ".." || strings.HasPrefix(c, "../") {
		return ErrEscapes
	}
	return nil
}

// checkName refuses anything but one path segment.
func checkName(name string) error {
	if err := checkRel(name); err != nil {
		return err
	}
	if name == "." || strings.Contains(name, "/") {
		return errors.New("not a single name")
	}
	return nil
}

func joinName(base, rel string) string {
	if rel == "." {
		return base
	}
	return base + string(os.PathSeparator) + strings.ReplaceAll(path.Clean(rel), "/", string(os.PathSeparator))
}

func pathError(op, rel string, err error) error {
	return &fs.PathError{Op: op, Path: rel, Err: err}
}

// unwrap takes the cause out of an *fs.PathError (whose path would be
// the root's absolute one) and names os.Root's escape error ErrEscapes.
func unwrap(err error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
			continue
		case errors.As(err, &le):
			err = le.Err
			continue
		}
		break
	}
	// os.Root's error for a path that escapes is not exported.
	if err != nil && err.Error() == "path escapes from parent" {
		return ErrEscapes
	}
	return err
}

// sortEntries sorts what os.File.ReadDir returns in directory order.
func sortEntries(entries []fs.DirEntry) {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// openFallback is openNonblocking through os.Root, which resolves each
// component itself, beneath the root: the way where openat2 is missing.
func (r *Root) openFallback(rel string, dirOnly bool) (*os.File, error) {
	flags := os.O_RDONLY | oNonblock | oNoctty
	if dirOnly {
		flags |= oDirectory
	}
	f, err := r.root.OpenFile(rel, flags, 0)
	if err != nil {
		return nil, unwrap(err)
	}
	if dirOnly && oDirectory == 0 {
		if info, err := f.Stat(); err != nil || !info.IsDir() {
			f.Close()
			return nil, errNotDir
		}
	}
	return f, nil
}

var errNotDir = errors.New("not a folder")

// verifySame checks that osr, opened by path, is the folder dir that was
// opened first without blocking: the path cannot have been swapped
// between the two opens unnoticed.
func verifySame(dir *os.File, osr *os.Root) error {
	a, err := dir.Stat()
	if err != nil {
		return err
	}
	b, err := osr.Stat(".")
	if err != nil {
		return err
	}
	if !os.SameFile(a, b) {
		return errors.New("changed while it was opened: try again")
	}
	return nil
}

// renameChecked renames without replacing where the system cannot say
// so itself: new must not exist just before.
func (r *Root) renameChecked(old, new string) error {
	if _, err := r.root.Lstat(new); err == nil {
		return fs.ErrExist
	}
	return unwrap(r.root.Rename(old, new))
}
