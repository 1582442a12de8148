package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the filter accepts.
const auditArch = unix.AUDIT_ARCH_AARCH64

// x32SyscallBit: arm64 has no second ABI under the same audit architecture.
const x32SyscallBit = 0

// archDeniedSyscalls: arm64 never numbered create_module, query_module or
// get_kernel_syms.
var archDeniedSyscalls []uint32
