package sandbox_test

// The seccomp filter against the kernel and inside the sandbox, through
// internal/syscallprobe (docs/sandbox.md, "Linux").

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// execProbe runs the probe in a helper that installs the seccomp filter
// (or not) on the thread that executes it.
func execProbe(t *testing.T, filter bool, args ...string) (string, error) {
	t.Helper()
	a, _ := json.Marshal(append([]string{probeBinary(t)}, args...))
	f := "0"
	if filter {
		f = "1"
	}
	out, err := helper("exec", "VOX_SANDBOX_TEST_FILTER="+f, "VOX_SANDBOX_TEST_ARGS="+string(a)).CombinedOutput()
	return string(out), err
}

// filtered is what the filter answers each call the probe tries, by the
// probe's family of the call ("allowed" holds what commands need and the
// filter lets through).
var filtered = map[string]map[string]string{
	"tty":    {"ioctl TIOCSTI": "EPERM", "ioctl TIOCSTI|1<<32": "EPERM", "ioctl TIOCLINUX": "EPERM", "ioctl TIOCLINUX|1<<32": "EPERM"},
	"ptrace": {"ptrace": "EPERM", "process_vm_readv": "EPERM", "process_vm_writev": "EPERM"},
	"mount": {
		"mount": "EPERM", "umount2": "EPERM", "pivot_root": "EPERM", "open_tree": "EPERM", "open_tree_attr": "EPERM",
		"move_mount": "EPERM", "fsopen": "EPERM", "fsconfig": "EPERM", "fsmount": "EPERM", "fspick": "EPERM", "mount_setattr": "EPERM",
	},
	"namespaces": {"unshare": "EPERM", "setns": "EPERM", "clone CLONE_NEWUSER": "EPERM", "clone3": "ENOSYS"},
	"keyrings":   {"keyctl": "EPERM", "add_key": "EPERM", "request_key": "EPERM"},
	"kernel": {
		"bpf": "EPERM", "perf_event_open": "EPERM", "userfaultfd": "EPERM", "kexec_load": "EPERM", "kexec_file_load": "EPERM",
	},
	"io_uring": {"io_uring_setup": "EPERM", "io_uring_enter": "EPERM", "io_uring_register": "EPERM"},
	"modules":  {"init_module": "EPERM", "finit_module": "EPERM", "delete_module": "EPERM"},
	"handles":  {"open_by_handle_at": "EPERM"},
	"sockets": {
		"socket AF_VSOCK": "EAFNOSUPPORT", "socket AF_VSOCK|1<<32": "EAFNOSUPPORT", "socket AF_PACKET": "EAFNOSUPPORT",
		"socketpair AF_VSOCK": "EAFNOSUPPORT",
	},
	"allowed": {
		"ioctl TCGETS": "ENOTTY", "getpid": "ok",
		"socket AF_UNIX": "ok", "socket AF_INET": "ok", "socket AF_INET6": "ok", "socket AF_NETLINK": "ok",
		"socketpair AF_UNIX": "ok",
	},
}

func init() {
	if runtime.GOARCH == "amd64" {
		for _, name := range []string{"create_module", "query_module", "get_kernel_syms"} {
			filtered["modules"][name] = "EPERM"
		}
	}
}

// checkFiltered checks the probe's answers family by family, each a subtest.
func checkFiltered(t *testing.T, out string) {
	t.Helper()
	got := results(out)
	n := 0
	for family, calls := range filtered {
		n += len(calls)
		t.Run(family, func(t *testing.T) {
			for name, want := range calls {
				if got[name] != want {
					t.Errorf("%s: %q, want %q", name, got[name], want)
				}
			}
		})
	}
	if len(got) != n {
		t.Errorf("the probe reported %d calls, want %d:\n%s", len(got), n, out)
	}
}

// TestSeccompOnKernel checks the filter against the kernel, outside the
// sandbox: every call the probe tries is refused with the filter, and
// answers something else without it (so the check can fail). TIOCSTI with
// bit 32 set is the case a filter comparing 64 bits would let through.
func TestSeccompOnKernel(t *testing.T) {
	out, err := execProbe(t, true, "syscalls")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkFiltered(t, out)

	out, err = execProbe(t, false, "syscalls")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := results(out)
	for name, want := range allFiltered() {
		switch {
		case want == "ok" || name == "ioctl TCGETS":
			continue // allowed either way
		case got[name] == "EAFNOSUPPORT" && strings.HasPrefix(name, "socket"):
			// The kernel has no such family: the filter's answer is
			// the kernel's own here.
			t.Logf("control without the filter: %s: this kernel has no such family", name)
		case got[name] == want && os.Geteuid() == 0:
			// Without capabilities the kernel itself answers EPERM for some.
			t.Errorf("control without the filter: %s answered %s, so the filtered run proves nothing", name, want)
		}
	}
	if got["ioctl TIOCSTI|1<<32"] != "ENOTTY" || got["unshare"] != "ok" {
		t.Errorf("control without the filter: %q", out)
	}

	if runtime.GOARCH == "amd64" {
		out, err = execProbe(t, true, "x32")
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGSYS {
			t.Errorf("an x32 system call under the filter: %v %q, want killed by SIGSYS", err, out)
		}
	}
}

// allFiltered is filtered without the families.
func allFiltered() map[string]string {
	all := map[string]string{}
	for _, calls := range filtered {
		maps.Copy(all, calls)
	}
	return all
}

// TestSeccompInSandbox runs the probe as a skill command: the filter is
// installed in both modes.
func TestSeccompInSandbox(t *testing.T) {
	skill := skillWithProbe(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			res := mustRunIn(t, m.run, skill, "./skill/syscallprobe syscalls")
			checkFiltered(t, res.Stdout)
			if runtime.GOARCH == "amd64" {
				res = mustRunIn(t, m.run, skill, "./skill/syscallprobe x32; echo status $?")
				if want := fmt.Sprintf("status %d\n", 128+int(syscall.SIGSYS)); res.Stdout != want {
					t.Errorf("x32: got %q, want %q", res.Stdout, want)
				}
			}
		})
	}
}
