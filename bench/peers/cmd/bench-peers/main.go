// Command bench-peers runs the peer benchmark (docs/benchmarks.md): it
// measures vox-mcp beside a bare mcp-go server, the official Go SDK and the
// official TypeScript SDK, prints the Markdown table of ratios to the
// floor and writes it, with a JSON record, next to -out. `make
// bench-peers` runs it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/bench/peers"
)

func main() {
	os.Exit(run())
}

func run() int {
	def := peers.DefaultConfig()
	quick := flag.Bool("quick", false, "a smoke run with tiny counts (every measure, figures meaningless); the other flags still apply on top")
	out := flag.String("out", "bench-peers", "write the table to `PATH`.md and the record to PATH.json")
	serverList := flag.String("servers", strings.Join(def.Servers, ","), "the servers to measure, in round order; the floor first")
	telemetry := flag.Bool("telemetry", true, "measure "+peers.VoxOTel+", vox-mcp with its telemetry on, beside vox-mcp; -telemetry=false drops it from -servers")
	node := flag.String("node", "", "Node.js for the TypeScript peer (default: e2e/node_modules/.bin/node, else node on PATH)")
	rounds := flag.Int("rounds", 0, "rounds (default 5; -quick 1)")
	cold := flag.Int("cold", 0, "cold starts per server per round, for 1 and for -tools tools (default 5)")
	calls := flag.Int("calls", 0, "timed sequential calls per tool, transport and round (default 2000)")
	warmup := flag.Int("warmup", -1, "untimed calls before the timed ones (default 200)")
	tput := flag.Int("throughput", 0, "timed calls per in-flight level, tool and round (default 4000)")
	inFlight := flag.String("inflight", "", "in-flight levels over HTTP, comma-separated (default 8,32)")
	lists := flag.Int("lists", 0, "timed tools/list per round (default 50)")
	tools := flag.Int("tools", 0, "tools for the cold start, tools/list and memory rows (default 500)")
	lost := flag.Int("lostcalls", -1, "cold starts per variant of the lost-call probe, 0 for none (default 480)")
	paired := flag.Int("paired", -1, "rounds of the paired CPU measure (the floor and vox-mcp served at once), 0 for none (default 5)")
	settle := flag.Duration("settle", 0, "pause before reading resident memory (default 500ms)")
	perfDir := flag.String("perf", "", "write perf record profiles of vox-mcp and the floor, one per measured piece of work, into `DIR` (needs perf; sampling perturbs those servers' figures a little)")
	var voxEnv listFlag
	flag.Var(&voxEnv, "vox-env", "an extra environment variable `KEY=VALUE` for vox-mcp (repeatable), e.g. VOX_SKILL_SANDBOX=off")
	keep := flag.Bool("keep", false, "keep the scratch folder (binaries, workspaces) and print where")
	flag.Parse()

	cfg := def
	if *quick {
		cfg = peers.QuickConfig()
	}
	cfg.Servers = strings.Split(*serverList, ",")
	if !*telemetry {
		cfg.Servers = slices.DeleteFunc(cfg.Servers, func(id string) bool { return id == peers.VoxOTel })
	}
	cfg.Node = *node
	cfg.Profile = *perfDir
	cfg.VoxEnv = voxEnv
	setInt(&cfg.Rounds, *rounds, 0)
	setInt(&cfg.ColdStarts, *cold, 0)
	setInt(&cfg.Calls, *calls, 0)
	setInt(&cfg.Warmup, *warmup, -1)
	setInt(&cfg.Throughput, *tput, 0)
	setInt(&cfg.ListCalls, *lists, 0)
	setInt(&cfg.ManyTools, *tools, 0)
	setInt(&cfg.LostCallStarts, *lost, -1)
	setInt(&cfg.PairedRounds, *paired, -1)
	if *settle != 0 {
		cfg.Settle = *settle
	}
	if *inFlight != "" {
		cfg.InFlight = nil
		for _, f := range strings.Split(*inFlight, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				fmt.Fprintf(os.Stderr, "bench-peers: -inflight %q: %v\n", *inFlight, err)
				return 2
			}
			cfg.InFlight = append(cfg.InFlight, k)
		}
	}
	root, err := peers.FindRoot(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		return 2
	}
	cfg.Root = root
	work, err := os.MkdirTemp("", "bench-peers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		return 1
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "bench-peers: scratch folder", work)
	} else {
		defer os.RemoveAll(work)
	}
	cfg.Work = work
	cfg.Log = os.Stderr

	start := time.Now()
	rep, err := peers.Run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		return 1
	}
	table := rep.Markdown()
	fmt.Print(table)
	record, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		return 1
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		return 1
	}
	for path, data := range map[string][]byte{*out + ".md": []byte(table), *out + ".json": append(record, '\n')} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench-peers:", err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "bench-peers: %s in %s; wrote %s.md and %s.json\n", "done", time.Since(start).Round(time.Second), *out, *out)
	return 0
}

// setInt overrides *dst with v unless v is the flag's unset value.
func setInt(dst *int, v, unset int) {
	if v != unset {
		*dst = v
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*l = append(*l, v)
	return nil
}
