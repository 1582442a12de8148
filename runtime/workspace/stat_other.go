//go:build !linux

package workspace

import "io/fs"

// dirStat stats the files a scan found; only Linux has the faster way
// (stat_linux.go).
type dirStat struct{}

// lstat is d.Info().
func (*dirStat) lstat(_ string, d fs.DirEntry) (fs.FileInfo, error) { return d.Info() }

func (*dirStat) close() {}

// linkCount is 1: only Linux refreshes from watched changes, which an
// edit through another hard link escapes (stat_linux.go).
func linkCount(fs.FileInfo) uint64 { return 1 }
