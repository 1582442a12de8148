//go:build !unix

package audit

// oNoFollow is 0 where the system has no O_NOFOLLOW (Windows): openFile's
// Lstat before the open refuses a symbolic link there.
const oNoFollow = 0
