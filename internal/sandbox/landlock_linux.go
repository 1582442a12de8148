package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock restricts file access of the command to the paths the sandbox
// binds, by file hierarchy rather than by mount: even a descriptor or path
// that led out of the new root would reach nothing. It is applied in the
// init only, on the locked thread that then forks the shell (a Landlock
// domain belongs to a thread and is inherited by what it forks), never in
// the server, whose installs and clones it would restrict for good.
// Raw system calls, no cgo.

// File access rights of Landlock, by the ABI version that added them.
const (
	llReadFile  = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir   = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llExecute   = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llTruncate  = unix.LANDLOCK_ACCESS_FS_TRUNCATE  // ABI 3
	llIoctlDev  = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV // ABI 5

	// llABI1 is every right of ABI 1: execute, write, read, read_dir,
	// remove_dir, remove_file and make_* (char, dir, reg, sock, fifo,
	// block, sym).
	llABI1  = 1<<13 - 1
	llRefer = unix.LANDLOCK_ACCESS_FS_REFER // ABI 2

	// llFileRights are the rights that may be granted on a file rather
	// than a folder.
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
)

// landlockABI is the kernel's Landlock ABI version, 0 when it has none
// (not built in, or not in the boot's list of security modules).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlockHandled is every file access right the ABI knows: all of them
// are denied except where a rule grants them.
func landlockHandled(abi int) uint64 {
	h := uint64(llABI1)
	if abi >= 2 {
		h |= llRefer
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= llIoctlDev
	}
	return h
}

// landlockRule grants access below path.
type landlockRule struct {
	path   string
	access uint64
}

// restrictLandlock allows the calling thread only the rules' access, from
// now on and for everything it starts. The thread must have no_new_privs.
func restrictLandlock(abi int, rules []landlockRule) error {
	handled := landlockHandled(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	// Only the first field: every kernel with Landlock knows it, and a
	// larger struct would be refused by the older ones.
	rs, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr.Handled_access_fs), 0)
	if errno != 0 {
		return fmt.Errorf("create ruleset: %w", errno)
	}
	defer unix.Close(int(rs))
	for _, r := range rules {
		if err := addLandlockRule(int(rs), r, handled); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rs, 0, 0); errno != 0 {
		return fmt.Errorf("restrict self: %w", errno)
	}
	return nil
}

func addLandlockRule(ruleset int, r landlockRule, handled uint64) error {
	fd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", r.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", r.path, err)
	}
	access := r.access & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	if access == 0 {
		return nil // the kernel refuses an empty rule; nothing to grant
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("allow %s: %w", r.path, errno)
	}
	return nil
}
