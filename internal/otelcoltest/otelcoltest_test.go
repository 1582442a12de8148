package otelcoltest

import (
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// post sends an OTLP/HTTP JSON export request, as an SDK's exporter with
// the JSON encoding does, and checks that the Collector accepted it.
func post(t *testing.T, endpoint, path, body string) {
	t.Helper()
	resp, err := http.Post(endpoint+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", path, resp.Status, b)
	}
}

const (
	traceID = "5b8efff798038103d269b633813fc60c"
	rootID  = "eee19b7ec3c1b174"
	childID = "eee19b7ec3c1b173"
)

// A trace of two spans, a server span and its child, with attributes of
// each kind, an event and an error status; built by hand as the OTLP
// specification's JSON encoding writes it.
var tracesBody = fmt.Sprintf(`{"resourceSpans":[{
  "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"vox-mcp"}}]},
  "scopeSpans":[{"scope":{"name":"github.com/vox-lang/vox-mcp"},"spans":[
    {"traceId":%[1]q,"spanId":%[2]q,"name":"tools/call vox_hello","kind":2,
     "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000500000000",
     "attributes":[
       {"key":"mcp.method.name","value":{"stringValue":"tools/call"}},
       {"key":"rpc.jsonrpc.request_id","value":{"intValue":"42"}},
       {"key":"vox.cached","value":{"boolValue":true}},
       {"key":"vox.ratio","value":{"doubleValue":0.25}},
       {"key":"vox.tags","value":{"arrayValue":{"values":[{"stringValue":"a"},{"intValue":"2"}]}}}],
     "status":{"code":2,"message":"tool failed"}},
    {"traceId":%[1]q,"spanId":%[3]q,"parentSpanId":%[2]q,"name":"vox.eval","kind":1,
     "startTimeUnixNano":"1700000000100000000","endTimeUnixNano":"1700000000400000000",
     "events":[{"name":"exception","timeUnixNano":"1700000000300000000",
       "attributes":[{"key":"exception.message","value":{"stringValue":"boom"}}]}]}
  ]}]}]}`, traceID, rootID, childID)

var metricsBody = `{"resourceMetrics":[{
  "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"vox-mcp"}}]},
  "scopeMetrics":[{"scope":{"name":"github.com/vox-lang/vox-mcp"},"metrics":[
    {"name":"mcp.server.requests","unit":"{request}","sum":{"aggregationTemporality":2,"isMonotonic":true,
      "dataPoints":[{"attributes":[{"key":"mcp.method.name","value":{"stringValue":"tools/call"}}],
        "startTimeUnixNano":"1700000000000000000","timeUnixNano":"1700000001000000000","asInt":"3"}]}},
    {"name":"mcp.server.sessions.active","gauge":{"dataPoints":[{"timeUnixNano":"1700000001000000000","asDouble":2}]}},
    {"name":"mcp.server.operation.duration","unit":"s","histogram":{"aggregationTemporality":2,
      "dataPoints":[{"startTimeUnixNano":"1700000000000000000","timeUnixNano":"1700000001000000000",
        "count":"2","sum":0.75,"bucketCounts":["1","1"],"explicitBounds":[0.5]}]}}
  ]}]}]}`

var logsBody = fmt.Sprintf(`{"resourceLogs":[{
  "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"vox-mcp"}}]},
  "scopeLogs":[{"scope":{"name":"audit"},"logRecords":[
    {"timeUnixNano":"1700000001000000000","severityNumber":9,"severityText":"INFO",
     "body":{"stringValue":"tool call"},"traceId":%q,"spanId":%q,
     "attributes":[{"key":"vox.outcome","value":{"stringValue":"ok"}}]}
  ]}]}]}`, traceID, rootID)

// TestCollectorReceives posts traces, metrics and logs to a real
// Collector over OTLP/HTTP JSON and reads back what its file exporter
// wrote: the harness the telemetry tests rely on.
func TestCollectorReceives(t *testing.T) {
	c := Start(t)
	post(t, c.Endpoint, "/v1/traces", tracesBody)
	post(t, c.Endpoint, "/v1/metrics", metricsBody)
	post(t, c.Endpoint, "/v1/logs", logsBody)

	spans := c.WaitSpans(func(s []Span) bool { return len(s) >= 2 })
	if got := Names(spans); !reflect.DeepEqual(got, []string{"tools/call vox_hello", "vox.eval"}) {
		t.Fatalf("span names = %q", got)
	}
	root := spans[0]
	child, ok := FindSpan(spans, "vox.eval")
	if !ok {
		t.Fatal("FindSpan found no vox.eval")
	}
	if root.TraceID != traceID || root.SpanID != rootID || root.ParentSpanID != "" {
		t.Errorf("root ids = %s/%s parent %q", root.TraceID, root.SpanID, root.ParentSpanID)
	}
	if child.TraceID != traceID || child.SpanID != childID || child.ParentSpanID != rootID {
		t.Errorf("child ids = %s/%s parent %q, want parent %s", child.TraceID, child.SpanID, child.ParentSpanID, rootID)
	}
	wantAttrs := map[string]any{
		"mcp.method.name":        "tools/call",
		"rpc.jsonrpc.request_id": int64(42),
		"vox.cached":             true,
		"vox.ratio":              0.25,
		"vox.tags":               []any{"a", int64(2)},
	}
	if !reflect.DeepEqual(root.Attributes, wantAttrs) {
		t.Errorf("root attributes = %#v, want %#v", root.Attributes, wantAttrs)
	}
	if root.Kind != 2 || child.Kind != 1 || root.StatusCode != 2 || root.StatusMessage != "tool failed" {
		t.Errorf("kinds %d, %d, root status %d %q", root.Kind, child.Kind, root.StatusCode, root.StatusMessage)
	}
	if d := root.End.Sub(root.Start); d != 500*time.Millisecond {
		t.Errorf("root duration = %v", d)
	}
	if root.Resource["service.name"] != "vox-mcp" || root.Scope != "github.com/vox-lang/vox-mcp" {
		t.Errorf("root resource %v, scope %q", root.Resource, root.Scope)
	}
	if len(child.Events) != 1 || child.Events[0].Name != "exception" || child.Events[0].Attributes["exception.message"] != "boom" {
		t.Errorf("child events = %+v", child.Events)
	}

	metrics := c.WaitMetrics(func(m []Metric) bool { return len(m) >= 3 })
	requests, ok := FindMetric(metrics, "mcp.server.requests")
	if !ok || requests.Type != "sum" || requests.Unit != "{request}" || len(requests.Points) != 1 ||
		requests.Points[0].Value != 3 || requests.Points[0].Attributes["mcp.method.name"] != "tools/call" {
		t.Errorf("mcp.server.requests = %+v (found %v)", requests, ok)
	}
	if active, _ := FindMetric(metrics, "mcp.server.sessions.active"); active.Type != "gauge" || len(active.Points) != 1 || active.Points[0].Value != 2 {
		t.Errorf("mcp.server.sessions.active = %+v", active)
	}
	if dur, _ := FindMetric(metrics, "mcp.server.operation.duration"); dur.Type != "histogram" || len(dur.Points) != 1 ||
		dur.Points[0].Count != 2 || dur.Points[0].Sum != 0.75 || dur.Resource["service.name"] != "vox-mcp" {
		t.Errorf("mcp.server.operation.duration = %+v", dur)
	}

	logs := c.WaitLogs(func(l []Log) bool { return len(l) >= 1 })
	if l := logs[0]; l.Body != "tool call" || l.SeverityText != "INFO" || l.SeverityNumber != 9 ||
		l.TraceID != traceID || l.SpanID != rootID || l.Attributes["vox.outcome"] != "ok" || l.Scope != "audit" {
		t.Errorf("log record = %+v", l)
	}

	// What was received stays readable after the Collector stops.
	c.Stop()
	if n := len(c.Spans()); n != 2 {
		t.Errorf("after Stop, %d spans, want 2", n)
	}
}

// TestCollectorsApart runs two Collectors at once, as parallel tests do:
// each listens on its own port and writes its own file.
func TestCollectorsApart(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.Endpoint == b.Endpoint || a.File() == b.File() {
		t.Fatalf("two Collectors share %s or %s", a.Endpoint, a.File())
	}
	post(t, a.Endpoint, "/v1/traces", tracesBody)
	a.WaitSpans(func(s []Span) bool { return len(s) == 2 })
	b.Stop() // flushes whatever it had
	if s := b.Spans(); len(s) != 0 {
		t.Errorf("the other Collector received %q", Names(s))
	}
}
