package sandbox

import (
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRecoverError(t *testing.T) {
	f := func() (err error) {
		defer recoverError(&err)
		var m map[string]int
		m["x"] = 1 // panics
		return nil
	}
	if err := f(); err == nil || err.Error() != "sandbox: internal error: assignment to entry in nil map" {
		t.Errorf("got %v", err)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/plain`:          "/plain",
		`/with\040space`:  "/with space",
		`/tab\011and\134`: "/tab\tand\\",
		`/short\04`:       `/short\04`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInitRefusesOutsideNamespaces starts the init with a valid config but
// in the host's namespaces, as someone running the binary with InitArg by
// hand would: it must stop before it touches a mount.
func TestInitRefusesOutsideNamespaces(t *testing.T) {
	before, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	configR, configW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusR.Close()
	cmd := exec.Command("/proc/self/exe", InitArg)
	cmd.ExtraFiles = []*os.File{configR, statusW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	configR.Close()
	statusW.Close()
	err = gob.NewEncoder(configW).Encode(initConfig{Isolated: true, SkillDir: t.TempDir(), Command: "echo ran"})
	configW.Close()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(statusR)
	waitErr := cmd.Wait()
	var st initStatus
	if err := json.Unmarshal(msg, &st); err != nil {
		t.Fatalf("status %q: %v", msg, err)
	}
	if st.OK || st.Step != stepCheck || st.Detail != "not PID 1 of a new PID namespace" {
		t.Errorf("status %+v, want a refusal at %q", st, stepCheck)
	}
	if waitErr == nil {
		t.Error("the init exited 0")
	}
	if after, _ := os.ReadFile("/proc/self/mountinfo"); string(after) != string(before) {
		t.Errorf("mounts changed:\n%s\n---\n%s", before, after)
	}
}

// bpfRun interprets the classic BPF subset the seccomp filter uses, on a
// struct seccomp_data, so the filter's decisions can be checked for any
// argument without a kernel.
func bpfRun(t *testing.T, prog []unix.SockFilter, nr, arch uint32, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	le := func(off int, v uint32) {
		data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	le(0, nr)
	le(4, arch)
	for i, a := range args {
		le(16+8*i, uint32(a))
		le(16+8*i+4, uint32(a>>32))
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			o := int(in.K)
			acc = uint32(data[o]) | uint32(data[o+1])<<8 | uint32(data[o+2])<<16 | uint32(data[o+3])<<24
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var cond bool
			switch in.Code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				cond = acc == in.K
			case unix.BPF_JGE:
				cond = acc >= in.K
			case unix.BPF_JSET:
				cond = acc&in.K != 0
			}
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

type filterCase struct {
	name string
	nr   uint32
	arch uint32
	args [6]uint64
	want uint32
}

func TestSeccompProgramDecisions(t *testing.T) {
	prog, err := seccompFilter()
	if err != nil {
		t.Fatal(err)
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		nosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		kill  = unix.SECCOMP_RET_KILL_PROCESS
	)
	cases := []filterCase{
		{"read", unix.SYS_READ, auditArch, [6]uint64{0, 0, 0}, allow},
		{"ioctl TCGETS", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TCGETS}, allow},
		{"ioctl TIOCSTI", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TIOCSTI}, eperm},
		// The kernel reads the request as 32 bits: high bits change nothing.
		{"ioctl TIOCSTI|1<<32", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TIOCSTI | 1<<32}, eperm},
		{"ioctl TIOCSTI|0xffffffff<<32", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TIOCSTI | 0xffffffff<<32}, eperm},
		{"ioctl TIOCLINUX|1<<32", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TIOCLINUX | 1<<32}, eperm},
		{"ioctl TCGETS|1<<32", unix.SYS_IOCTL, auditArch, [6]uint64{0, unix.TCGETS | 1<<32}, allow},
		{"ptrace", unix.SYS_PTRACE, auditArch, [6]uint64{}, eperm},
		{"mount", unix.SYS_MOUNT, auditArch, [6]uint64{}, eperm},
		{"unshare", unix.SYS_UNSHARE, auditArch, [6]uint64{}, eperm},
		{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD, auditArch, [6]uint64{}, eperm},
		{"clone thread", unix.SYS_CLONE, auditArch, [6]uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
		{"clone CLONE_NEWUSER", unix.SYS_CLONE, auditArch, [6]uint64{unix.CLONE_NEWUSER}, eperm},
		{"clone CLONE_NEWNET|high bits", unix.SYS_CLONE, auditArch, [6]uint64{unix.CLONE_NEWNET | 1<<40}, eperm},
		{"clone3", unix.SYS_CLONE3, auditArch, [6]uint64{}, nosys},
		{"another architecture", unix.SYS_READ, unix.AUDIT_ARCH_I386, [6]uint64{}, kill},
	}
	if x32SyscallBit != 0 {
		cases = append(cases, filterCase{"x32", x32SyscallBit | unix.SYS_GETPID, auditArch, [6]uint64{}, kill})
	}
	for _, c := range cases {
		if got := bpfRun(t, prog, c.nr, c.arch, c.args); got != c.want {
			t.Errorf("%s: filter returns %#x, want %#x", c.name, got, c.want)
		}
	}
	for _, nr := range deniedSyscalls {
		if got := bpfRun(t, prog, nr, auditArch, [6]uint64{}); got != eperm {
			t.Errorf("system call %d: filter returns %#x, want EPERM", nr, got)
		}
	}
}

// TestDetectCgroups reads made-up mount tables: a hybrid host like this
// one, a pure v2 host with a delegated cgroup, a container that sees only
// its subtree, and a root under which nothing is mounted.
func TestDetectCgroups(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hybrid := write("hybrid-mountinfo", `25 1 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
28 25 0:25 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
29 25 0:26 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids
30 25 0:27 / /sys/fs/cgroup/freezer rw,nosuid - cgroup cgroup rw,freezer
31 1 0:28 / /elsewhere/memory rw - cgroup cgroup rw,memory
`)
	hybridOwn := write("hybrid-cgroup", "9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/\n0::/\n")
	h := detectCgroups("/sys/fs/cgroup", hybrid, hybridOwn)
	want := map[string]string{"memory": "/sys/fs/cgroup/memory/process_api/abc", "cpu": "/sys/fs/cgroup/cpu,cpuacct", "pids": "/sys/fs/cgroup/pids", "freezer": "/sys/fs/cgroup/freezer"}
	if h.v2 != "/sys/fs/cgroup/unified" || fmt.Sprint(h.v1) != fmt.Sprint(want) || len(h.why) != 0 {
		t.Errorf("hybrid: v2 %q, v1 %v, why %q", h.v2, h.v1, h.why)
	}

	pure := write("v2-mountinfo", "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n")
	pureOwn := write("v2-cgroup", "0::/user.slice/vox.service\n")
	h = detectCgroups("/sys/fs/cgroup", pure, pureOwn)
	if h.v2 != "/sys/fs/cgroup/user.slice/vox.service" || len(h.v1) != 0 {
		t.Errorf("pure v2: v2 %q, v1 %v", h.v2, h.v1)
	}

	sub := write("sub-mountinfo", "30 1 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
	subOwn := write("sub-cgroup", "0::/kubepods/pod1/app\n")
	if h = detectCgroups("/sys/fs/cgroup", sub, subOwn); h.v2 != "/sys/fs/cgroup/app" {
		t.Errorf("subtree: v2 %q", h.v2)
	}

	h = detectCgroups(dir, hybrid, hybridOwn)
	if h.v2 != "" || len(h.v1) != 0 || len(h.why) != 1 || !strings.HasPrefix(h.why[0], "no cgroup file system of this process is mounted under ") {
		t.Errorf("empty root: v2 %q, v1 %v, why %q", h.v2, h.v1, h.why)
	}
}

func TestCgroupOwner(t *testing.T) {
	for name, want := range map[string]int{
		"vox-sandbox-123-0a1b2c3d-4": 123, "vox-sandbox-123": 0, "vox-sandbox-x-1": 0, "other-1-2": 0, "vox-sandbox-0-1": 0,
	} {
		if got, ok := cgroupOwner(name); got != want || ok != (want > 0) {
			t.Errorf("cgroupOwner(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}
