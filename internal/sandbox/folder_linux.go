package sandbox

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// FolderOf is the FolderID of fi, the Lstat of a folder (a user namespace
// does not change st_dev, so it holds inside the sandbox too).
func FolderOf(fi os.FileInfo) FolderID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st != nil {
		return FolderID{Dev: uint64(st.Dev), Ino: st.Ino}
	}
	return FolderID{}
}

// openDiscovered opens the folder dir (absolute and clean) as an O_PATH
// descriptor, resolving it from / without following any symlink on the way
// (a swapped-in symlink fails with ELOOP), and checks that it is still the
// folder want. Binding through the descriptor (/proc/self/fd/N) then binds
// exactly the folder checked, whatever happens to the path afterwards.
func openDiscovered(dir string, want FolderID) (int, error) {
	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(root)
	rel := strings.TrimPrefix(dir, "/")
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_BENEATH,
	})
	switch {
	case err == unix.ELOOP:
		return -1, errnoDetail{fmt.Sprintf("%s: a symlink is now on the path (%v): the folder is no longer the one discovered", dir, err), syscall.ELOOP}
	case err == unix.ENOTDIR:
		return -1, errnoDetail{fmt.Sprintf("%s: no longer a folder (%v)", dir, err), syscall.ENOTDIR}
	case err != nil:
		if errno, ok := err.(syscall.Errno); ok {
			return -1, errnoDetail{fmt.Sprintf("%s: %v", dir, errno), errno}
		}
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if got := (FolderID{Dev: uint64(st.Dev), Ino: st.Ino}); got != want {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is no longer the folder discovered (device:inode %d:%d, now %d:%d): refusing to bind it; "+
			"restart vox-mcp to serve the folder that is there now", dir, want.Dev, want.Ino, got.Dev, got.Ino)
	}
	return fd, nil
}
