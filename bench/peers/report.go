package peers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The measures, one table row each, in the words of the issue that asked
// for them (docs/benchmarks.md says how each is taken).
const (
	measureColdStart     = "cold_start"
	measureColdStartMany = "cold_start_many"
	measureCallStdioP50  = "call_stdio_p50"
	measureCallStdioP99  = "call_stdio_p99"
	measureCallHTTPP50   = "call_http_p50"
	measureCallHTTPP99   = "call_http_p99"
	measureListLatency   = "list_many_latency"
	measureListBytes     = "list_many_bytes"
	measureRSSIdle       = "rss_idle"
	measureRSSLoaded     = "rss_after_load"
	measureRSSMany       = "rss_many_tools"
)

func measureThroughput(inFlight int) string { return fmt.Sprintf("throughput_%d", inFlight) }

func measureServerCPU(inFlight int) string { return fmt.Sprintf("server_cpu_%d", inFlight) }

// serverCPUTarget is the CPU per call that keeps the throughput target
// when the machine is the bound, as it is with client and server on the
// same cores: 1 / 0.95.
const serverCPUTarget = 1.05

// measureDef describes a row: what it measures, in which unit, which way
// is better and vox-mcp's target as a ratio to the floor.
type measureDef struct {
	id, name, unit string
	higher         bool
	target         float64
}

func measureDefs(cfg *Config) []measureDef {
	n := cfg.ManyTools
	defs := []measureDef{
		{measureColdStart, "cold start: spawn → initialize → first tools/list (stdio)", "ms", false, 1.2},
		{measureColdStartMany, fmt.Sprintf("cold start with %d tools (stdio)", n), "ms", false, 1.2},
		{measureCallStdioP50, "sequential tools/call p50, stdio", "ms", false, 1.1},
		{measureCallStdioP99, "sequential tools/call p99, stdio", "ms", false, 1.1},
		{measureCallHTTPP50, "sequential tools/call p50, HTTP", "ms", false, 1.1},
		{measureCallHTTPP99, "sequential tools/call p99, HTTP", "ms", false, 1.1},
	}
	for _, k := range cfg.InFlight {
		defs = append(defs, measureDef{measureThroughput(k), fmt.Sprintf("throughput, %d in flight, HTTP", k), "req/s", true, 0.95},
			measureDef{measureServerCPU(k), fmt.Sprintf("server CPU per call, %d in flight, HTTP", k), "µs", false, serverCPUTarget})
	}
	return append(defs,
		measureDef{measureListLatency, fmt.Sprintf("tools/list of %d tools: latency (stdio)", n), "ms", false, 1.1},
		measureDef{measureListBytes, fmt.Sprintf("tools/list of %d tools: response bytes", n), "B", false, 1.2},
		measureDef{measureRSSIdle, "VmRSS idle (HTTP, one session)", "MiB", false, 1.2},
		measureDef{measureRSSLoaded, "VmRSS after load (HTTP)", "MiB", false, 1.2},
		measureDef{measureRSSMany, fmt.Sprintf("VmRSS with %d tools (stdio)", n), "MiB", false, 1.2},
	)
}

// Report is the result of a run; its JSON form is the machine-readable
// record beside the table.
type Report struct {
	Started  time.Time     `json:"started"`
	Seconds  float64       `json:"seconds"`
	Machine  Machine       `json:"machine"`
	Config   ConfigRecord  `json:"config"`
	Servers  []ServerInfo  `json:"servers"`
	Subjects []SubjectInfo `json:"subjects"`
	Measures []Measure     `json:"measures"`
	// ColdStarts are every cold start (ms), per measure and subject, timed
	// to the first tools/list that lists every tool; ColdStartsFirstList
	// the same starts timed to the first tools/list, complete or not.
	ColdStarts          map[string]map[string][]float64 `json:"cold_starts_ms"`
	ColdStartsFirstList map[string]map[string][]float64 `json:"cold_starts_first_list_ms"`
	// ColdStartFirstListIncomplete counts, per measure and server, cold
	// starts whose first tools/list lacked served tools.
	ColdStartFirstListIncomplete map[string]int `json:"cold_start_first_list_incomplete"`
	// LatencyUnderLoad is p50 and p99 (ms) of the throughput runs.
	LatencyUnderLoad map[string]map[string]Stat `json:"latency_under_load_ms"`
	LostCalls        []LostCallProbe            `json:"lost_calls,omitempty"`
	// PairedCPU is the paired CPU measure, one per vox-mcp tool.
	PairedCPU []PairedCPU `json:"paired_cpu,omitempty"`
	// TelemetryOnOff is, per measure and vox-mcp tool ("workspace",
	// "catalog"), the telemetry-on vox-mcp's figure over the
	// telemetry-off one's, round by round; TelemetrySink what the
	// telemetry-on vox-mcp exported.
	TelemetryOnOff map[string]map[string]Stat `json:"telemetry_on_off,omitempty"`
	TelemetrySink  *TelemetrySink             `json:"telemetry_sink,omitempty"`

	cfg  Config
	defs []measureDef
}

// Machine is where and when the run happened.
type Machine struct {
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	Kernel      string `json:"kernel,omitempty"`
	Go          string `json:"go"`
	Node        string `json:"node,omitempty"`
	LoadBefore  string `json:"load_average_before"`
	LoadAfter   string `json:"load_average_after"`
	VoxRevision string `json:"vox_mcp_revision"`
}

// ConfigRecord is the run's sizes.
type ConfigRecord struct {
	Rounds         int   `json:"rounds"`
	ColdStarts     int   `json:"cold_starts_per_round"`
	Calls          int   `json:"sequential_calls"`
	Warmup         int   `json:"warmup_calls"`
	Throughput     int   `json:"throughput_calls"`
	InFlight       []int `json:"in_flight"`
	ListCalls      int   `json:"list_calls"`
	ManyTools      int   `json:"many_tools"`
	LostCallStarts int   `json:"lost_call_starts"`
	PairedRounds   int   `json:"paired_rounds"`
	SettleMillis   int64 `json:"settle_ms"`
	// VoxEnv are the extra variables vox-mcp ran with; Profiled whether
	// perf sampled vox-mcp and the floor during the run.
	VoxEnv   []string `json:"vox_env,omitempty"`
	Profiled bool     `json:"profiled,omitempty"`
}

// ServerInfo names a server and the library version it runs.
type ServerInfo struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Library string `json:"library"`
}

// SubjectInfo is a column: a server and the tool its calls measure.
type SubjectInfo struct {
	ID     string `json:"id"`
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// Measure is one row.
type Measure struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Better string  `json:"better"` // lower or higher
	Target float64 `json:"target_ratio"`
	// Results are per subject; a subject absent from a row (the catalog
	// tool outside the call rows) is missing.
	Results map[string]Stat `json:"results"`
	// Verdicts are vox-mcp's, per subject.
	Verdicts map[string]Verdict `json:"verdicts"`
}

// Stat summarises the per-round values of one subject on one row.
type Stat struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Rounds []float64 `json:"rounds"`
	// Ratio is Median over the floor's median (1 for the floor).
	Ratio float64 `json:"ratio_to_floor,omitempty"`
}

// Verdict says whether vox-mcp meets its target on a row and whether it
// is ahead of each SDK there.
type Verdict struct {
	MeetsTarget bool            `json:"meets_target"`
	AheadOf     map[string]bool `json:"ahead_of"`
}

// PairedCPU is the paired CPU measure of one vox-mcp tool: the floor and
// vox-mcp served in the same seconds, InFlight calls in flight on each,
// Calls calls each per round; Ratio is vox-mcp's CPU time per call over
// the floor's, per round. Run at once, the two meet the same machine,
// which a busy machine's wall-clock rows cannot promise
// (docs/benchmarks.md, "The HTTP rows under load").
type PairedCPU struct {
	Subject  string `json:"subject"`
	InFlight int    `json:"in_flight"`
	Calls    int    `json:"calls"`
	// FloorMicros and VoxMicros are each server's CPU per call (µs).
	FloorMicros Stat `json:"floor_cpu_us"`
	VoxMicros   Stat `json:"vox_mcp_cpu_us"`
	Ratio       Stat `json:"ratio"`
}

// LostCallProbe counts cold starts whose first tools/call of a workspace
// tool was lost.
type LostCallProbe struct {
	Variant  string  `json:"variant"`
	Tools    int     `json:"workspace_tools"`
	Starts   int     `json:"starts"`
	Answered int     `json:"answered"`
	Lost     int     `json:"lost"`
	Other    int     `json:"other"`
	Rate     float64 `json:"lost_rate"`
	Example  string  `json:"example,omitempty"`
}

func newReport(cfg Config) *Report {
	r := &Report{
		Started: time.Now(),
		Machine: Machine{
			OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
			Kernel:      readFirstLine("/proc/sys/kernel/osrelease"),
			Go:          commandLine(cfg.Root, cfg.goCommand(), "env", "GOVERSION"),
			LoadBefore:  loadAverage(),
			VoxRevision: commandLine(cfg.Root, "git", "describe", "--always", "--dirty"),
		},
		Config: ConfigRecord{
			Rounds: cfg.Rounds, ColdStarts: cfg.ColdStarts, Calls: cfg.Calls, Warmup: cfg.Warmup,
			Throughput: cfg.Throughput, InFlight: cfg.InFlight, ListCalls: cfg.ListCalls,
			ManyTools: cfg.ManyTools, LostCallStarts: cfg.LostCallStarts, PairedRounds: cfg.PairedRounds, SettleMillis: cfg.Settle.Milliseconds(),
			VoxEnv: cfg.VoxEnv, Profiled: cfg.Profile != "",
		},
		cfg:  cfg,
		defs: measureDefs(&cfg),
	}
	return r
}

// describeServers records what each server runs on.
func (r *Report) describeServers(st *setup) {
	root := r.cfg.Root
	mcpgo := "github.com/mark3labs/mcp-go " + moduleVersion(filepath.Join(root, "go.mod"), "github.com/mark3labs/mcp-go")
	for _, id := range r.cfg.Servers {
		switch id {
		case Floor:
			r.Servers = append(r.Servers, ServerInfo{Floor, "floor: bare mcp-go", mcpgo})
			r.Subjects = append(r.Subjects, SubjectInfo{SubjectFloor, Floor, "add (native Go handler)"})
		case VoxMCP:
			r.Servers = append(r.Servers, ServerInfo{VoxMCP, "vox-mcp", mcpgo})
			r.Subjects = append(r.Subjects,
				SubjectInfo{SubjectWorkspace, VoxMCP, "add (Vox workspace tool)"},
				SubjectInfo{SubjectCatalog, VoxMCP, catalogToolName + " (catalog tool, empty skills root)"})
		case VoxOTel:
			r.Servers = append(r.Servers, ServerInfo{VoxOTel, "vox-mcp, telemetry on", mcpgo})
			r.Subjects = append(r.Subjects,
				SubjectInfo{SubjectOTel, VoxOTel, "add (Vox workspace tool), telemetry on"},
				SubjectInfo{SubjectOTelCat, VoxOTel, catalogToolName + " (catalog tool), telemetry on"})
		case GoSDK:
			v := moduleVersion(filepath.Join(root, "bench", "peers", "gosdk", "go.mod"), "github.com/modelcontextprotocol/go-sdk")
			r.Servers = append(r.Servers, ServerInfo{GoSDK, "Go SDK " + v, "github.com/modelcontextprotocol/go-sdk " + v})
			r.Subjects = append(r.Subjects, SubjectInfo{SubjectGoSDK, GoSDK, "add (typed handler)"})
		case TSSDK:
			v := packageVersion(filepath.Join(root, "e2e", "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
			r.Servers = append(r.Servers, ServerInfo{TSSDK, "TS SDK " + v, "@modelcontextprotocol/sdk " + v})
			r.Subjects = append(r.Subjects, SubjectInfo{SubjectTSSDK, TSSDK, "add (registerTool with zod)"})
			r.Machine.Node = commandLine(root, st.node, "--version")
		}
	}
}

// finish computes every row's statistics and verdicts.
func (r *Report) finish(s *samples) {
	r.Seconds = time.Since(r.Started).Seconds()
	r.Machine.LoadAfter = loadAverage()
	for _, d := range r.defs {
		m := Measure{ID: d.id, Name: d.name, Unit: d.unit, Better: "lower", Target: d.target,
			Results: map[string]Stat{}, Verdicts: map[string]Verdict{}}
		if d.higher {
			m.Better = "higher"
		}
		for subject, v := range s.perRound[d.id] {
			m.Results[subject] = summarise(v)
		}
		floor, ok := m.Results[SubjectFloor]
		for subject, st := range m.Results {
			if ok && floor.Median > 0 {
				st.Ratio = st.Median / floor.Median
				m.Results[subject] = st
			}
		}
		for _, vox := range []string{SubjectWorkspace, SubjectCatalog} {
			st, has := m.Results[vox]
			if !has || !ok {
				continue
			}
			v := Verdict{AheadOf: map[string]bool{}}
			if d.higher {
				v.MeetsTarget = st.Ratio >= d.target
			} else {
				v.MeetsTarget = st.Ratio <= d.target
			}
			for _, sdk := range []string{SubjectGoSDK, SubjectTSSDK} {
				if other, has := m.Results[sdk]; has {
					v.AheadOf[sdk] = (d.higher && st.Median > other.Median) || (!d.higher && st.Median < other.Median)
				}
			}
			m.Verdicts[vox] = v
		}
		r.Measures = append(r.Measures, m)
	}
	r.telemetryOnOff(s)
	r.ColdStarts, r.ColdStartsFirstList = s.coldStarts, s.firstLists
	r.ColdStartFirstListIncomplete = s.incomplete
	r.LatencyUnderLoad = map[string]map[string]Stat{}
	for key, bySubject := range s.underLoad {
		r.LatencyUnderLoad[key] = map[string]Stat{}
		for subject, v := range bySubject {
			r.LatencyUnderLoad[key][subject] = summarise(v)
		}
	}
}

// onOffPairs are the telemetry-on subjects beside their telemetry-off
// ones, under the names TelemetryOnOff keys them by.
var onOffPairs = []struct{ key, on, off string }{
	{"workspace", SubjectOTel, SubjectWorkspace},
	{"catalog", SubjectOTelCat, SubjectCatalog},
}

// telemetryOnOff divides, round by round, the telemetry-on vox-mcp's
// figures by the telemetry-off one's: both ran in every round, a server
// apart, so the ratio of a round is the fairest there is.
func (r *Report) telemetryOnOff(s *samples) {
	for _, d := range r.defs {
		for _, p := range onOffPairs {
			on, off := s.perRound[d.id][p.on], s.perRound[d.id][p.off]
			if len(on) == 0 || len(on) != len(off) {
				continue
			}
			ratio := make([]float64, len(on))
			for i := range on {
				ratio[i] = on[i] / off[i]
			}
			if r.TelemetryOnOff == nil {
				r.TelemetryOnOff = map[string]map[string]Stat{}
			}
			if r.TelemetryOnOff[d.id] == nil {
				r.TelemetryOnOff[d.id] = map[string]Stat{}
			}
			r.TelemetryOnOff[d.id][p.key] = summarise(ratio)
		}
	}
}

func summarise(v []float64) Stat {
	return Stat{Median: median(v), Min: slices.Min(v), Max: slices.Max(v), Rounds: v}
}

// median of v (the mean of the middle two for an even count).
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Markdown is the table with its heading and notes.
func (r *Report) Markdown() string {
	var b strings.Builder
	cfg := r.cfg
	fmt.Fprintf(&b, "## vox-mcp against its peers\n\n")
	fmt.Fprintf(&b, "%s · vox-mcp %s · %d rounds (servers interleaved in each) · %d sequential calls, %d calls per in-flight level, %d cold starts per round · %d CPUs, load average %s before, %s after · %s",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Machine.VoxRevision, cfg.Rounds, cfg.Calls, cfg.Throughput, cfg.ColdStarts,
		r.Machine.CPUs, r.Machine.LoadBefore, r.Machine.LoadAfter, r.Machine.Go)
	if r.Machine.Node != "" {
		fmt.Fprintf(&b, ", Node.js %s", r.Machine.Node)
	}
	b.WriteString("\n\n")
	if len(cfg.VoxEnv) > 0 {
		fmt.Fprintf(&b, "vox-mcp ran with %s.\n\n", strings.Join(cfg.VoxEnv, " "))
	}
	if cfg.Profile != "" {
		b.WriteString("perf sampled vox-mcp and the floor during the calls and lists of this run, which slows both a little.\n\n")
	}
	b.WriteString("Cells: ratio to the floor · median over rounds (min–max over rounds). Bold: vox-mcp misses its target.\n\n")

	header := []string{"measure", "target (vox-mcp ÷ floor)"}
	for _, s := range r.Subjects {
		header = append(header, subjectTitle(r, s))
	}
	header = append(header, "vox-mcp verdict")
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
	for _, m := range r.Measures {
		target := "≤ "
		if m.Better == "higher" {
			target = "≥ "
		}
		row := []string{m.Name, target + trimFloat(m.Target) + "×"}
		for _, s := range r.Subjects {
			st, ok := m.Results[s.ID]
			if !ok {
				row = append(row, "—")
				continue
			}
			cell := formatSpread(st, m.Unit)
			if s.ID != SubjectFloor {
				ratio := fmt.Sprintf("%.2f×", st.Ratio)
				if v, isVox := m.Verdicts[s.ID]; isVox && !v.MeetsTarget {
					ratio = "**" + ratio + "**"
				}
				cell = ratio + " · " + cell
			}
			row = append(row, cell)
		}
		row = append(row, verdictText(r, m))
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
	r.notes(&b)
	return b.String()
}

func subjectTitle(r *Report, s SubjectInfo) string {
	switch s.ID {
	case SubjectFloor:
		for _, srv := range r.Servers {
			if srv.ID == Floor {
				return "floor: bare " + strings.Replace(srv.Library, "github.com/mark3labs/", "", 1)
			}
		}
	case SubjectWorkspace:
		return "vox-mcp, workspace tool `add`"
	case SubjectCatalog:
		return "vox-mcp, catalog tool `" + catalogToolName + "`"
	case SubjectOTel:
		return "vox-mcp telemetry on, `add`"
	case SubjectOTelCat:
		return "vox-mcp telemetry on, `" + catalogToolName + "`"
	}
	for _, srv := range r.Servers {
		if srv.ID == s.Server {
			return srv.Label
		}
	}
	return s.ID
}

// verdictText says, for each vox-mcp column, whether the target is met
// and which SDKs vox-mcp is behind.
func verdictText(r *Report, m Measure) string {
	var parts []string
	for _, vox := range []string{SubjectWorkspace, SubjectCatalog} {
		v, ok := m.Verdicts[vox]
		if !ok {
			continue
		}
		who := "workspace"
		if vox == SubjectCatalog {
			who = "catalog"
		}
		st := m.Results[vox]
		word := "met"
		if !v.MeetsTarget {
			word = fmt.Sprintf("missed by %.0f%%", 100*math.Abs(st.Ratio/m.Target-1))
		}
		var behind []string
		for _, sdk := range []string{SubjectGoSDK, SubjectTSSDK} {
			if ahead, has := v.AheadOf[sdk]; has && !ahead {
				behind = append(behind, subjectTitle(r, SubjectInfo{ID: sdk, Server: sdk}))
			}
		}
		text := who + ": " + word
		if len(behind) > 0 {
			text += ", behind " + strings.Join(behind, " and ")
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

// notes follow the table: what the run saw beyond the rows.
func (r *Report) notes(b *strings.Builder) {
	var incomplete []string
	for key, n := range r.ColdStartFirstListIncomplete {
		measure, server, _ := strings.Cut(key, "/")
		name := measure
		for _, d := range r.defs {
			if d.id == measure {
				name = d.name
			}
		}
		incomplete = append(incomplete, fmt.Sprintf("%s, %s: %d of %d", server, name, n, r.cfg.Rounds*r.cfg.ColdStarts))
	}
	slices.Sort(incomplete)
	if len(incomplete) > 0 {
		fmt.Fprintf(b, "First tools/list of a cold start incomplete (timed to the first complete list instead): %s.\n\n", strings.Join(incomplete, "; "))
	} else {
		b.WriteString("Every cold start's first tools/list listed every tool.\n\n")
	}
	for _, p := range r.PairedCPU {
		fmt.Fprintf(b, "Paired CPU per call (the floor and vox-mcp served in the same seconds, %d in flight each, %d calls each, %d rounds), %s: %s ÷ %s = %.2f× (%.2f–%.2f).\n\n",
			p.InFlight, p.Calls, len(p.Ratio.Rounds), subjectTitle(r, SubjectInfo{ID: p.Subject}), formatSpread(p.VoxMicros, "µs"), formatSpread(p.FloorMicros, "µs"), p.Ratio.Median, p.Ratio.Min, p.Ratio.Max)
	}
	r.telemetryNotes(b)
	for _, p := range r.LostCalls {
		fmt.Fprintf(b, "Lost-call probe (%s): %d of %d cold starts with %d workspace tools lost the first tools/call (%.2f%%)", p.Variant, p.Lost, p.Starts, p.Tools, 100*p.Rate)
		if p.Other > 0 {
			fmt.Fprintf(b, "; %d answered otherwise", p.Other)
		}
		if p.Example != "" {
			fmt.Fprintf(b, "; e.g. %q", p.Example)
		}
		b.WriteString(".\n\n")
	}
}

// formatSpread is "median unit (min–max)" in one scale.
func formatSpread(st Stat, unit string) string {
	scale, suffix, prec := scaleFor(st.Median, unit)
	f := func(v float64) string { return fmt.Sprintf("%.*f", prec, v*scale) }
	return fmt.Sprintf("%s %s (%s–%s)", f(st.Median), suffix, f(st.Min), f(st.Max))
}

// scaleFor picks the scale, unit and decimals that show v with three
// significant digits or so.
func scaleFor(v float64, unit string) (scale float64, suffix string, prec int) {
	scale, suffix = 1, unit
	switch unit {
	case "ms":
		if v < 1 {
			scale, suffix = 1000, "µs"
		}
	case "B":
		if v >= 1024 {
			scale, suffix = 1.0/1024, "KiB"
		}
	case "req/s":
		return 1, unit, 0
	}
	switch x := v * scale; {
	case x >= 100:
		prec = 0
	case x >= 10:
		prec = 1
	default:
		prec = 2
	}
	return scale, suffix, prec
}

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// loadAverage is the 1, 5 and 15 minute load averages (Linux), or "?".
func loadAverage() string {
	f := strings.Fields(readFirstLine("/proc/loadavg"))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func readFirstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// commandLine is the first line a command prints, or "?".
func commandLine(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "?"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// moduleVersion is the version a go.mod requires of a module, or "?".
func moduleVersion(gomod, module string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == module {
			return fields[1]
		}
	}
	return "?"
}

// packageVersion is the version of an npm package.json, or "?".
func packageVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil || p.Version == "" {
		return "?"
	}
	return p.Version
}

// telemetryNotes is the table of telemetry on ÷ off, and what the sink
// received (docs/benchmarks.md, "Telemetry on and off").
func (r *Report) telemetryNotes(b *strings.Builder) {
	if len(r.TelemetryOnOff) > 0 {
		b.WriteString("Telemetry on ÷ off (vox-mcp with `--metrics` and an OTLP endpoint over vox-mcp without; the median of the rounds' ratios, min–max):\n\n")
		b.WriteString("| measure | workspace tool `add` | catalog tool `" + catalogToolName + "` |\n|---|---|---|\n")
		for _, d := range r.defs {
			byTool, ok := r.TelemetryOnOff[d.id]
			if !ok {
				continue
			}
			row := []string{d.name}
			for _, p := range onOffPairs {
				st, ok := byTool[p.key]
				if !ok {
					row = append(row, "—")
					continue
				}
				row = append(row, fmt.Sprintf("%.2f× (%.2f–%.2f)", st.Median, st.Min, st.Max))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	if k := r.TelemetrySink; k != nil {
		fmt.Fprintf(b, "The OTLP sink received %d trace exports (%d spans, %s) and %d metric exports (%s)",
			k.TraceExports, k.Spans, formatBytes(k.TraceBytes), k.MetricExports, formatBytes(k.MetricBytes))
		if k.Refused > 0 {
			fmt.Fprintf(b, "; it refused %d requests", k.Refused)
		}
		b.WriteString(".\n\n")
	}
}

func formatBytes(n int64) string {
	scale, suffix, prec := scaleFor(float64(n), "B")
	return fmt.Sprintf("%.*f %s", prec, float64(n)*scale, suffix)
}
