package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// The metrics of vox-mcp (docs/metrics.md): its Prometheus endpoint
// scraped over HTTP after real MCP calls, and Debian's Prometheus scraping
// it.

var metricsLine = regexp.MustCompile(`url=(http://\S+/metrics)`)

const demoSkill = "---\nname: demo\ndescription: A demo skill for the metrics test. Use in tests.\n---\n# Demo\n"

// metricsServer starts vox-mcp --http with --metrics on a free loopback
// port, a workspace of its own and the skill demo, and returns it with
// the URL of its metrics endpoint.
func metricsServer(t *testing.T) (*httpServer, string) {
	t.Helper()
	root, skills := soakWorkspace(t)
	if err := os.MkdirAll(filepath.Join(skills, "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "demo", "SKILL.md"), []byte(demoSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	// The sandbox is off so that the run's outcome is the command's on any
	// host; the run is recorded with vox.skill.sandbox="off".
	s := startHTTPWith(t, root, []string{"--metrics", "127.0.0.1:0"}, "VOX_SKILL_ROOTS="+skills, "VOX_SKILL_SANDBOX=off")
	m := metricsLine.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("vox-mcp --metrics logged no metrics URL:\n%s", s.stderr)
	}
	return s, m[1]
}

// metricsCalls makes the calls whose series the tests look for: a
// workspace tool, an unknown tool, a tool's error result, a refresh, a skill command that exits
// with 3, tools/list, and the session's end.
func metricsCalls(t *testing.T, endpoint string) {
	t.Helper()
	sess := initializeRaw(t, endpoint)
	if r := sess.call(endpoint, "fibonacci", fibArgs); !r.ok() {
		t.Fatalf("fibonacci: %s", r.toolText())
	}
	if r := sess.call(endpoint, "vox_workspace_mcp_refresh", map[string]any{}); !r.ok() {
		t.Fatalf("vox_workspace_mcp_refresh: %s", r.toolText())
	}
	if r := sess.call(endpoint, "vox_skill_run", map[string]any{"id": "demo", "command": "exit 3"}); r.status != http.StatusOK || r.msg.Result == nil {
		t.Fatalf("vox_skill_run: %s", r.toolText())
	}
	if r := sess.call(endpoint, "no_such_tool", map[string]any{}); r.msg.Error == nil {
		t.Fatalf("no_such_tool: want a JSON-RPC error, got %s", r.text)
	}
	if r := sess.call(endpoint, "vox_skill_use", map[string]any{"id": "no-such-skill"}); r.msg.Result == nil || !r.msg.Result.IsError {
		t.Fatalf("vox_skill_use of a skill that does not exist: want an error result, got %s", r.text)
	}
	if r := send(t, http.MethodPost, endpoint, sess.id, `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`); r.status != http.StatusOK {
		t.Fatalf("tools/list: HTTP %d %s", r.status, r.text)
	}
	if r := sess.end(endpoint); r.status/100 != 2 {
		t.Fatalf("DELETE: HTTP %d %s", r.status, r.text)
	}
}

// TestMetricsEndpoint scrapes --metrics after real MCP calls over HTTP and
// checks each documented series and its labels (docs/metrics.md §2).
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	s, metricsURL := metricsServer(t)
	metricsCalls(t, s.URL)

	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", metricsURL, resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the scrape is not the Prometheus text format: %v", err)
	}
	checks := []struct {
		family string
		labels map[string]string // "" : the label must be absent
		min    float64           // the count (histograms) or value at least
	}{
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "initialize", "error_type": ""}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "fibonacci", "error_type": ""}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "vox_workspace_mcp_refresh", "error_type": ""}, 1},
		// An unknown tool is a JSON-RPC error (-32602 Invalid params);
		// a tool's error result is tool_error.
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "no_such_tool", "error_type": "-32602", "rpc_response_status_code": "-32602"}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "vox_skill_use", "error_type": "tool_error"}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/list"}, 1},
		{"vox_mcp_sessions_started_total", map[string]string{"network_transport": "tcp"}, 1},
		{"vox_mcp_sessions_ended_total", map[string]string{"vox_session_end_reason": "deleted"}, 1},
		{"mcp_server_session_duration_seconds", nil, 1},
		{"vox_mcp_skill_run_duration_seconds", map[string]string{"vox_skill_run_outcome": "exit_status", "vox_skill_sandbox": "off"}, 1},
		// The first scan and the refresh.
		{"vox_mcp_workspace_refresh_duration_seconds", map[string]string{"error_type": ""}, 2},
		{"vox_mcp_sessions_open", nil, 0},
		{"target_info", map[string]string{"service_name": "vox-mcp"}, 1},
	}
	for _, c := range checks {
		f := families[c.family]
		if f == nil {
			t.Errorf("no series %s in the scrape", c.family)
			continue
		}
		if !hasSeries(f, c.labels, c.min) {
			t.Errorf("%s: no series with %v and a value of at least %v; the scrape has:\n%s", c.family, c.labels, c.min, seriesText(f))
		}
	}
}

// hasSeries reports whether f has a series with labels whose value (a
// histogram's count) is at least min.
func hasSeries(f *dto.MetricFamily, labels map[string]string, min float64) bool {
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if have[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		var value float64
		switch {
		case m.Histogram != nil:
			value = float64(m.Histogram.GetSampleCount())
		case m.Counter != nil:
			value = m.Counter.GetValue()
		case m.Gauge != nil:
			value = m.Gauge.GetValue()
		}
		if value >= min {
			return true
		}
	}
	return false
}

func seriesText(f *dto.MetricFamily) string {
	var sb strings.Builder
	for _, m := range f.GetMetric() {
		fmt.Fprintf(&sb, "  %v\n", m.GetLabel())
	}
	return sb.String()
}

// TestMetricsRefusesARemoteAddress: --metrics on an address that is not
// loopback is refused before anything starts, naming the way out.
func TestMetricsRefusesARemoteAddress(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(voxMCP, "--root", repoRoot, "--http", "127.0.0.1:0", "--metrics", "0.0.0.0:0")
	cmd.Env = serverEnv(t)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Fatalf("vox-mcp --metrics 0.0.0.0:0: exit %d (%v), want 2:\n%s", code, err, out)
	}
	if !strings.Contains(string(out), "--metrics-allow-remote") {
		t.Errorf("the refusal does not name --metrics-allow-remote:\n%s", out)
	}
}

// TestPrometheusScrapesMetrics: Debian's Prometheus, started with a
// configuration scraping vox-mcp's --metrics every second, has the series
// of the calls made (docs/metrics.md §1). Under make test a missing
// prometheus fails (VOX_TEST_REQUIRE_PROMETHEUS=1); elsewhere it skips.
func TestPrometheusScrapesMetrics(t *testing.T) {
	t.Parallel()
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("VOX_TEST_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("prometheus is not on PATH; make deps installs it (apt-get install prometheus)")
		}
		t.Skip("prometheus is not on PATH (make deps installs it; VOX_TEST_REQUIRE_PROMETHEUS=1 fails instead)")
	}
	s, metricsURL := metricsServer(t)
	target, err := url.Parse(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: vox-mcp
    metrics_path: %s
    static_configs:
      - targets: [%q]
`, target.Path, target.Host)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	web := "127.0.0.1:" + freePort(t)
	stderr := &lockedBuffer{}
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	metricsCalls(t, s.URL)

	queries := []string{
		`mcp_server_operation_duration_seconds_count{job="vox-mcp",mcp_method_name="tools/call",gen_ai_tool_name="fibonacci"}`,
		`mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="tool_error"}`,
		`vox_mcp_sessions_started_total{network_transport="tcp"}`,
		`vox_mcp_skill_run_duration_seconds_count{vox_skill_run_outcome="exit_status"}`,
		`vox_mcp_workspace_refresh_duration_seconds_count`,
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, q := range queries {
		for {
			n, err := promQuery(web, q)
			if err == nil && n > 0 {
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("prometheus exited: %v\n%s", err, stderr)
			case <-time.After(250 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("Prometheus has no series for %s (last error: %v); its log:\n%s", q, err, stderr)
			}
		}
	}
}

// promQuery runs an instant query on Prometheus's HTTP API and returns
// the number of series of its result.
func promQuery(addr, query string) (int, error) {
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	if answer.Status != "success" {
		return 0, fmt.Errorf("query %s: %s", query, answer.Error)
	}
	return len(answer.Data.Result), nil
}

// TestMetricsOverOTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set (and no
// --metrics), vox-mcp exports its metrics over OTLP/HTTP to the endpoint,
// a receiver of this test decoding the requests in OTLP's JSON encoding
// with the OTLP protobuf definitions, strictly (an unknown field fails),
// (docs/metrics.md §1), with the service name of OTEL_SERVICE_NAME, and
// no spans under OTEL_TRACES_EXPORTER=none.
func TestMetricsOverOTLP(t *testing.T) {
	t.Parallel()
	type export struct {
		path, contentType string
		req               *colmetricspb.ExportMetricsServiceRequest
		err               error
	}
	exports := make(chan export, 64)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		e := export{path: r.URL.Path, contentType: r.Header.Get("Content-Type"), req: new(colmetricspb.ExportMetricsServiceRequest), err: err}
		if err == nil {
			e.err = protojson.Unmarshal(body, e.req)
		}
		select {
		case exports <- e:
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(receiver.Close)
	root, _ := soakWorkspace(t)
	s := startHTTPWith(t, root, nil, "OTEL_EXPORTER_OTLP_ENDPOINT="+receiver.URL, "OTEL_METRIC_EXPORT_INTERVAL=200", "OTEL_SERVICE_NAME=vox-mcp-otlp-test",
		// The endpoint turns the traces on too; none turns them off alone
		// (spans, were they on, would be posted before the metrics).
		"OTEL_TRACES_EXPORTER=none", "OTEL_BSP_SCHEDULE_DELAY=50")
	if strings.Contains(s.stderr.String(), "serving metrics") {
		t.Errorf("without --metrics, vox-mcp served a metrics endpoint:\n%s", s.stderr)
	}
	sess := initializeRaw(t, s.URL)
	if r := sess.call(s.URL, "fibonacci", fibArgs); !r.ok() {
		t.Fatalf("fibonacci: %s", r.toolText())
	}
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case e := <-exports:
			if e.path == "/v1/traces" {
				t.Fatalf("spans were exported with OTEL_TRACES_EXPORTER=none")
			}
			if e.err != nil || e.path != "/v1/metrics" || e.contentType != "application/json" {
				t.Fatalf("an export to %s (%s) that does not decode: %v", e.path, e.contentType, e.err)
			}
			if service, ok := exportedCall(e.req, "fibonacci"); ok {
				if service != "vox-mcp-otlp-test" {
					t.Errorf("service.name %q, want OTEL_SERVICE_NAME's vox-mcp-otlp-test", service)
				}
				return
			}
		case <-deadline:
			t.Fatalf("no OTLP export had mcp.server.operation.duration for fibonacci; vox-mcp's log:\n%s", s.stderr)
		}
	}
}

// exportedCall reports whether req has a mcp.server.operation.duration
// point for the tools/call of tool, and the service.name of its resource.
func exportedCall(req *colmetricspb.ExportMetricsServiceRequest, tool string) (service string, ok bool) {
	for _, rm := range req.GetResourceMetrics() {
		for _, a := range rm.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if m.GetName() != "mcp.server.operation.duration" {
					continue
				}
				for _, p := range m.GetHistogram().GetDataPoints() {
					attrs := map[string]string{}
					for _, a := range p.GetAttributes() {
						attrs[a.GetKey()] = a.GetValue().GetStringValue()
					}
					if attrs["mcp.method.name"] == "tools/call" && attrs["gen_ai.tool.name"] == tool && p.GetCount() > 0 {
						return service, true
					}
				}
			}
		}
	}
	return service, false
}
