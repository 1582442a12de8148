//go:build unix && !linux

package safefs

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

const (
	oNonblock  = unix.O_NONBLOCK
	oNoctty    = unix.O_NOCTTY
	oDirectory = unix.O_DIRECTORY
)

// forceFallback is meaningless here: os.Root is the only way.
var forceFallback bool

func useOpenat2() bool { return false }

func (r *Root) openNonblocking(rel string, dirOnly bool) (*os.File, error) {
	return r.openFallback(rel, dirOnly)
}

func (r *Root) stat(rel string) (fs.FileInfo, error) {
	info, err := r.root.Stat(rel)
	return info, unwrap(err)
}

func (r *Root) renameNoReplace(old, new string) error { return r.renameChecked(old, new) }

func openDirNonblocking(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// osRootOf opens the folder dir as an os.Root with open (by path), checked
// to be that folder. A FIFO swapped in between the two opens could block
// os.Root's open: only Linux, through /proc, closes that window.
func osRootOf(dir *os.File, open func() (*os.Root, error)) (*os.Root, error) {
	osr, err := open()
	if err != nil {
		return nil, err
	}
	if err := verifySame(dir, osr); err != nil {
		osr.Close()
		return nil, err
	}
	return osr, nil
}

// openDirNoSymlinks: no openat2 here; ReplaceFile walks the components
// with O_NOFOLLOW.
func (r *Root) openDirNoSymlinks(string) (int, bool) { return -1, false }
