//go:build !unix

package safefs

import (
	"io/fs"
	"os"
)

// Windows has no FIFOs in the file system and no O_NONBLOCK: os.Root
// confines, and Open's check of the opened file's type refuses devices.
const (
	oNonblock  = 0
	oNoctty    = 0
	oDirectory = 0
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return f, nil
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
