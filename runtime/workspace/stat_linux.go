package workspace

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// dirStat stats files relative to an open descriptor of their directory:
// the kernel then resolves one name instead of the whole path, which makes
// the stat of every file — most of a refresh where few files changed —
// about three times cheaper. It keeps the directory of the last file open
// for the next one (the walk hands files over directory by directory).
type dirStat struct {
	dir string
	fd  int // -1 when dir could not be opened
}

// lstat is d.Info() for the file abs found by the walk as d.
func (st *dirStat) lstat(abs string, d fs.DirEntry) (fs.FileInfo, error) {
	dir, name := filepath.Split(abs)
	if dir != st.dir || st.dir == "" {
		st.close()
		st.dir = dir
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		st.fd = fd
	}
	if st.fd < 0 {
		return d.Info()
	}
	var s unix.Stat_t
	if err := unix.Fstatat(st.fd, name, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: abs, Err: err}
	}
	return &statInfo{name: name, size: s.Size, mode: safefs.FileMode(s.Mode), modTime: time.Unix(s.Mtim.Unix()), nlink: uint64(s.Nlink)}, nil
}

func (st *dirStat) close() {
	if st.dir != "" && st.fd >= 0 {
		unix.Close(st.fd)
	}
	st.dir, st.fd = "", -1
}

// statInfo is the fs.FileInfo of a dirStat.
type statInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
	nlink   uint64
}

func (i *statInfo) Name() string       { return i.name }
func (i *statInfo) Size() int64        { return i.size }
func (i *statInfo) Mode() fs.FileMode  { return i.mode }
func (i *statInfo) ModTime() time.Time { return i.modTime }
func (i *statInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *statInfo) Sys() any           { return nil }

// linkCount is the number of hard links of the file info describes; 1
// when the info does not tell.
func linkCount(info fs.FileInfo) uint64 {
	switch sys := info.(type) {
	case *statInfo:
		return sys.nlink
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
