//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner refuses records that another user could have written: a
// file not owned by the user running vox-mcp, or writable by its group or
// by others, grants nothing (as ssh refuses such a key file).
func checkOwner(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by the user running vox-mcp (uid %d): its records grant nothing; remove it and run vox trust again", path, st.Uid, os.Getuid())
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %v): its records grant nothing; chmod 600 it", path, info.Mode().Perm())
	}
	return nil
}
