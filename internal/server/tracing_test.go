package server

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestChildSpanOffCostsNothing: with traces off (no recording span in the
// context) a child span is the request's own no-op span, its context the
// request's, and its attributes are never built — a call pays nothing
// for the tracing it does not do (docs/metrics.md §4).
func TestChildSpanOffCostsNothing(t *testing.T) {
	ctx := context.Background()
	built := false
	sctx, span := childSpan(ctx, "vox.interpreter.call", trace.SpanKindInternal, func() []attribute.KeyValue {
		built = true
		return nil
	})
	if sctx != ctx || span.IsRecording() || built {
		t.Fatalf("traces off: got a new context %v, a recording span %v, attributes built %v; want none", sctx != ctx, span.IsRecording(), built)
	}
	name := "a tool"
	allocs := testing.AllocsPerRun(100, func() {
		_, span := childSpan(ctx, "vox.interpreter.call", trace.SpanKindInternal, func() []attribute.KeyValue {
			return []attribute.KeyValue{attrToolName.String(name)}
		})
		endSpan(span, nil)
	})
	if allocs != 0 {
		t.Errorf("a child span with traces off allocates %v times; want 0", allocs)
	}
}
