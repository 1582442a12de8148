package peers

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Config sizes a run. DefaultConfig is what `make bench-peers` runs;
// QuickConfig is a smoke run of a few seconds.
type Config struct {
	// Root is the repository root; Work a scratch folder for binaries and
	// workspaces (the run removes nothing outside it).
	Root, Work string
	// Node runs the TypeScript peer; empty: the Node.js pinned in e2e/.
	Node string
	// Servers are the servers measured, in round order; the floor must be
	// among them, since every ratio is to it.
	Servers []string

	Rounds     int // rounds of A B C D; figures are medians over rounds
	ColdStarts int // cold starts per server per round, each for 1 and for ManyTools tools
	Calls      int // timed sequential tools/call per tool, transport and round
	Warmup     int // untimed calls before timed ones
	Throughput int // timed calls per in-flight level, tool and round
	InFlight   []int
	ListCalls  int // timed tools/list of ManyTools tools per round
	ManyTools  int
	// LostCallStarts is how many cold starts, per variant, the lost-call
	// probe makes (0: no probe).
	LostCallStarts int
	// PairedRounds is how many rounds the paired CPU measure makes (0:
	// none): the floor and vox-mcp served in the same seconds, each with
	// InFlight[0] calls in flight, each process's CPU time per call.
	PairedRounds int
	// Settle is the pause before reading resident memory, so start-up or
	// load work in flight has finished.
	Settle time.Duration

	// VoxEnv are extra environment variables (KEY=VALUE) for vox-mcp, to
	// measure it in another configuration (VOX_SKILL_SANDBOX=off, say).
	VoxEnv []string
	// Profile, when set, is a folder where `perf record` profiles of
	// vox-mcp and the floor are written, one per measured piece of work.
	Profile string

	// Log receives progress lines; nil discards them.
	Log io.Writer

	profiles int // profiles written so far, numbering their files
}

// DefaultConfig is the full run of `make bench-peers`.
func DefaultConfig() Config {
	return Config{
		Servers:        AllServers,
		Rounds:         5,
		ColdStarts:     5,
		Calls:          2000,
		Warmup:         200,
		Throughput:     4000,
		InFlight:       []int{8, 32},
		ListCalls:      50,
		ManyTools:      500,
		LostCallStarts: 480,
		PairedRounds:   5,
		Settle:         500 * time.Millisecond,
	}
}

// QuickConfig is a smoke run: every measure and the probe, with tiny
// counts. Its figures mean nothing; it shows the harness works.
func QuickConfig() Config {
	return Config{
		Servers:        AllServers,
		Rounds:         1,
		ColdStarts:     1,
		Calls:          20,
		Warmup:         5,
		Throughput:     64,
		InFlight:       []int{8, 32},
		ListCalls:      3,
		ManyTools:      50,
		LostCallStarts: 2,
		PairedRounds:   1,
		Settle:         20 * time.Millisecond,
	}
}

func (cfg *Config) check() error {
	var problems []string
	if cfg.Root == "" || cfg.Work == "" {
		problems = append(problems, "the repository root and the scratch folder must be set")
	}
	if len(cfg.Servers) == 0 || cfg.Servers[0] != Floor {
		problems = append(problems, "the floor must be the first server: every ratio is to it")
	}
	for _, id := range cfg.Servers {
		if !slices.Contains(AllServers, id) {
			problems = append(problems, fmt.Sprintf("unknown server %q (want %s)", id, strings.Join(AllServers, ", ")))
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"rounds", cfg.Rounds}, {"cold starts", cfg.ColdStarts}, {"calls", cfg.Calls}, {"throughput calls", cfg.Throughput}, {"tools/list calls", cfg.ListCalls}, {"tools", cfg.ManyTools}} {
		if c.n < 1 {
			problems = append(problems, fmt.Sprintf("%s must be at least 1, not %d", c.name, c.n))
		}
	}
	if cfg.Warmup < 0 || cfg.LostCallStarts < 0 || cfg.PairedRounds < 0 {
		problems = append(problems, "warm-up calls, lost-call starts and paired rounds cannot be negative")
	}
	for _, k := range cfg.InFlight {
		if k < 1 {
			problems = append(problems, fmt.Sprintf("calls in flight must be at least 1, not %d", k))
		}
	}
	if len(problems) > 0 {
		return errors.New("bench-peers: " + strings.Join(problems, "; "))
	}
	return nil
}

func (cfg *Config) logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, format+"\n", args...)
	}
}

// FindRoot is the repository root above dir: the folder whose go.mod is
// vox-mcp's.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/vox-lang/vox-mcp\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no vox-mcp repository (a go.mod of module github.com/vox-lang/vox-mcp) at or above %s", dir)
		}
	}
}
