//go:build linux

package main

import "golang.org/x/sys/unix"

// archCalls are the module calls only x86-64 numbers; unfiltered the
// kernel answers ENOSYS.
var archCalls = []call{
	{"modules", "create_module", unix.SYS_CREATE_MODULE, [6]uintptr{}},
	{"modules", "query_module", unix.SYS_QUERY_MODULE, [6]uintptr{}},
	{"modules", "get_kernel_syms", unix.SYS_GET_KERNEL_SYMS, [6]uintptr{}},
}
