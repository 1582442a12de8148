package telemetry

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// TracerName is the instrumentation scope of vox-mcp's spans.
const TracerName = "github.com/vox-lang/vox-mcp"

// TracesConfigured reports whether the environment asks for OTLP traces:
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none
// turns it off.
func TracesConfigured(getenv func(string) string) bool {
	return otlpEnabled(getenv, signalTraces)
}

// Tracing is the tracer provider exporting spans over OTLP/HTTP JSON
// (docs/metrics.md §4). A nil *Tracing is off.
type Tracing struct {
	provider   *sdktrace.TracerProvider
	tracer     trace.Tracer
	sessionKey []byte
	log        *slog.Logger
}

// StartTracing builds the tracer provider when TracesConfigured; else it
// returns nil and nil, and nothing of the SDK is initialised. The batch
// processor reads OTEL_BSP_*, the provider OTEL_TRACES_SAMPLER and its
// argument (parent-based always-on by default).
func StartTracing(ctx context.Context, cfg Config) (*Tracing, error) {
	if !TracesConfigured(cfg.Getenv) {
		return nil, nil
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	client, err := newOTLPClient(cfg.Getenv, signalTraces)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	if w := client.jsonOnly(); w != "" {
		logger.Warn(w)
	}
	res, err := newResource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	key := cfg.SessionKey
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(&spanExporter{client: client}))
	return &Tracing{provider: p, tracer: p.Tracer(TracerName), sessionKey: key, log: logger}, nil
}

// Tracer is the tracer of vox-mcp's spans.
func (t *Tracing) Tracer() trace.Tracer {
	return t.tracer
}

// Propagator reads W3C trace context (traceparent, tracestate).
func (t *Tracing) Propagator() propagation.TextMapPropagator {
	return propagation.TraceContext{}
}

// SessionHash is what a span carries as mcp.session.id: the first 16 hex
// digits of HMAC-SHA-256 of the session id, the audit trail's hash when
// both are keyed by VOX_MCP_SESSION_KEY (Config.SessionKey). A session
// id over HTTP is a credential: a trace backend must not hold it.
func (t *Tracing) SessionHash(id string) string {
	return session.Hash(t.sessionKey, id)
}

// Shutdown exports the spans still queued and stops the provider.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}
