//go:build windows

package capability

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// dirID identifies a directory for a walk's loop check: the volume serial
// number and the 64-bit file index of the open directory, from
// GetFileInformationByHandle on its handle — Windows' device and inode,
// which os.SameFile compares too. A map keyed by them keeps the check one
// lookup per directory (os.SameFile would compare pairs).
type dirID struct{ dev, ino uint64 }

func dirIdentity(f *os.File, _ fs.FileInfo) (dirID, bool) {
	conn, err := f.SyscallConn()
	if err != nil {
		return dirID{}, false
	}
	var d windows.ByHandleFileInformation
	var infoErr error
	if err := conn.Control(func(h uintptr) {
		infoErr = windows.GetFileInformationByHandle(windows.Handle(h), &d)
	}); err != nil || infoErr != nil {
		return dirID{}, false
	}
	return dirID{uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}, true
}
