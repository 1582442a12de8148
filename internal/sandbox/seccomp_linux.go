package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of every command (docs/sandbox.md, "The seccomp filter"). It denies, with
// EPERM, what no skill command needs and what would let a command out:
//
//	ioctl TIOCSTI, TIOCLINUX       inject keystrokes into a terminal
//	ptrace, process_vm_*           read or write other processes
//	mount, umount2, pivot_root,    change mounts (the old and the new API)
//	open_tree, move_mount, fs*, mount_setattr
//	unshare, setns, clone with a   enter or create namespaces
//	CLONE_NEW* flag
//	keyctl, add_key, request_key   the kernel keyrings
//	bpf, perf_event_open,          kernel attack surface
//	userfaultfd, kexec_*
//	io_uring_setup, _enter,        io_uring: its operations run in the kernel
//	_register                      without passing this filter, a large surface
//	init_module, finit_module,     load or remove kernel modules (and, on x86-64,
//	delete_module                  the old create_module, query_module, get_kernel_syms)
//	open_by_handle_at              open any file of a mounted file system by its
//	                               handle, around the mount namespace
//
// socket and socketpair answer EAFNOSUPPORT for every address family but
// AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK: the families an empty network
// namespace has something behind (a loopback interface, its routing
// tables). Every other family is either not confined by a network
// namespace (AF_VSOCK reaches the hypervisor host from a virtual machine)
// or a kernel surface no skill command needs (AF_PACKET, AF_ALG, AF_XDP,
// ...); a family whose module is not loaded would also make the kernel
// load it on the host. EAFNOSUPPORT is what a kernel without the family
// answers, so programs fall back as they would there.
//
// name_to_handle_at stays allowed: it only names a file the command can
// already reach by path, and the handle opens nothing without
// open_by_handle_at (some tools read a mount id through it).
//
// clone3 answers ENOSYS: its flags lie in memory a filter cannot read, and
// ENOSYS makes the C library fall back to clone, whose flags it can. A
// system call of another architecture (an i386 or x32 call on x86-64)
// kills the process: the numbers above mean other calls there.
//
// The kernel reads an ioctl request as 32 bits, so the filter compares the
// low 32 bits of the argument only: comparing all 64 would let
// TIOCSTI|1<<32 through to a kernel that drops the high half.

// deniedSyscalls fail with EPERM whatever their arguments.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_OPEN_BY_HANDLE_AT,
}

// allowedSocketFamilies are the address families socket and socketpair
// accept; any other answers EAFNOSUPPORT.
var allowedSocketFamilies = []uint32{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}

// deniedIoctls are the ioctl requests that fail with EPERM.
var deniedIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX}

// cloneNewFlags are the namespace flags of clone(2) (CLONE_NEWTIME shares
// its bit with the exit signal there and needs clone3 or unshare).
const cloneNewFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// Offsets in struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6].
// Both supported architectures are little-endian, so the low half of
// args[i] is at 16+8i.
const (
	offNr   = 0
	offArch = 4
)

func offArgLow(i int) uint32 { return 16 + 8*uint32(i) }

// bpfProgram assembles a classic BPF program whose jumps name labels.
type bpfProgram struct {
	ins    []unix.SockFilter
	jumps  []bpfJump
	labels map[string]int
}

type bpfJump struct {
	at     int
	jt, jf string // "" falls through
}

func (p *bpfProgram) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

// jump adds a conditional jump to label jt when true, jf when false.
func (p *bpfProgram) jump(code uint16, k uint32, jt, jf string) {
	p.jumps = append(p.jumps, bpfJump{at: len(p.ins), jt: jt, jf: jf})
	p.ins = append(p.ins, unix.SockFilter{Code: unix.BPF_JMP | code | unix.BPF_K, K: k})
}

func (p *bpfProgram) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

// load reads a 32-bit word of seccomp_data.
func (p *bpfProgram) load(off uint32) { p.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }

func (p *bpfProgram) ret(v uint32) { p.stmt(unix.BPF_RET|unix.BPF_K, v) }

// assemble resolves the labels; classic BPF jumps only forward, at most
// 255 instructions.
func (p *bpfProgram) assemble() ([]unix.SockFilter, error) {
	off := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := p.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %q", label)
		}
		d := to - from - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump to %q out of range (%d)", label, d)
		}
		return uint8(d), nil
	}
	for _, j := range p.jumps {
		var err error
		if p.ins[j.at].Jt, err = off(j.at, j.jt); err != nil {
			return nil, err
		}
		if p.ins[j.at].Jf, err = off(j.at, j.jf); err != nil {
			return nil, err
		}
	}
	return p.ins, nil
}

// seccompFilter builds the filter for the architecture this binary runs on.
func seccompFilter() ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, errors.New("no seccomp filter is written for this architecture")
	}
	var p bpfProgram
	p.load(offArch)
	p.jump(unix.BPF_JEQ, auditArch, "", "kill")
	p.load(offNr)
	if x32SyscallBit != 0 {
		p.jump(unix.BPF_JGE, x32SyscallBit, "kill", "")
	}
	for _, nr := range append(deniedSyscalls, archDeniedSyscalls...) {
		p.jump(unix.BPF_JEQ, nr, "eperm", "")
	}
	p.jump(unix.BPF_JEQ, unix.SYS_SOCKET, "socket", "")
	p.jump(unix.BPF_JEQ, unix.SYS_SOCKETPAIR, "socket", "")
	p.jump(unix.BPF_JEQ, unix.SYS_IOCTL, "ioctl", "")
	p.jump(unix.BPF_JEQ, unix.SYS_CLONE, "clone", "")
	p.jump(unix.BPF_JEQ, unix.SYS_CLONE3, "enosys", "")
	p.ret(unix.SECCOMP_RET_ALLOW)

	p.label("ioctl")
	p.load(offArgLow(1)) // the request; the high half is never looked at
	for _, req := range deniedIoctls {
		p.jump(unix.BPF_JEQ, req, "eperm", "")
	}
	p.ret(unix.SECCOMP_RET_ALLOW)

	p.label("socket")
	// The family, an int: the kernel reads the low 32 bits only.
	p.load(offArgLow(0))
	for _, af := range allowedSocketFamilies {
		p.jump(unix.BPF_JEQ, af, "allow", "")
	}
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT))

	p.label("clone")
	p.load(offArgLow(0)) // the flags (first argument on x86-64 and arm64)
	p.jump(unix.BPF_JSET, cloneNewFlags, "eperm", "")
	p.ret(unix.SECCOMP_RET_ALLOW)

	p.label("allow")
	p.ret(unix.SECCOMP_RET_ALLOW)
	p.label("eperm")
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	p.label("enosys")
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	p.label("kill")
	p.ret(unix.SECCOMP_RET_KILL_PROCESS)
	return p.assemble()
}

// installSeccomp installs the filter on the calling thread, which must be
// locked to its goroutine and have no_new_privs set; the processes it
// forks inherit the filter.
func installSeccomp() error {
	filter, err := seccompFilter()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
