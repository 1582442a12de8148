package peers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// profiled are the servers a run with Config.Profile samples: vox-mcp
// (telemetry off and on) and the floor, so a profile of vox-mcp can be
// read against what mcp-go itself costs on the same work, and against
// itself with telemetry on.
var profiled = map[string]bool{VoxMCP: true, VoxOTel: true, Floor: true}

// profile attaches `perf record` (CPU-clock samples with call graphs) to
// a running server and returns what ends it; without Config.Profile, or
// for a server not profiled, it does nothing. A profile is named after the
// work it covers (name) and the round; pprof is not an option here, since
// the servers are profiled as they ship, without a profiling flag.
func profile(cfg *Config, srv *server, pid int, name string) (stop func(), err error) {
	if cfg.Profile == "" || !profiled[srv.id] {
		return func() {}, nil
	}
	if err := os.MkdirAll(cfg.Profile, 0o755); err != nil {
		return nil, err
	}
	cfg.profiles++
	out := filepath.Join(cfg.Profile, fmt.Sprintf("%s-%s-%03d.data", srv.id, name, cfg.profiles))
	cmd := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-g", "-p", strconv.Itoa(pid), "-o", out)
	log := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record (Debian's linux-perf): %w", err)
	}
	time.Sleep(200 * time.Millisecond) // let perf attach before the work starts
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGINT)
			// perf ends by re-raising the SIGINT it finished on.
			err := cmd.Wait()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGINT {
					err = nil
				}
			}
			if err != nil {
				cfg.logf("perf record for %s: %v\n%s", out, err, log)
			}
		})
	}, nil
}
