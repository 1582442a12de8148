package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the filter accepts.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32SyscallBit marks the system calls of the x32 ABI, which x86-64
// kernels accept under the same audit architecture; the filter refuses
// them all.
const x32SyscallBit = 0x40000000

// archDeniedSyscalls are the module calls that only x86-64 still numbers
// (the kernel answers ENOSYS to them; the filter makes sure of EPERM).
var archDeniedSyscalls = []uint32{unix.SYS_CREATE_MODULE, unix.SYS_QUERY_MODULE, unix.SYS_GET_KERNEL_SYMS}
