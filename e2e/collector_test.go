package e2e

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/otelcoltest"
)

// TestTelemetryReachesTheCollector: the real binary over stdio, exporting
// to a real OpenTelemetry Collector (internal/otelcoltest: its OTLP
// receiver and file exporter, built by make deps), whose file holds the
// span of the call under the caller's traceparent, the interpreter's span
// under it, and the request duration metric of the call. The receiver of
// traces_test.go decodes strictly; this one is what users run.
func TestTelemetryReachesTheCollector(t *testing.T) {
	t.Parallel()
	col := otelcoltest.Start(t)
	root, _ := soakWorkspace(t)
	cmd := exec.Command(voxMCP, "--root", root)
	cmd.Env = serverEnv(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.Endpoint, "OTEL_SERVICE_NAME=vox-mcp-collector-test")
	const (
		trace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent = "00f067aa0ba902b7"
	)
	args, _ := json.Marshal(fibArgs)
	// The exporters flush at the exit: the end of stdin ends the server.
	exchangeThenExit(t, cmd,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"collector-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fibonacci","arguments":`+string(args)+`,"_meta":{"traceparent":"00-`+trace+`-`+parent+`-01"}}}`)

	spans := col.WaitSpans(func(s []otelcoltest.Span) bool {
		_, call := otelcoltest.FindSpan(s, "tools/call fibonacci")
		_, interp := otelcoltest.FindSpan(s, "vox.interpreter.call")
		return call && interp
	})
	call, _ := otelcoltest.FindSpan(spans, "tools/call fibonacci")
	if call.TraceID != trace || call.ParentSpanID != parent || call.Kind != 2 {
		t.Errorf("tools/call fibonacci: trace %s parent %s kind %d, want a server span under %s/%s", call.TraceID, call.ParentSpanID, call.Kind, trace, parent)
	}
	if call.Attributes["gen_ai.tool.name"] != "fibonacci" || call.Attributes["mcp.method.name"] != "tools/call" {
		t.Errorf("tools/call fibonacci: attributes %v, want gen_ai.tool.name fibonacci and mcp.method.name tools/call", call.Attributes)
	}
	if call.Resource["service.name"] != "vox-mcp-collector-test" {
		t.Errorf("resource %v, want service.name from OTEL_SERVICE_NAME", call.Resource)
	}
	if interp, _ := otelcoltest.FindSpan(spans, "vox.interpreter.call"); interp.ParentSpanID != call.SpanID || interp.TraceID != trace {
		t.Errorf("vox.interpreter.call: trace %s parent %s, want under the call's span %s", interp.TraceID, interp.ParentSpanID, call.SpanID)
	}

	metrics := col.WaitMetrics(func(m []otelcoltest.Metric) bool {
		_, ok := otelcoltest.FindMetric(m, "mcp.server.operation.duration")
		return ok
	})
	op, _ := otelcoltest.FindMetric(metrics, "mcp.server.operation.duration")
	called := false
	for _, p := range op.Points {
		if p.Attributes["gen_ai.tool.name"] == "fibonacci" && p.Count >= 1 {
			called = true
		}
	}
	if op.Type != "histogram" || !called {
		t.Errorf("mcp.server.operation.duration: %+v, want a histogram with a point of the fibonacci call", op)
	}
}
