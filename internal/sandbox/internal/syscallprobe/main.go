//go:build linux

// Command syscallprobe tries, from inside a skill command, what the sandbox
// must deny, and prints what the kernel answered: one line per attempt,
// "NAME: RESULT", where RESULT is "ok" or the errno's name. The sandbox's
// tests and the attack suite (e2e/attacks) copy it into a skill folder and
// run it with vox_skill_run; it is never part of vox-mcp.
//
//	syscallprobe syscalls [FAMILY...]
//	                               every system call of the seccomp filter (or those of the
//	                               families named: tty, ptrace, mount, namespaces, keyrings,
//	                               kernel, io_uring, modules, handles, sockets, allowed), with
//	                               arguments that fail harmlessly, with another answer than
//	                               the filter's, when nothing filters them
//	syscallprobe tiocsti [-upto NAME]
//	                               inject keystrokes with TIOCSTI (and TIOCSTI|1<<32) into
//	                               /dev/tty, into the probe's own descriptors 0-9, and into
//	                               descriptors 0-9 of its ancestors up to the first one whose
//	                               command name is NAME
//	syscallprobe x32               one x32 system call (x86-64 only): the filter kills the process
//	syscallprobe mmap BYTES        map BYTES of anonymous memory (RLIMIT_AS refuses a large one)
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Payload is what tiocsti injects: a shell comment, harmless should it ever
// reach a shell.
const Payload = "# vox-keys-injected\n"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: syscallprobe syscalls [FAMILY...] | tiocsti [-upto NAME] | x32 | mmap BYTES")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "syscalls":
		syscalls(os.Args[2:])
	case "tiocsti":
		fs := flag.NewFlagSet("tiocsti", flag.ExitOnError)
		upto := fs.String("upto", "", "walk ancestors up to the first with this command name")
		_ = fs.Parse(os.Args[2:])
		tiocsti(*upto)
	case "x32":
		x32()
	case "mmap":
		n, err := strconv.ParseInt(os.Args[len(os.Args)-1], 10, 64)
		if err != nil || len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: syscallprobe mmap BYTES")
			os.Exit(2)
		}
		_, err = unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
		if err != nil {
			fmt.Printf("mmap %d: %s\n", n, result(err.(unix.Errno)))
		} else {
			fmt.Printf("mmap %d: ok\n", n)
		}
	default:
		fmt.Fprintf(os.Stderr, "syscallprobe: unknown probe %q\n", os.Args[1])
		os.Exit(2)
	}
}

// result names what a system call returned.
func result(errno unix.Errno) string {
	if errno == 0 {
		return "ok"
	}
	if name := unix.ErrnoName(errno); name != "" {
		return name
	}
	return "errno " + strconv.Itoa(int(errno))
}

const missing = "/nonexistent-vox-probe"

func cstr(s string) uintptr {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return uintptr(unsafe.Pointer(p))
}

// call is one system call the probe tries, in a family of calls it can
// be asked for by name.
type call struct {
	family string
	name   string
	nr     uintptr
	args   [6]uintptr
}

// families are the names syscalls accepts, in the order it tries them.
var families = []string{"tty", "ptrace", "mount", "namespaces", "keyrings", "kernel", "io_uring", "modules", "handles", "sockets", "allowed"}

// syscalls tries each call of the families named (all when none is). The
// arguments are chosen so that, unfiltered, the call fails (or does
// nothing, or makes a socket it closes at once) with an answer other than
// the filter's even as root: a missing path, a bad descriptor, invalid
// flags, an empty module image.
func syscalls(want []string) {
	runtime.LockOSThread()
	for _, f := range want {
		if !slices.Contains(families, f) {
			fmt.Fprintf(os.Stderr, "syscallprobe: unknown family %q; known: %s\n", f, strings.Join(families, ", "))
			os.Exit(2)
		}
	}
	devnull, err := unix.Open("/dev/null", unix.O_RDWR, 0)
	if err != nil {
		fmt.Println("open /dev/null:", err)
		os.Exit(1)
	}
	var c byte = '#'
	pc := uintptr(unsafe.Pointer(&c))
	var fds [2]int32
	pfds := uintptr(unsafe.Pointer(&fds))
	stream := uintptr(unix.SOCK_STREAM | unix.SOCK_CLOEXEC)
	calls := []call{
		{"tty", "ioctl TIOCSTI", unix.SYS_IOCTL, [6]uintptr{uintptr(devnull), unix.TIOCSTI, pc}},
		{"tty", "ioctl TIOCSTI|1<<32", unix.SYS_IOCTL, [6]uintptr{uintptr(devnull), unix.TIOCSTI | 1<<32, pc}},
		{"tty", "ioctl TIOCLINUX", unix.SYS_IOCTL, [6]uintptr{uintptr(devnull), unix.TIOCLINUX, pc}},
		{"tty", "ioctl TIOCLINUX|1<<32", unix.SYS_IOCTL, [6]uintptr{uintptr(devnull), unix.TIOCLINUX | 1<<32, pc}},
		{"ptrace", "ptrace", unix.SYS_PTRACE, [6]uintptr{unix.PTRACE_PEEKDATA, 0x7fffffff}},
		{"ptrace", "process_vm_readv", unix.SYS_PROCESS_VM_READV, [6]uintptr{0x7fffffff, 0, 0, 0, 0, 1}},
		{"ptrace", "process_vm_writev", unix.SYS_PROCESS_VM_WRITEV, [6]uintptr{0x7fffffff, 0, 0, 0, 0, 1}},
		{"mount", "mount", unix.SYS_MOUNT, [6]uintptr{cstr(missing), cstr(missing), 0, unix.MS_BIND}},
		{"mount", "umount2", unix.SYS_UMOUNT2, [6]uintptr{cstr(missing), 0xffff}},
		{"mount", "pivot_root", unix.SYS_PIVOT_ROOT, [6]uintptr{cstr(missing), cstr(missing)}},
		{"mount", "open_tree", unix.SYS_OPEN_TREE, [6]uintptr{^uintptr(99), cstr(missing), 0xffffffff}},
		{"mount", "open_tree_attr", unix.SYS_OPEN_TREE_ATTR, [6]uintptr{^uintptr(99), cstr(missing), 0xffffffff}},
		{"mount", "move_mount", unix.SYS_MOVE_MOUNT, [6]uintptr{^uintptr(99), cstr(missing), ^uintptr(99), cstr(missing), 0xffffffff}},
		{"mount", "fsopen", unix.SYS_FSOPEN, [6]uintptr{cstr("nonexistent-fs"), 0xffffffff}},
		{"mount", "fsconfig", unix.SYS_FSCONFIG, [6]uintptr{^uintptr(0), 0xffff}},
		{"mount", "fsmount", unix.SYS_FSMOUNT, [6]uintptr{^uintptr(0), 0xffffffff}},
		{"mount", "fspick", unix.SYS_FSPICK, [6]uintptr{^uintptr(99), cstr(missing), 0xffffffff}},
		{"mount", "mount_setattr", unix.SYS_MOUNT_SETATTR, [6]uintptr{^uintptr(99), cstr(missing), 0xffffffff}},
		{"namespaces", "unshare", unix.SYS_UNSHARE, [6]uintptr{0}}, // no flags: does nothing
		{"namespaces", "setns", unix.SYS_SETNS, [6]uintptr{^uintptr(0), 0}},
		{"keyrings", "keyctl", unix.SYS_KEYCTL, [6]uintptr{0x7fff}},
		{"keyrings", "add_key", unix.SYS_ADD_KEY, [6]uintptr{0, 0, 0, 0, 0}},
		{"keyrings", "request_key", unix.SYS_REQUEST_KEY, [6]uintptr{0, 0, 0, 0}},
		{"kernel", "bpf", unix.SYS_BPF, [6]uintptr{0x7fff, 0, 0}},
		{"kernel", "perf_event_open", unix.SYS_PERF_EVENT_OPEN, [6]uintptr{0, 0, 0, ^uintptr(0), 0xffffffff}},
		{"kernel", "userfaultfd", unix.SYS_USERFAULTFD, [6]uintptr{0xffffffff}},
		{"kernel", "kexec_load", unix.SYS_KEXEC_LOAD, [6]uintptr{0, 0, 0, 0xffff0000}},
		{"kernel", "kexec_file_load", unix.SYS_KEXEC_FILE_LOAD, [6]uintptr{^uintptr(0), ^uintptr(0), 0, 0, 0xffffffff}},
		// CLONE_NEWUSER with CLONE_FS is invalid: unfiltered, EINVAL and no child.
		{"namespaces", "clone CLONE_NEWUSER", unix.SYS_CLONE, [6]uintptr{unix.CLONE_NEWUSER | unix.CLONE_FS}},
		// A size too small for struct clone_args: unfiltered, EINVAL.
		{"namespaces", "clone3", unix.SYS_CLONE3, [6]uintptr{0, 0}},
		// No parameters to copy: unfiltered, EFAULT (EPERM only where the
		// io_uring_disabled sysctl is 2); a bad ring descriptor: EBADF.
		{"io_uring", "io_uring_setup", unix.SYS_IO_URING_SETUP, [6]uintptr{1, 0}},
		{"io_uring", "io_uring_enter", unix.SYS_IO_URING_ENTER, [6]uintptr{^uintptr(0), 0, 0, 0, 0, 0}},
		{"io_uring", "io_uring_register", unix.SYS_IO_URING_REGISTER, [6]uintptr{^uintptr(0), 0, 0, 0}},
		// An empty image (ENOEXEC), a bad descriptor (EBADF), no name
		// (EFAULT) as root; EPERM without CAP_SYS_MODULE, ENOSYS on a
		// kernel without modules.
		{"modules", "init_module", unix.SYS_INIT_MODULE, [6]uintptr{0, 0, cstr("")}},
		{"modules", "finit_module", unix.SYS_FINIT_MODULE, [6]uintptr{^uintptr(0), cstr(""), 0}},
		{"modules", "delete_module", unix.SYS_DELETE_MODULE, [6]uintptr{0, 0}},
		// A bad mount descriptor: unfiltered, EBADF.
		{"handles", "open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, [6]uintptr{^uintptr(0), 0, unix.O_RDONLY}},
		// Unfiltered these make a socket (closed at once) where the kernel
		// has the family; socketpair of AF_VSOCK answers EOPNOTSUPP.
		{"sockets", "socket AF_VSOCK", unix.SYS_SOCKET, [6]uintptr{unix.AF_VSOCK, stream}},
		{"sockets", "socket AF_VSOCK|1<<32", unix.SYS_SOCKET, [6]uintptr{unix.AF_VSOCK | 1<<32, stream}},
		{"sockets", "socket AF_PACKET", unix.SYS_SOCKET, [6]uintptr{unix.AF_PACKET, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}},
		{"sockets", "socketpair AF_VSOCK", unix.SYS_SOCKETPAIR, [6]uintptr{unix.AF_VSOCK, stream, 0, pfds}},
		// What commands need keeps working.
		{"allowed", "ioctl TCGETS", unix.SYS_IOCTL, [6]uintptr{uintptr(devnull), unix.TCGETS, uintptr(unsafe.Pointer(new(unix.Termios)))}},
		{"allowed", "getpid", unix.SYS_GETPID, [6]uintptr{}},
		{"allowed", "socket AF_UNIX", unix.SYS_SOCKET, [6]uintptr{unix.AF_UNIX, stream}},
		{"allowed", "socket AF_INET", unix.SYS_SOCKET, [6]uintptr{unix.AF_INET, stream}},
		{"allowed", "socket AF_INET6", unix.SYS_SOCKET, [6]uintptr{unix.AF_INET6, stream}},
		{"allowed", "socket AF_NETLINK", unix.SYS_SOCKET, [6]uintptr{unix.AF_NETLINK, unix.SOCK_RAW | unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE}},
		{"allowed", "socketpair AF_UNIX", unix.SYS_SOCKETPAIR, [6]uintptr{unix.AF_UNIX, stream, 0, pfds}},
	}
	// The old module calls go with the others of their family.
	at := slices.IndexFunc(calls, func(c call) bool { return c.family == "handles" })
	calls = slices.Insert(calls, at, archCalls...)
	for _, c := range calls {
		if len(want) > 0 && !slices.Contains(want, c.family) {
			continue
		}
		r, _, errno := unix.Syscall6(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])
		if errno == 0 {
			switch c.nr {
			case unix.SYS_SOCKET:
				unix.Close(int(r))
			case unix.SYS_SOCKETPAIR:
				unix.Close(int(fds[0]))
				unix.Close(int(fds[1]))
			}
		}
		fmt.Printf("%s: %s\n", c.name, result(errno))
	}
}

// tiocsti tries to inject Payload into every terminal it can reach.
func tiocsti(upto string) {
	type target struct {
		name string
		fd   int
	}
	var targets []target
	if fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		fmt.Printf("/dev/tty: open: %s\n", result(err.(unix.Errno)))
	} else {
		targets = append(targets, target{"/dev/tty", fd})
	}
	for fd := 0; fd < 10; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			targets = append(targets, target{"fd " + strconv.Itoa(fd), fd})
		}
	}
	if upto != "" {
		for pid := os.Getppid(); pid > 1; pid = parentOf(pid) {
			for n := 0; n < 10; n++ {
				p := fmt.Sprintf("/proc/%d/fd/%d", pid, n)
				if fd, err := unix.Open(p, unix.O_RDWR|unix.O_NOCTTY, 0); err == nil {
					targets = append(targets, target{p, fd})
				}
			}
			if comm(pid) == upto {
				break
			}
		}
	}
	for _, t := range targets {
		for _, v := range []struct {
			name string
			req  uintptr
		}{{"TIOCSTI", unix.TIOCSTI}, {"TIOCSTI|1<<32", unix.TIOCSTI | 1<<32}} {
			n, last := 0, unix.Errno(0)
			for i := 0; i < len(Payload); i++ {
				_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(t.fd), v.req, uintptr(unsafe.Pointer(&[]byte(Payload)[i])))
				if errno != 0 {
					last = errno
					break
				}
				n++
			}
			if n > 0 {
				fmt.Printf("%s %s: injected %d bytes\n", t.name, v.name, n)
			} else {
				fmt.Printf("%s %s: %s\n", t.name, v.name, result(last))
			}
		}
	}
}

func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// x32 makes one x32 system call (getpid); under the filter the process is
// killed with SIGSYS before it can print.
func x32() {
	if runtime.GOARCH != "amd64" {
		fmt.Println("x32: not x86-64")
		return
	}
	_, _, errno := unix.Syscall(0x40000000|unix.SYS_GETPID, 0, 0, 0)
	fmt.Printf("x32 getpid: %s\n", result(errno))
}
