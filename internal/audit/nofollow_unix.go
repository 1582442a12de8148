//go:build unix

package audit

import "syscall"

// oNoFollow makes the open fail on a symbolic link in the last component
// of the path; O_NONBLOCK keeps a planted named pipe from blocking the
// open (openFile then refuses it as no regular file).
const oNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
