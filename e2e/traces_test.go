package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
)

// The traces of vox-mcp (docs/metrics.md §4): the real binary over HTTP
// exporting to a receiver of this test, which decodes OTLP's JSON
// encoding strictly (an unknown field, a number where OTLP JSON wants a
// string, fails) and checks the spans' names, attributes and parents.

// The part of ExportTraceServiceRequest the test reads, in OTLP's JSON
// field names; 64-bit integers are strings there.
type otlpTraces struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []otlpKV `json:"attributes"`
		} `json:"resource"`
		SchemaURL  string `json:"schemaUrl"`
		ScopeSpans []struct {
			Scope struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"scope"`
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	TraceID           string   `json:"traceId"`
	SpanID            string   `json:"spanId"`
	TraceState        string   `json:"traceState"`
	ParentSpanID      string   `json:"parentSpanId"`
	Flags             uint32   `json:"flags"`
	Name              string   `json:"name"`
	Kind              int      `json:"kind"`
	StartTimeUnixNano string   `json:"startTimeUnixNano"`
	EndTimeUnixNano   string   `json:"endTimeUnixNano"`
	Attributes        []otlpKV `json:"attributes"`
	Events            []struct {
		TimeUnixNano string   `json:"timeUnixNano"`
		Name         string   `json:"name"`
		Attributes   []otlpKV `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    *string  `json:"intValue"`
		BoolValue   *bool    `json:"boolValue"`
		DoubleValue *float64 `json:"doubleValue"`
	} `json:"value"`
}

func (s otlpSpan) attr(key string) (string, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			switch {
			case a.Value.StringValue != nil:
				return *a.Value.StringValue, true
			case a.Value.IntValue != nil:
				return *a.Value.IntValue, true
			}
			return "", true
		}
	}
	return "", false
}

var hexID = regexp.MustCompile(`^[0-9a-f]+$`)

// traceReceiver collects the spans posted to /v1/traces; a request that
// does not decode is recorded as an error.
type traceReceiver struct {
	mu      sync.Mutex
	spans   []otlpSpan
	service string
	errs    []string
	// want, when set, are headers every request must carry.
	want map[string]string
}

func (rc *traceReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in io.Reader = r.Body
	var zerr error
	if r.Header.Get("Content-Encoding") == "gzip" {
		in, zerr = gzip.NewReader(r.Body)
	}
	var body []byte
	if zerr == nil {
		body, zerr = io.ReadAll(in)
	}
	if r.URL.Path != "/v1/traces" {
		w.WriteHeader(http.StatusOK)
		return
	}
	var req otlpTraces
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if zerr != nil {
		rc.errs = append(rc.errs, "gzip: "+zerr.Error())
	}
	for k, v := range rc.want {
		if got := r.Header.Get(k); got != v {
			rc.errs = append(rc.errs, fmt.Sprintf("header %s: %q, want %q", k, got, v))
		}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		rc.errs = append(rc.errs, "Content-Type "+ct)
	}
	if err != nil {
		rc.errs = append(rc.errs, fmt.Sprintf("%v in %s", err, body))
	}
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.Resource.Attributes {
			if a.Key == "service.name" && a.Value.StringValue != nil {
				rc.service = *a.Value.StringValue
			}
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// wait returns the spans once one named name with attribute key=value
// has arrived.
func (rc *traceReceiver) wait(t *testing.T, name string, match func(otlpSpan) bool, log fmt.Stringer) []otlpSpan {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		spans := append([]otlpSpan(nil), rc.spans...)
		errs := append([]string(nil), rc.errs...)
		rc.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("an OTLP traces request that is not OTLP JSON: %s", strings.Join(errs, "; "))
		}
		for _, s := range spans {
			if s.Name == name && match(s) {
				return spans
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no span %q arrived; vox-mcp's log:\n%s", name, log)
	return nil
}

// postWithHeaders sends one JSON-RPC request with extra headers.
func postWithHeaders(t *testing.T, endpoint, sessionID, body string, headers map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	req.Header.Set("Mcp-Session-Id", sessionID)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, text: string(b)}
}

// TestTracesOverOTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, each MCP
// request is a server span named and attributed as the MCP semantic
// conventions say, its parent the caller's span from the traceparent
// header or from params._meta.traceparent, with the interpreter call of
// a workspace tool and a skill command's run as its children; the
// session id is hashed, never sent.
func TestTracesOverOTLP(t *testing.T) {
	t.Parallel()
	rc := &traceReceiver{}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)
	root, skills := soakWorkspace(t)
	if err := os.MkdirAll(filepath.Join(skills, "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "demo", "SKILL.md"), []byte(demoSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startHTTPWith(t, root, nil, "OTEL_EXPORTER_OTLP_ENDPOINT="+receiver.URL, "OTEL_BSP_SCHEDULE_DELAY=100",
		"OTEL_METRICS_EXPORTER=none", "OTEL_SERVICE_NAME=vox-mcp-trace-test", "VOX_SKILL_ROOTS="+skills, "VOX_SKILL_SANDBOX=off")
	sess := initializeRaw(t, s.URL)

	const (
		headerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		headerParent = "00f067aa0ba902b7"
		metaTrace    = "0af7651916cd43dd8448eb211c80319c"
		metaParent   = "b7ad6b7169203331"
	)
	args, _ := json.Marshal(fibArgs)
	if r := postWithHeaders(t, s.URL, sess.id, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fibonacci","arguments":`+string(args)+`}}`,
		map[string]string{"traceparent": "00-" + headerTrace + "-" + headerParent + "-01"}); r.status != http.StatusOK {
		t.Fatalf("fibonacci: HTTP %d %s", r.status, r.text)
	}
	if r := postWithHeaders(t, s.URL, sess.id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vox_skill_run","arguments":{"id":"demo","command":"exit 3"},"_meta":{"traceparent":"00-`+metaTrace+`-`+metaParent+`-01"}}}`,
		nil); r.status != http.StatusOK {
		t.Fatalf("vox_skill_run: HTTP %d %s", r.status, r.text)
	}
	if r := sess.call(s.URL, "no_such_tool", map[string]any{}); r.msg.Error == nil {
		t.Fatalf("no_such_tool: want a JSON-RPC error, got %s", r.text)
	}
	rc.wait(t, "tools/call no_such_tool", func(otlpSpan) bool { return true }, s.stderr)
	spans := rc.wait(t, "vox.skill.run", func(otlpSpan) bool { return true }, s.stderr)

	t.Logf("spans: %v", spanNames(spans))
	byName := map[string]otlpSpan{}
	for _, sp := range spans {
		byName[sp.Name] = sp
		if !hexID.MatchString(sp.TraceID) || len(sp.TraceID) != 32 || !hexID.MatchString(sp.SpanID) || len(sp.SpanID) != 16 {
			t.Errorf("span %q: ids %q/%q, want lowercase hex of 16 and 8 bytes", sp.Name, sp.TraceID, sp.SpanID)
		}
		if sp.StartTimeUnixNano == "" || sp.EndTimeUnixNano < sp.StartTimeUnixNano {
			t.Errorf("span %q: times %q..%q", sp.Name, sp.StartTimeUnixNano, sp.EndTimeUnixNano)
		}
		if v, ok := sp.attr("mcp.session.id"); ok && (v == sess.id || !hexID.MatchString(v) || len(v) != 16) {
			t.Errorf("span %q: mcp.session.id %q, want a 16-hex-digit hash, never the session id", sp.Name, v)
		}
		for _, a := range sp.Attributes {
			if a.Value.StringValue != nil && strings.Contains(*a.Value.StringValue, sess.id) {
				t.Errorf("span %q: attribute %s carries the session id", sp.Name, a.Key)
			}
		}
	}
	if rc.service != "vox-mcp-trace-test" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", rc.service)
	}

	call, ok := byName["tools/call fibonacci"]
	if !ok {
		t.Fatalf("no span tools/call fibonacci; spans: %v", spanNames(spans))
	}
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fibonacci", "gen_ai.operation.name": "execute_tool"}
	for k, v := range want {
		if got, _ := call.attr(k); got != v {
			t.Errorf("tools/call fibonacci: %s = %q, want %q", k, got, v)
		}
	}
	if _, ok := call.attr("mcp.session.id"); !ok {
		t.Errorf("tools/call fibonacci has no mcp.session.id")
	}
	if call.Kind != 2 || call.TraceID != headerTrace || call.ParentSpanID != headerParent {
		t.Errorf("tools/call fibonacci: kind %d trace %s parent %s, want a server span (2) under the traceparent header's %s/%s",
			call.Kind, call.TraceID, call.ParentSpanID, headerTrace, headerParent)
	}
	interp, ok := byName["vox.interpreter.call"]
	if !ok || interp.ParentSpanID != call.SpanID || interp.TraceID != headerTrace {
		t.Errorf("vox.interpreter.call: %+v, want a child of tools/call fibonacci (%s)", interp, call.SpanID)
	}

	run, ok := byName["tools/call vox_skill_run"]
	if !ok || run.TraceID != metaTrace || run.ParentSpanID != metaParent {
		t.Errorf("tools/call vox_skill_run: %+v, want it under _meta.traceparent's %s/%s", run, metaTrace, metaParent)
	}
	sandbox := byName["vox.skill.run"]
	if sandbox.ParentSpanID != run.SpanID {
		t.Errorf("vox.skill.run: parent %s, want tools/call vox_skill_run's %s", sandbox.ParentSpanID, run.SpanID)
	}
	if got, _ := sandbox.attr("vox.skill.run.outcome"); got != "exit_status" {
		t.Errorf("vox.skill.run: outcome %q, want exit_status", got)
	}

	unknown := byName["tools/call no_such_tool"]
	if got, _ := unknown.attr("error.type"); got != "-32602" || unknown.Status.Code != 2 {
		t.Errorf("tools/call no_such_tool: error.type %q status %d, want -32602 and error (2)", got, unknown.Status.Code)
	}
	if got, _ := call.attr("jsonrpc.request.id"); got != "1" {
		t.Errorf("tools/call fibonacci: jsonrpc.request.id %q, want 1", got)
	}
	if _, ok := byName["initialize"]; !ok {
		t.Errorf("no span for initialize; spans: %v", spanNames(spans))
	}
}

func spanNames(spans []otlpSpan) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	return names
}

// TestTracesOverStdio: over stdio the caller's span comes from
// params._meta.traceparent, for a request mcp-go serves (tools/call) and
// for one the shim answers from prepared bytes (tools/list); the spans
// queued when the client closes stdin are exported before the exit.
func TestTracesOverStdio(t *testing.T) {
	t.Parallel()
	// The headers of OTEL_EXPORTER_OTLP_HEADERS, URL-decoded, on a
	// gzip-compressed request to the traces endpoint as given.
	rc := &traceReceiver{want: map[string]string{"Authorization": "Bearer t0ken", "X-Tenant": "a,b", "Content-Encoding": "gzip"}}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)
	root, _ := soakWorkspace(t)
	cmd := exec.Command(voxMCP, "--root", root)
	// A schedule longer than the test: the spans arrive by the flush at
	// the exit.
	cmd.Env = serverEnv(t, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+receiver.URL+"/v1/traces", "OTEL_BSP_SCHEDULE_DELAY=600000",
		"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20t0ken,X-Tenant=a%2Cb", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=gzip")
	const (
		listTrace = "5bf92f3577b34da6a3ce929d0e0e4736"
		callTrace = "6af7651916cd43dd8448eb211c80319c"
		parent    = "c7ad6b7169203331"
	)
	args, _ := json.Marshal(fibArgs)
	stderr := exchangeThenExit(t, cmd,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"trace-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"traceparent":"00-`+listTrace+`-`+parent+`-01"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fibonacci","arguments":`+string(args)+`,"_meta":{"traceparent":"00-`+callTrace+`-`+parent+`-01"}}}`)
	spans := rc.wait(t, "tools/call fibonacci", func(otlpSpan) bool { return true }, stderr)
	found := map[string]otlpSpan{}
	for _, sp := range spans {
		found[sp.Name] = sp
	}
	if l := found["tools/list"]; l.TraceID != listTrace || l.ParentSpanID != parent || l.Kind != 2 {
		t.Errorf("tools/list: %+v, want a server span under _meta's %s/%s", l, listTrace, parent)
	}
	c := found["tools/call fibonacci"]
	if c.TraceID != callTrace || c.ParentSpanID != parent {
		t.Errorf("tools/call fibonacci: %+v, want it under _meta's %s/%s", c, callTrace, parent)
	}
	if v, _ := c.attr("mcp.session.id"); v != "" && (!hexID.MatchString(v) || len(v) != 16) {
		t.Errorf("tools/call fibonacci: mcp.session.id %q, want a hash", v)
	}
	if i := found["vox.interpreter.call"]; i.ParentSpanID != c.SpanID {
		t.Errorf("vox.interpreter.call: parent %q, want %q", i.ParentSpanID, c.SpanID)
	}
}

// exchangeThenExit starts cmd, vox-mcp over stdio, sends it msgs one by
// one, reading the answer of each request (a message without an id is a
// notification: no answer), then closes its stdin and waits for it to
// exit, when its exporters flush. It returns what the server logged.
func exchangeThenExit(t *testing.T, cmd *exec.Cmd, msgs ...string) *lockedBuffer {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	for _, msg := range msgs {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, `"id":`) {
			continue // a notification: no answer
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s; stderr:\n%s", msg, stderr)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("vox-mcp: %v\n%s", err, stderr)
	}
	return stderr
}

// TestTracesOfTheFleetStore: in fleet mode, the store commands a request
// sends are client spans under its span (db.system.name redis), without
// their arguments.
func TestTracesOfTheFleetStore(t *testing.T) {
	t.Parallel()
	rc := &traceReceiver{}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)
	store := redistest.Start(t)
	root, skills := soakWorkspace(t)
	if err := os.MkdirAll(filepath.Join(skills, "fleet-limited"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "fleet-limited", "SKILL.md"), []byte(fleetSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startHTTPWith(t, root, []string{"--store", store.URL}, "VOX_SKILL_ROOTS="+skills, fleetKey,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+receiver.URL, "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_METRICS_EXPORTER=none")
	sess := initializeRaw(t, s.URL)
	if r := sess.call(s.URL, "vox_skill_use", map[string]any{"id": "fleet-limited"}); !r.ok() {
		t.Fatalf("vox_skill_use: %s", r.toolText())
	}
	isStore := func(sp otlpSpan) bool { v, _ := sp.attr("db.system.name"); return v == "redis" }
	var use otlpSpan
	deadline := time.Now().Add(time.Minute)
	for use.SpanID == "" || !hasChild(rc, use.SpanID, isStore) {
		if time.Now().After(deadline) {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			t.Fatalf("no store span under tools/call vox_skill_use; spans: %v\n%s", spanNames(rc.spans), s.stderr)
		}
		spans := rc.wait(t, "tools/call vox_skill_use", func(otlpSpan) bool { return true }, s.stderr)
		for _, sp := range spans {
			if sp.Name == "tools/call vox_skill_use" {
				use = sp
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, sp := range rc.spans {
		if !isStore(sp) {
			continue
		}
		if sp.Kind != 3 {
			t.Errorf("store span %q: kind %d, want client (3)", sp.Name, sp.Kind)
		}
		if op, _ := sp.attr("db.operation.name"); op != sp.Name {
			t.Errorf("store span %q: db.operation.name %q", sp.Name, op)
		}
		for _, a := range sp.Attributes {
			if a.Value.StringValue != nil && strings.Contains(*a.Value.StringValue, sess.id) {
				t.Errorf("store span %q: %s carries the session id", sp.Name, a.Key)
			}
		}
	}
}

// hasChild reports whether a span whose parent is parent matches.
func hasChild(rc *traceReceiver, parent string, match func(otlpSpan) bool) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, sp := range rc.spans {
		if sp.ParentSpanID == parent && match(sp) {
			return true
		}
	}
	return false
}
