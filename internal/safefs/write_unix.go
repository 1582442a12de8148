//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// replaceFile opens the folder of rel with no link followed
// (openDirNoFollow) and writes through its descriptor.
func (r *Root) replaceFile(rel string, data []byte, perm fs.FileMode) error {
	dirs, base := components(rel)
	dirfd, err := r.openDirNoFollow(dirs, true)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	switch err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		if err := fileKind(FileMode(uint32(st.Mode))); err != nil {
			return pathError("write", rel, err)
		}
	case err != unix.ENOENT:
		return pathError("write", rel, err)
	}
	tmp := tempName(base)
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return pathError("write", rel, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// Within one opened folder: the rename replaces the name base,
		// never what a link of that name points at.
		werr = unix.Renameat(dirfd, tmp, dirfd, base)
	}
	if werr != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return pathError("write", rel, unwrap(werr))
	}
	return nil
}

// openDirNoFollowRoot opens the folder rel with openDirNoFollow and makes
// it a Root: the os.Root half is opened through the descriptor (Linux) or
// by path and checked to be the same folder (osRootOf).
func (r *Root) openDirNoFollowRoot(rel string, create bool) (*Root, error) {
	fd, err := r.openDirNoFollow(strings.Split(rel, "/"), create)
	if err != nil {
		return nil, err
	}
	name := joinName(r.name, rel)
	dir := os.NewFile(uintptr(fd), name)
	osr, err := osRootOf(dir, func() (*os.Root, error) { return os.OpenRoot(name) })
	if err != nil {
		dir.Close()
		return nil, pathError("open", rel, unwrap(err))
	}
	return &Root{name: name, dir: dir, root: osr}, nil
}

// openDirNoFollow opens the folder dirs (the components below the root)
// without following any link, creating the missing ones when create is
// set, and returns its descriptor. On Linux one openat2 with RESOLVE_NO_SYMLINKS opens an
// existing folder; otherwise, and to create or to name the component
// refused, each component is opened with O_NOFOLLOW from the one before.
func (r *Root) openDirNoFollow(dirs []string, create bool) (int, error) {
	if fd, ok := r.openDirNoSymlinks(strings.Join(dirs, "/")); ok {
		return fd, nil
	}
	conn, err := r.dir.SyscallConn()
	if err != nil {
		return -1, err
	}
	cur := -1
	var dupErr error
	if err := conn.Control(func(fd uintptr) { cur, dupErr = unix.Dup(int(fd)) }); err != nil {
		return -1, err
	}
	if dupErr != nil {
		return -1, dupErr
	}
	for i, name := range dirs {
		at := strings.Join(dirs[:i+1], "/")
		next, err := openDirAt(cur, name)
		if err == unix.ENOENT && create {
			if err := unix.Mkdirat(cur, name, 0o755); err != nil && err != unix.EEXIST {
				unix.Close(cur)
				return -1, pathError("mkdir", at, err)
			}
			next, err = openDirAt(cur, name)
		}
		if err != nil {
			err = whyNotDir(cur, name, err)
			unix.Close(cur)
			return -1, pathError("write", at, err)
		}
		unix.Close(cur)
		cur = next
	}
	return cur, nil
}

func openDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// whyNotDir names why a component could not be opened as a folder: a
// link (O_NOFOLLOW gives ELOOP, or ENOTDIR with O_DIRECTORY on some
// systems) or something else.
func whyNotDir(dirfd int, name string, err error) error {
	var st unix.Stat_t
	if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil {
		m := FileMode(uint32(st.Mode))
		if m&fs.ModeSymlink != 0 {
			return ErrSymlink
		}
		if !m.IsDir() {
			return errNotDir
		}
	}
	if errors.Is(err, unix.ELOOP) {
		return ErrSymlink
	}
	return err
}
