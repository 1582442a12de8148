//go:build linux

package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

const (
	oNonblock  = unix.O_NONBLOCK
	oNoctty    = unix.O_NOCTTY
	oDirectory = unix.O_DIRECTORY
)

// forceFallback makes a Root use os.Root instead of openat2 (for tests of
// the fallback).
var forceFallback bool

// haveOpenat2 says whether the kernel has openat2 (Linux 5.6) and no
// seccomp filter denies it.
var haveOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

func useOpenat2() bool { return !forceFallback && haveOpenat2() }

// openat2 opens rel beneath the folder dir: the kernel resolves every
// component, refusing ".." above dir, absolute symlinks and symlinks
// leading out (EXDEV) and magic links such as /proc/self/fd/N.
func openat2(dir *os.File, rel string, flags uint64) (int, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var openErr error
	ctlErr := conn.Control(func(dirfd uintptr) {
		how := &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
		// EAGAIN: a rename raced with the resolution of "..".
		for range 16 {
			fd, openErr = unix.Openat2(int(dirfd), rel, how)
			if openErr != unix.EAGAIN && openErr != unix.EINTR {
				break
			}
		}
	})
	if ctlErr != nil {
		return -1, ctlErr
	}
	if errors.Is(openErr, unix.EXDEV) {
		return -1, ErrEscapes
	}
	return fd, openErr
}

func (r *Root) openNonblocking(rel string, dirOnly bool) (*os.File, error) {
	if !useOpenat2() {
		return r.openFallback(rel, dirOnly)
	}
	flags := uint64(unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY)
	if dirOnly {
		flags |= unix.O_DIRECTORY
	}
	fd, err := openat2(r.dir, rel, flags)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), joinName(r.name, rel)), nil
}

func (r *Root) stat(rel string) (fs.FileInfo, error) {
	if !useOpenat2() {
		info, err := r.root.Stat(rel)
		return info, unwrap(err)
	}
	// An O_PATH descriptor opens nothing: fstat only. A call's check of
	// its tool's file goes here, so no *os.File is made.
	fd, err := openat2(r.dir, rel, unix.O_PATH)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil {
		return nil, err
	}
	return &statInfo{name: path.Base(rel), size: st.Size, mode: FileMode(st.Mode), modTime: time.Unix(st.Mtim.Unix())}, nil
}

// statInfo is the fs.FileInfo of Stat. Its Sys is nil: os.SameFile
// cannot compare it (Root.SameFile can).
type statInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func (i *statInfo) Name() string       { return i.name }
func (i *statInfo) Size() int64        { return i.size }
func (i *statInfo) Mode() fs.FileMode  { return i.mode }
func (i *statInfo) ModTime() time.Time { return i.modTime }
func (i *statInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *statInfo) Sys() any           { return nil }

func (r *Root) renameNoReplace(old, new string) error {
	conn, err := r.dir.SyscallConn()
	if err != nil {
		return err
	}
	var renameErr error
	if err := conn.Control(func(fd uintptr) {
		renameErr = unix.Renameat2(int(fd), old, int(fd), new, unix.RENAME_NOREPLACE)
	}); err != nil {
		return err
	}
	switch {
	case renameErr == unix.EEXIST:
		return fs.ErrExist
	case renameErr == unix.ENOSYS || renameErr == unix.EINVAL:
		// The kernel or the file system cannot refuse a replace itself.
		return r.renameChecked(old, new)
	}
	return renameErr
}

func openDirNonblocking(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// osRootOf opens the folder dir as an os.Root: through /proc/self/fd,
// which names that very folder, or with open (by path) where /proc is
// missing, checked to be the same folder.
func osRootOf(dir *os.File, open func() (*os.Root, error)) (*os.Root, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	var osr *os.Root
	if err := conn.Control(func(fd uintptr) {
		osr, _ = os.OpenRoot(fmt.Sprintf("/proc/self/fd/%d", fd))
	}); err != nil {
		return nil, err
	}
	if osr == nil {
		if osr, err = open(); err != nil {
			return nil, err
		}
	}
	if err := verifySame(dir, osr); err != nil {
		osr.Close()
		return nil, err
	}
	return osr, nil
}

// openDirNoSymlinks opens the folder rel with openat2, refusing every
// symbolic link on the way (RESOLVE_NO_SYMLINKS) as well as leaving the
// root: the one-call way of ReplaceFile. It reports false when openat2 is
// missing or refused the path, so that the component walk creates what
// is missing and names what it refuses.
func (r *Root) openDirNoSymlinks(rel string) (int, bool) {
	if !useOpenat2() || rel == "" {
		return -1, false
	}
	conn, err := r.dir.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd := -1
	var openErr error
	if err := conn.Control(func(dirfd uintptr) {
		how := &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NONBLOCK | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		for range 16 {
			fd, openErr = unix.Openat2(int(dirfd), rel, how)
			if openErr != unix.EAGAIN && openErr != unix.EINTR {
				break
			}
		}
	}); err != nil || openErr != nil {
		return -1, false
	}
	return fd, true
}
