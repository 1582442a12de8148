package peers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// quickRun runs the harness on servers with tiny counts and checks the
// report's shape: every row, every column that applies, finite positive
// figures, the floor at 1×, the table and the JSON record. The harness
// itself checks every answer a server gives, so a passing run also says
// each server answered every call, list and probe correctly.
func quickRun(t *testing.T, servers ...string) *Report {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	cfg := QuickConfig()
	cfg.Root, cfg.Work, cfg.Servers = root, t.TempDir(), servers
	cfg.ManyTools = 20
	cfg.LostCallStarts = 1
	cfg.Throughput = 32
	cfg.Calls = 10
	rep, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}

	wantSubjects := []string{}
	for _, s := range rep.Subjects {
		wantSubjects = append(wantSubjects, s.ID)
	}
	if len(rep.Measures) != len(measureDefs(&cfg)) {
		t.Fatalf("%d measures, want %d", len(rep.Measures), len(measureDefs(&cfg)))
	}
	for _, m := range rep.Measures {
		perTool := strings.HasPrefix(m.ID, "call_") || strings.HasPrefix(m.ID, "throughput_") || strings.HasPrefix(m.ID, "server_cpu_")
		for _, subject := range wantSubjects {
			st, ok := m.Results[subject]
			if (subject == SubjectCatalog || subject == SubjectOTelCat) && !perTool {
				if ok {
					t.Errorf("%s: the catalog tool has a figure on a row that does not call it", m.ID)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: no figure for %s", m.ID, subject)
				continue
			}
			if len(st.Rounds) != cfg.Rounds || !(st.Median > 0) || math.IsInf(st.Median, 0) || !(st.Ratio > 0) || math.IsInf(st.Ratio, 0) {
				t.Errorf("%s, %s: %+v, want one positive figure per round and a positive ratio", m.ID, subject, st)
			}
			if subject == SubjectFloor && st.Ratio != 1 {
				t.Errorf("%s: the floor's ratio is %v, want 1", m.ID, st.Ratio)
			}
		}
		if _, ok := m.Results[SubjectWorkspace]; ok {
			if _, ok := m.Verdicts[SubjectWorkspace]; !ok {
				t.Errorf("%s: no verdict for vox-mcp", m.ID)
			}
		}
	}

	if slices.Contains(servers, VoxMCP) {
		if len(rep.PairedCPU) != 2 {
			t.Errorf("%d paired CPU measures, want one per vox-mcp tool: %+v", len(rep.PairedCPU), rep.PairedCPU)
		}
		for _, p := range rep.PairedCPU {
			if len(p.Ratio.Rounds) != cfg.PairedRounds || !(p.Ratio.Median > 0) || !(p.FloorMicros.Median > 0) || !(p.VoxMicros.Median > 0) {
				t.Errorf("paired CPU measure of %s: %+v, want a positive figure per round", p.Subject, p)
			}
		}
	}

	table := rep.Markdown()
	lines := strings.Split(table, "\n")
	// The rows of the first table (the notes may hold one of their own).
	rows := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "| measure |") {
			for _, r := range lines[i+2:] {
				if !strings.HasPrefix(r, "| ") {
					break
				}
				rows++
			}
			break
		}
	}
	if rows != len(rep.Measures) {
		t.Errorf("the table has %d rows, want %d:\n%s", rows, len(rep.Measures), table)
	}
	for _, d := range measureDefs(&cfg) {
		if !strings.Contains(table, "| "+d.name+" |") {
			t.Errorf("the table lacks the row %q:\n%s", d.name, table)
		}
	}

	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Measures) != len(rep.Measures) || back.Config.Rounds != cfg.Rounds {
		t.Errorf("the JSON record does not round-trip: %s", b)
	}
	return rep
}

// TestQuickRun is the smoke test of the harness: the floor, and vox-mcp
// built from this tree with its telemetry off and on, with tiny counts; it
// needs neither npm nor the network.
func TestQuickRun(t *testing.T) {
	// An OTLP endpoint in the caller's environment must not turn the
	// telemetry-off column on: the harness strips OTEL_ variables.
	var stray atomic.Int32
	leak := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stray.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer leak.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", leak.URL)

	rep := quickRun(t, Floor, VoxMCP, VoxOTel)
	if n := stray.Load(); n != 0 {
		t.Errorf("the caller's OTEL_EXPORTER_OTLP_ENDPOINT received %d requests: a vox-mcp ran with the caller's telemetry", n)
	}
	checkTelemetry(t, rep)
	if len(rep.LostCalls) != 2 {
		t.Fatalf("lost-call probes: %+v, want two variants", rep.LostCalls)
	}
	for _, p := range rep.LostCalls {
		if p.Answered+p.Lost+p.Other != p.Starts || p.Starts != 1 {
			t.Errorf("lost-call probe %+v: the counts do not add up to its starts", p)
		}
	}
}

// checkTelemetry wants the telemetry-on vox-mcp's spans in the sink —
// the server span of a workspace tool's call and the interpreter's under
// it (docs/metrics.md §4) — its metrics (flushed as it stopped), and an
// on ÷ off ratio for each row and tool that has both.
func checkTelemetry(t *testing.T, rep *Report) {
	t.Helper()
	k := rep.TelemetrySink
	if k == nil {
		t.Fatal("no telemetry sink record with vox-mcp-otel measured")
	}
	if k.TraceExports == 0 || k.Spans == 0 || k.TraceBytes == 0 || k.MetricExports == 0 || k.MetricBytes == 0 || k.Refused != 0 {
		t.Errorf("the sink received %+v, want spans and metrics and nothing refused", *k)
	}
	for _, name := range []string{"initialize", "tools/call add", "tools/call " + catalogToolName, "vox.interpreter.call"} {
		if !slices.Contains(k.SpanNames, name) {
			t.Errorf("no span %q among %v", name, k.SpanNames)
		}
	}
	for _, m := range rep.Measures {
		for _, p := range onOffPairs {
			_, on := m.Results[p.on]
			st, ok := rep.TelemetryOnOff[m.ID][p.key]
			if on != ok || (ok && !(st.Median > 0)) {
				t.Errorf("%s, %s: telemetry on ÷ off %+v (present %v), want a positive ratio exactly where the on column has a figure", m.ID, p.key, st, ok)
			}
		}
	}
	table := rep.Markdown()
	if !strings.Contains(table, "Telemetry on ÷ off") || !strings.Contains(table, "The OTLP sink received") {
		t.Errorf("the table lacks the telemetry notes:\n%s", table)
	}
}

// TestQuickRunAllPeers adds the Go SDK peer (its module comes through the
// module proxy) and the TypeScript SDK peer (npm ci in e2e/).
func TestQuickRunAllPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go SDK peer and starts Node.js; run without -short")
	}
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "e2e", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the TypeScript SDK is not installed: run cd e2e && npm ci (make deps)")
	}
	quickRun(t, AllServers...)
}

// TestConfigCheck refuses sizes that cannot make a report.
func TestConfigCheck(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"no floor":      func(c *Config) { c.Servers = []string{VoxMCP} },
		"floor not 1st": func(c *Config) { c.Servers = []string{VoxMCP, Floor} },
		"unknown":       func(c *Config) { c.Servers = []string{Floor, "nginx"} },
		"no rounds":     func(c *Config) { c.Rounds = 0 },
		"no calls":      func(c *Config) { c.Calls = 0 },
		"in flight 0":   func(c *Config) { c.InFlight = []int{0} },
		"no root":       func(c *Config) { c.Root = "" },
	} {
		cfg := DefaultConfig()
		cfg.Root, cfg.Work = "/r", "/w"
		edit(&cfg)
		if err := cfg.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	cfg := DefaultConfig()
	cfg.Root, cfg.Work = "/r", "/w"
	if err := cfg.check(); err != nil {
		t.Errorf("the default config: %v", err)
	}
}

// TestHTTPEventStream: a server that answers a POST with an SSE stream
// (the SDKs' default) is read like one that answers JSON; notifications
// before the response are skipped.
func TestHTTPEventStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Mcp-Session-Id", "s-1")
		if req.Method == "initialize" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`))
			return
		}
		if r.Header.Get("Mcp-Session-Id") != "s-1" {
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\n" +
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\n" +
			"data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"12\"}],\"structuredContent\":{\"result\":12}}}\n\n"))
	}))
	defer srv.Close()
	c, err := newHTTPConn(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if _, err := callOnce(c, addTool(SubjectFloor), 5); err != nil {
		t.Fatal(err)
	}
}

// TestWrongAnswerFails: a call answered wrongly fails the run rather than
// being timed.
func TestWrongAnswerFails(t *testing.T) {
	add := addTool(SubjectFloor)
	for _, r := range []string{
		`{"content":[{"type":"text","text":"13"}],"structuredContent":{"result":13}}`,
		`{"content":[{"type":"text","text":"12"}]}`,
		`{"content":[{"type":"text","text":"12"}],"structuredContent":{"result":12},"isError":true}`,
	} {
		var res callResult
		if err := json.Unmarshal([]byte(r), &res); err != nil {
			t.Fatal(err)
		}
		if add.want(5, res) == nil {
			t.Errorf("add(5, 7) answered %s: accepted", r)
		}
	}
}

// TestListsAll wants every add tool by name, whatever else is listed.
func TestListsAll(t *testing.T) {
	names := append([]string{"vox_tool_search"}, toolNames(3)...)
	if !listsAll(names, 3) {
		t.Errorf("%v lists add, add_001, add_002", names)
	}
	if listsAll(names[:3], 3) || listsAll([]string{"add", "add_001", "other"}, 3) {
		t.Error("a list without add_002 was taken as complete")
	}
}

func TestMedianAndQuantile(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median of 3 1 2 = %v", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median of 4 1 3 2 = %v", got)
	}
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p50, p99 := quantile(d, 0.5), quantile(d, 0.99); p50 != 50 || p99 != 99 {
		t.Errorf("p50 %v p99 %v of 1..100 ms, want 50 and 99", p50, p99)
	}
}

// TestMarkdownGolden renders a report of fixed samples: ratios, spreads,
// units, verdicts (met, missed, behind an SDK) and the notes.
func TestMarkdownGolden(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Root, cfg.Work, cfg.Rounds = "/r", "/w", 3
	rep := newReport(cfg)
	rep.Started = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rep.Machine = Machine{OS: "linux", Arch: "amd64", CPUs: 2, Go: "go1.26.8", Node: "v22.23.3", LoadBefore: "1.00 1.10 1.20", LoadAfter: "1.50 1.20 1.20", VoxRevision: "abc1234"}
	rep.Servers = []ServerInfo{
		{Floor, "floor: bare mcp-go", "github.com/mark3labs/mcp-go v1.2.1"},
		{VoxMCP, "vox-mcp", "github.com/mark3labs/mcp-go v1.2.1"},
		{VoxOTel, "vox-mcp, telemetry on", "github.com/mark3labs/mcp-go v1.2.1"},
		{GoSDK, "Go SDK v1.8.0", "github.com/modelcontextprotocol/go-sdk v1.8.0"},
		{TSSDK, "TS SDK 1.32.2", "@modelcontextprotocol/sdk 1.32.2"},
	}
	rep.Subjects = []SubjectInfo{{SubjectFloor, Floor, "add"}, {SubjectWorkspace, VoxMCP, "add"}, {SubjectCatalog, VoxMCP, catalogToolName}, {SubjectOTel, VoxOTel, "add"}, {SubjectOTelCat, VoxOTel, catalogToolName}, {SubjectGoSDK, GoSDK, "add"}, {SubjectTSSDK, TSSDK, "add"}}
	s := newSamples()
	three := func(m float64) []float64 { return []float64{m * 0.95, m, m * 1.1} }
	for _, d := range measureDefs(&cfg) {
		base := map[string]float64{"ms": 0.02, "req/s": 9000, "µs": 90, "B": 150000, "MiB": 12}[d.unit]
		if d.id == measureColdStart || d.id == measureColdStartMany {
			base = 15
		}
		s.perRound[d.id] = map[string][]float64{
			SubjectFloor:     three(base),
			SubjectWorkspace: three(base * 1.05),
			SubjectOTel:      {base * 1.05 * 1.02, base * 1.05 * 1.03, base * 1.1 * 1.01},
			SubjectGoSDK:     three(base * 1.5),
			SubjectTSSDK:     three(base * 0.5), // the TS SDK "wins" every row here
		}
		if strings.HasPrefix(d.id, "call_") || strings.HasPrefix(d.id, "throughput_") || strings.HasPrefix(d.id, "server_cpu_") {
			s.perRound[d.id][SubjectCatalog] = three(base * 1.4)
			s.perRound[d.id][SubjectOTelCat] = three(base * 1.4 * 1.05)
		}
	}
	s.incomplete[measureColdStartMany+"/"+VoxMCP] = 2
	rep.PairedCPU = []PairedCPU{{Subject: SubjectWorkspace, InFlight: 8, Calls: 4000,
		FloorMicros: summarise([]float64{90, 95, 100}), VoxMicros: summarise([]float64{120, 130, 125}), Ratio: summarise([]float64{1.33, 1.37, 1.25})}}
	rep.TelemetrySink = &TelemetrySink{TraceExports: 4, TraceBytes: 812345, Spans: 2048, MetricExports: 5, MetricBytes: 23456, SpanNames: []string{"tools/call add"}}
	rep.LostCalls = []LostCallProbe{{Variant: "default", Tools: 500, Starts: 480, Answered: 475, Lost: 5, Rate: 5.0 / 480, Example: "JSON-RPC error -32602: tool 'add' not found"}}
	rep.finish(s)
	rep.Machine.LoadAfter = "1.50 1.20 1.20"
	got := rep.Markdown()
	golden := filepath.Join("testdata", "table.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the table differs from %s (go test -run TestMarkdownGolden -update rewrites it):\n%s", golden, got)
	}
}

// TestOTelSink counts what an exporter posts, gzipped or not, and refuses
// what is not an OTLP export, over real HTTP.
func TestOTelSink(t *testing.T) {
	sink, err := startOTelSink()
	if err != nil {
		t.Fatal(err)
	}
	// As vox-mcp's encoder writes them (internal/telemetry/exporters.go):
	// a scope's name before its spans, each span's ids before its name.
	span := func(id, parent, name string) string {
		return `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id + `",` + parent + `"name":"` + name + `","kind":2,"attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"add"}}],"status":{}}`
	}
	traces := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"vox-mcp-otel"}}]},"scopeSpans":[` +
		`{"scope":{"name":"github.com/vox-lang/vox-mcp"},"spans":[` + span("b7ad6b7169203331", "", "tools/call add") + `,` + span("00f067aa0ba902b7", `"parentSpanId":"b7ad6b7169203331",`, "vox.interpreter.call") + `]},` +
		`{"scope":{"name":"mcp-go"},"spans":[` + span("53995c3f42cd8ad8", "", "tools/call add") + `]}]}]}`
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write([]byte(traces))
	_ = zw.Close()
	for _, p := range []struct {
		path, encoding string
		body           []byte
		want           int
	}{
		{"/v1/traces", "", []byte(traces), http.StatusOK},
		{"/v1/traces", "gzip", zipped.Bytes(), http.StatusOK},
		{"/v1/metrics", "", []byte(`{"resourceMetrics":[]}`), http.StatusOK},
		{"/v1/traces", "", []byte(`not json`), http.StatusBadRequest},
		{"/v1/logs", "", []byte(`{}`), http.StatusNotFound},
	} {
		req, err := http.NewRequest(http.MethodPost, sink.url+p.path, bytes.NewReader(p.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if p.encoding != "" {
			req.Header.Set("Content-Encoding", p.encoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != p.want {
			t.Errorf("POST %s (%q): %d, want %d", p.path, p.encoding, resp.StatusCode, p.want)
		}
	}
	got := sink.close()
	want := TelemetrySink{TraceExports: 2, TraceBytes: int64(len(traces) + zipped.Len()), Spans: 6, MetricExports: 1,
		MetricBytes: int64(len(`{"resourceMetrics":[]}`)), Refused: 2, SpanNames: []string{"tools/call add", "vox.interpreter.call"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the sink counted %+v, want %+v", got, want)
	}
}
