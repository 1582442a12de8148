package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// The attribute keys of the series (docs/metrics.md §2): the MCP
// semantic conventions' where they have one.
const (
	keyMethod     = attribute.Key("mcp.method.name")
	keyTool       = attribute.Key("gen_ai.tool.name")
	keyPrompt     = attribute.Key("gen_ai.prompt.name")
	keyErrorType  = attribute.Key("error.type")
	keyRPCStatus  = attribute.Key("rpc.response.status_code")
	keyOutcome    = attribute.Key("vox.skill.run.outcome")
	keySandbox    = attribute.Key("vox.skill.sandbox")
	keyEndReason  = attribute.Key("vox.session.end.reason")
	keyTransport  = attribute.Key("network.transport")
	errToolError  = "tool_error"
	errOther      = "_OTHER"
	reasonDeleted = "deleted"
)

// durationBuckets are the bucket boundaries the MCP semantic conventions
// advise for mcp.server.operation.duration, in seconds; the skill runs and
// refreshes use them too.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Metrics are the instruments. A nil *Metrics is off: every method
// returns at once.
type Metrics struct {
	provider *sdkmetric.MeterProvider
	log      *slog.Logger
	server   *http.Server
	addr     net.Addr

	operation       metric.Float64Histogram
	sessionDuration metric.Float64Histogram
	sessionsStarted metric.Int64Counter
	sessionsEnded   metric.Int64Counter
	skillRun        metric.Float64Histogram
	refresh         metric.Float64Histogram
	// openSessions, when set (SetOpenSessions), counts the sessions with
	// a request open on this instance at each collection.
	// It is atomic: the OTLP reader collects from its own goroutine from
	// the start, before the server sets it.
	openSessions atomic.Pointer[func() int]
}

// instruments creates the instruments on the provider's meter.
func (m *Metrics) instruments() error {
	meter := m.meter()
	buckets := metric.WithExplicitBucketBoundaries(durationBuckets...)
	var err error
	errs := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	var e error
	m.operation, e = meter.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), buckets,
		metric.WithDescription("MCP request duration as observed on the server from the time it was received until the result is sent."))
	errs(e)
	m.sessionDuration, e = meter.Float64Histogram("mcp.server.session.duration", metric.WithUnit("s"), buckets,
		metric.WithDescription("The duration of the MCP sessions ended by their client (HTTP DELETE), as observed on the server."))
	errs(e)
	m.sessionsStarted, e = meter.Int64Counter("vox.mcp.sessions.started", metric.WithUnit("{session}"),
		metric.WithDescription("Sessions started on this instance: an HTTP initialize, or the stdio session."))
	errs(e)
	m.sessionsEnded, e = meter.Int64Counter("vox.mcp.sessions.ended", metric.WithUnit("{session}"),
		metric.WithDescription("HTTP sessions ended by their client on this instance (DELETE)."))
	errs(e)
	m.skillRun, e = meter.Float64Histogram("vox.mcp.skill.run.duration", metric.WithUnit("s"), buckets,
		metric.WithDescription("Duration of the skill commands vox_skill_run ran, by outcome and sandbox."))
	errs(e)
	m.refresh, e = meter.Float64Histogram("vox.mcp.workspace.refresh.duration", metric.WithUnit("s"), buckets,
		metric.WithDescription("Duration of the workspace surface refreshes (first scan, vox_workspace_mcp_refresh, --watch, the fleet)."))
	errs(e)
	_, e = meter.Int64ObservableUpDownCounter("vox.mcp.sessions.open", metric.WithUnit("{session}"),
		metric.WithDescription("Sessions with a request or an event stream open on this instance (the stdio session while it is served)."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			if f := m.openSessions.Load(); f != nil {
				o.Observe(int64((*f)()))
			}
			return nil
		}))
	errs(e)
	if err != nil {
		return fmt.Errorf("metrics: creating the instruments: %w", err)
	}
	return nil
}

// SetOpenSessions sets how the open sessions are counted at each
// collection. It is called once, before serving.
func (m *Metrics) SetOpenSessions(count func() int) {
	if m == nil {
		return
	}
	m.openSessions.Store(&count)
}

// Operation is one MCP request the server answered. tool is the tool of
// a tools/call or the prompt of a prompts/get ("" otherwise); toolError
// marks a tools/call whose result has isError; rpcCode is the JSON-RPC
// error code of an error answer (0: none).
func (m *Metrics) Operation(method, tool string, d time.Duration, toolError bool, rpcCode int) {
	if m == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, keyMethod.String(method))
	if tool != "" {
		if method == "prompts/get" {
			attrs = append(attrs, keyPrompt.String(tool))
		} else {
			attrs = append(attrs, keyTool.String(tool))
		}
	}
	switch {
	case rpcCode != 0:
		code := strconv.Itoa(rpcCode)
		attrs = append(attrs, keyErrorType.String(code), keyRPCStatus.String(code))
	case toolError:
		attrs = append(attrs, keyErrorType.String(errToolError))
	}
	m.operation.Record(context.Background(), d.Seconds(), metric.WithAttributes(attrs...))
}

// SessionStarted counts a session begun over transport ("http" is
// recorded as tcp, "stdio" as pipe: network.transport's values).
func (m *Metrics) SessionStarted(transport string) {
	if m == nil {
		return
	}
	m.sessionsStarted.Add(context.Background(), 1, metric.WithAttributes(keyTransport.String(transport)))
}

// SessionEnded counts an HTTP session its client ended, which lasted d.
func (m *Metrics) SessionEnded(d time.Duration) {
	if m == nil {
		return
	}
	m.sessionsEnded.Add(context.Background(), 1, metric.WithAttributes(keyEndReason.String(reasonDeleted)))
	m.sessionDuration.Record(context.Background(), d.Seconds())
}

// The outcomes of a skill run (vox.skill.run.outcome).
const (
	RunOK         = "ok"          // exit status 0
	RunExitStatus = "exit_status" // a non-zero exit status
	RunTimeout    = "timeout"     // the timeout expired or the call was cancelled
	RunSetupError = "setup_error" // the sandbox could not be set up: the command did not run
	RunError      = "error"       // any other failure to run
)

// SkillRun is one command vox_skill_run ran; isolated is false under
// VOX_SKILL_SANDBOX=off.
func (m *Metrics) SkillRun(outcome string, isolated bool, d time.Duration) {
	if m == nil {
		return
	}
	sandbox := "isolated"
	if !isolated {
		sandbox = "off"
	}
	m.skillRun.Record(context.Background(), d.Seconds(), metric.WithAttributes(keyOutcome.String(outcome), keySandbox.String(sandbox)))
}

// Refresh is one workspace surface refresh; failed marks one whose scan
// failed (the previous surface stayed in service).
func (m *Metrics) Refresh(d time.Duration, failed bool) {
	if m == nil {
		return
	}
	if failed {
		m.refresh.Record(context.Background(), d.Seconds(), metric.WithAttributes(keyErrorType.String(errOther)))
		return
	}
	m.refresh.Record(context.Background(), d.Seconds())
}
