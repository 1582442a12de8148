package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupPrefix starts the name of every cgroup a run creates; the server's
// PID, a random token (a server in another PID namespace may have the same
// PID) and a sequence number follow, so that a cgroup left behind by a
// server that was killed can be recognised and removed by the next one.
const cgroupPrefix = "vox-sandbox-"

// cgroupToken is this process's random part of its cgroup names.
var cgroupToken = func() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// staleAge is how old an abandoned cgroup must be before the sweep removes
// it: a server whose PID is not visible here (another PID namespace) may
// have just created it and be about to join it.
const staleAge = time.Minute

// cgroupHost is where this process may create cgroups: its own cgroup in
// each usable hierarchy mounted at or below the configured root.
type cgroupHost struct {
	v2            string          // our cgroup folder in the v2 hierarchy, "" without one
	v2Controllers map[string]bool // controllers enabled for our v2 cgroup's children
	v1            map[string]string
	why           []string // what is missing, for the report
}

// v1Controllers are the cgroup v1 hierarchies used, when v2 does not give
// the controller.
var v1Controllers = []string{"memory", "pids", "cpu", "freezer"}

var (
	hostsMu sync.Mutex
	hosts   = map[string]*cgroupHost{}
)

// cgroupHostFor detects the cgroups under root once per process, and
// sweeps cgroups left behind by servers that are gone.
func cgroupHostFor(root string) *cgroupHost {
	hostsMu.Lock()
	defer hostsMu.Unlock()
	if h, ok := hosts[root]; ok {
		return h
	}
	h := detectCgroups(root, "/proc/self/mountinfo", "/proc/self/cgroup")
	h.sweep(staleAge)
	hosts[root] = h
	return h
}

// mountInfo is one line of /proc/self/mountinfo, the fields used here.
type mountInfo struct {
	root, point, fstype string
	superOpts           []string
}

func readMountInfo(path string) ([]mountInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountInfo
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i := 6; i < len(fields); i++ {
			if fields[i] == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+3 >= len(fields) {
			continue
		}
		out = append(out, mountInfo{
			root:      unescapeMountinfo(fields[3]),
			point:     unescapeMountinfo(fields[4]),
			fstype:    fields[sep+1],
			superOpts: strings.Split(fields[sep+3], ","),
		})
	}
	return out, sc.Err()
}

// detectCgroups finds this process's cgroups from mountinfo and
// /proc/self/cgroup (paths injectable for tests), using only mounts at or
// below root.
func detectCgroups(root, mountinfoPath, cgroupPath string) *cgroupHost {
	h := &cgroupHost{v1: map[string]string{}, v2Controllers: map[string]bool{}}
	mounts, err := readMountInfo(mountinfoPath)
	if err != nil {
		h.why = append(h.why, "cannot read the mount table: "+err.Error())
		return h
	}
	own, err := os.ReadFile(cgroupPath)
	if err != nil {
		h.why = append(h.why, "cannot read "+cgroupPath+": "+err.Error())
		return h
	}
	// hier:controllers:path, "0::path" for v2.
	ownV2, ownV1 := "", map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			ownV2 = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			ownV1[c] = parts[2]
		}
	}
	under := func(p string) bool { return p == root || strings.HasPrefix(p, root+"/") || root == "/" }
	// dirFor joins a mount point and our path in its hierarchy; the mount
	// may show only a subtree (its root), which our path must lie in.
	dirFor := func(m mountInfo, path string) (string, bool) {
		if m.root != "/" {
			if path != m.root && !strings.HasPrefix(path, m.root+"/") {
				return "", false
			}
			path = strings.TrimPrefix(path, m.root)
		}
		return filepath.Join(m.point, path), true
	}
	for _, m := range mounts {
		if !under(m.point) {
			continue
		}
		switch m.fstype {
		case "cgroup2":
			if h.v2 != "" || ownV2 == "" {
				continue
			}
			if dir, ok := dirFor(m, ownV2); ok {
				h.v2 = dir
			}
		case "cgroup":
			for _, c := range v1Controllers {
				if path, ok := ownV1[c]; ok && h.v1[c] == "" && contains(m.superOpts, c) {
					if dir, ok := dirFor(m, path); ok {
						h.v1[c] = dir
					}
				}
			}
		}
	}
	if h.v2 != "" {
		if b, err := os.ReadFile(filepath.Join(h.v2, "cgroup.subtree_control")); err == nil {
			for _, c := range strings.Fields(string(b)) {
				h.v2Controllers[c] = true
			}
		}
	}
	if h.v2 == "" && len(h.v1) == 0 {
		h.why = append(h.why, "no cgroup file system of this process is mounted under "+root)
	}
	return h
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// cgroupDirs lists our cgroup folders in every hierarchy found.
func (h *cgroupHost) cgroupDirs() []string {
	var dirs []string
	if h.v2 != "" {
		dirs = append(dirs, h.v2)
	}
	for _, c := range v1Controllers {
		if d := h.v1[c]; d != "" && !contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// sweep removes the empty cgroups, older than minAge, that runs of servers
// no longer alive left behind (a server killed during a run cannot remove
// its own). The kernel refuses to remove a cgroup that holds a process.
func (h *cgroupHost) sweep(minAge time.Duration) {
	for _, dir := range h.cgroupDirs() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			pid, ok := cgroupOwner(e.Name())
			if !ok || !e.IsDir() || pid == os.Getpid() {
				continue
			}
			fi, err := e.Info()
			if err != nil || time.Since(fi.ModTime()) < minAge {
				continue
			}
			if err := unix.Kill(pid, 0); err == unix.ESRCH {
				_ = unix.Rmdir(filepath.Join(dir, e.Name())) // EBUSY: still in use, leave it
			}
		}
	}
}

// cgroupOwner is the server PID in the name of a run's cgroup.
func cgroupOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, cgroupPrefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// runCgroup is the cgroup of one run, in each hierarchy that gives part of
// it.
type runCgroup struct {
	dirs     []string // created folders, removed at the end
	procs    []string // cgroup.procs files the run's init joins
	killFile string   // v2 cgroup.kill
	freezer  string   // v1 freezer folder, when there is no cgroup.kill
	support  CgroupSupport
}

var cgroupSeq atomic.Uint64

// newRunCgroup creates the cgroup of a run and sets its limits: memory,
// pids and CPU from v2 where our v2 cgroup enables the controller, else
// from the v1 hierarchy; the kill from v2's cgroup.kill, else the v1
// freezer. What the host does not give is left out and explained in
// support.Why. An error means a step failed that should have worked (the
// folder was created but a limit could not be written, say); what was
// created is removed again.
func newRunCgroup(h *cgroupHost) (*runCgroup, error) {
	cg := &runCgroup{}
	name := fmt.Sprintf("%s%d-%s-%d", cgroupPrefix, os.Getpid(), cgroupToken, cgroupSeq.Add(1))
	why := append([]string(nil), h.why...)
	cpus := cgroupCPUs()
	period := 100000
	mem := strconv.FormatInt(CgroupMemory, 10)

	if h.v2 != "" {
		dir := filepath.Join(h.v2, name)
		if err := unix.Mkdir(dir, 0o755); err != nil {
			why = append(why, fmt.Sprintf("cannot create a cgroup in %s: %v", h.v2, err))
		} else {
			cg.dirs = append(cg.dirs, dir)
			cg.procs = append(cg.procs, filepath.Join(dir, "cgroup.procs"))
			set := func(ctrl string, files ...[2]string) error {
				if !h.v2Controllers[ctrl] {
					return nil
				}
				for _, f := range files {
					if err := writeCgroupFile(filepath.Join(dir, f[0]), f[1]); err != nil {
						return err
					}
				}
				return nil
			}
			if err := set("memory", [2]string{"memory.max", mem}); err != nil {
				cg.remove()
				return nil, err
			}
			if h.v2Controllers["memory"] {
				cg.support.Memory = "v2"
				// No swap beyond the memory limit, like memsw on v1.
				if err := writeCgroupFile(filepath.Join(dir, "memory.swap.max"), "0"); err != nil && !errors.Is(err, fs.ErrNotExist) {
					cg.remove()
					return nil, err
				}
			}
			if err := set("pids", [2]string{"pids.max", strconv.Itoa(CgroupPids)}); err != nil {
				cg.remove()
				return nil, err
			}
			if h.v2Controllers["pids"] {
				cg.support.Pids = "v2"
			}
			if err := set("cpu", [2]string{"cpu.max", fmt.Sprintf("%d %d", cpus*period, period)}); err != nil {
				cg.remove()
				return nil, err
			}
			if h.v2Controllers["cpu"] {
				cg.support.CPU = "v2"
			}
			if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err == nil {
				cg.killFile = filepath.Join(dir, "cgroup.kill")
				cg.support.Kill = "cgroup.kill"
			} else {
				why = append(why, "the kernel has no cgroup.kill (Linux 5.14)")
			}
		}
	}

	v1 := func(ctrl string, files ...[2]string) (bool, error) {
		parent := h.v1[ctrl]
		if parent == "" {
			return false, nil
		}
		dir := filepath.Join(parent, name)
		if err := unix.Mkdir(dir, 0o755); err != nil {
			why = append(why, fmt.Sprintf("cannot create a %s cgroup in %s: %v", ctrl, parent, err))
			return false, nil
		}
		cg.dirs = append(cg.dirs, dir)
		cg.procs = append(cg.procs, filepath.Join(dir, "cgroup.procs"))
		for _, f := range files {
			err := writeCgroupFile(filepath.Join(dir, f[0]), f[1])
			if err != nil && !(f[0] == "memory.memsw.limit_in_bytes" && errors.Is(err, fs.ErrNotExist)) {
				return false, err
			}
		}
		return true, nil
	}
	type v1Step struct {
		ctrl  string
		into  *string
		files [][2]string
	}
	for _, s := range []v1Step{
		// memory before memsw: the kernel refuses memsw below memory.
		{"memory", &cg.support.Memory, [][2]string{{"memory.limit_in_bytes", mem}, {"memory.memsw.limit_in_bytes", mem}}},
		{"pids", &cg.support.Pids, [][2]string{{"pids.max", strconv.Itoa(CgroupPids)}}},
		{"cpu", &cg.support.CPU, [][2]string{{"cpu.cfs_period_us", strconv.Itoa(period)}, {"cpu.cfs_quota_us", strconv.Itoa(cpus * period)}}},
	} {
		if *s.into != "" {
			continue
		}
		ok, err := v1(s.ctrl, s.files...)
		if err != nil {
			cg.remove()
			return nil, err
		}
		if ok {
			*s.into = "v1"
		}
	}
	if cg.support.Kill == "" {
		if ok, err := v1("freezer"); err != nil {
			cg.remove()
			return nil, err
		} else if ok {
			cg.freezer = cg.dirs[len(cg.dirs)-1]
			cg.support.Kill = "freezer"
		}
	}
	for _, c := range []struct{ name, got string }{
		{"memory", cg.support.Memory}, {"pids", cg.support.Pids}, {"cpu", cg.support.CPU},
	} {
		if c.got == "" {
			why = append(why, "no writable "+c.name+" controller")
		}
	}
	if cg.support.Kill == "" {
		why = append(why, "no cgroup.kill and no writable freezer")
	}
	if !cg.support.Complete() {
		cg.support.Why = strings.Join(dedupe(why), "; ")
	}
	return cg, nil
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// writeCgroupFile writes one value to a cgroup control file, naming the
// file in the error.
func writeCgroupFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	return nil
}

// add moves process pid (and so everything it starts later) into the
// run's cgroup in every hierarchy.
func (cg *runCgroup) add(pid int) error {
	for _, p := range cg.procs {
		if err := writeCgroupFile(p, strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// kill kills every process in the run's cgroup: at once with cgroup.kill,
// or by freezing the v1 freezer cgroup (nothing in it can fork or exit
// then, so its task list is complete and no PID is reused), killing every
// task and thawing it so that the kills are delivered.
func (cg *runCgroup) kill() {
	if cg.killFile != "" {
		_ = writeCgroupFile(cg.killFile, "1")
		return
	}
	if cg.freezer == "" {
		return
	}
	state := filepath.Join(cg.freezer, "freezer.state")
	if writeCgroupFile(state, "FROZEN") == nil {
		for i := 0; i < 1000; i++ {
			if b, err := os.ReadFile(state); err != nil || strings.TrimSpace(string(b)) == "FROZEN" {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	if b, err := os.ReadFile(filepath.Join(cg.freezer, "cgroup.procs")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	_ = writeCgroupFile(state, "THAWED")
}

// remove deletes the run's cgroup folders once the processes in them are
// gone (a killed process leaves its cgroup shortly after it is reaped).
func (cg *runCgroup) remove() error {
	var failed []string
	for i := len(cg.dirs) - 1; i >= 0; i-- {
		dir := cg.dirs[i]
		var err error
		for try := 0; try < 200; try++ {
			if err = unix.Rmdir(dir); err == nil || err == unix.ENOENT {
				err = nil
				break
			}
			if err != unix.EBUSY {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", dir, err))
		}
	}
	cg.dirs = nil
	if len(failed) > 0 {
		return fmt.Errorf("cannot remove the run's cgroup (%s); the next vox-mcp start removes it", strings.Join(failed, "; "))
	}
	return nil
}
