//go:build unix

package capability

import (
	"io/fs"
	"os"
	"syscall"
)

// dirID identifies a directory for a walk's loop check: its device and
// inode, from the fstat of the open directory (info).
type dirID struct{ dev, ino uint64 }

func dirIdentity(_ *os.File, info fs.FileInfo) (dirID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return dirID{}, false
	}
	return dirID{uint64(st.Dev), uint64(st.Ino)}, true
}
