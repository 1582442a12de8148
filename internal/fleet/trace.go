package fleet

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// traceHook makes each command and pipeline sent to the store a client
// span under the request that sent it, when that request is traced
// (docs/metrics.md §4): named by the operation, with db.system.name redis
// as OpenTelemetry's database conventions say, and never the command's
// arguments (session keys, states). Untraced, it is one check and the
// command goes on.
type traceHook struct{}

var _ redis.Hook = traceHook{}

func (traceHook) DialHook(next redis.DialHook) redis.DialHook {
	return next
}

func (traceHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		parent := trace.SpanFromContext(ctx)
		if !parent.IsRecording() {
			return next(ctx, cmd)
		}
		op := strings.ToUpper(cmd.Name())
		ctx, span := parent.TracerProvider().Tracer("github.com/vox-lang/vox-mcp/internal/fleet").Start(ctx, op,
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", op)))
		err := next(ctx, cmd)
		endStoreSpan(span, err)
		return err
	}
}

func (traceHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		parent := trace.SpanFromContext(ctx)
		if !parent.IsRecording() {
			return next(ctx, cmds)
		}
		ctx, span := parent.TracerProvider().Tracer("github.com/vox-lang/vox-mcp/internal/fleet").Start(ctx, "PIPELINE",
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", "PIPELINE"),
				attribute.Int("db.operation.batch.size", len(cmds))))
		err := next(ctx, cmds)
		endStoreSpan(span, err)
		return err
	}
}

// endStoreSpan ends a store span; redis.Nil (no such key) is an answer,
// not an error.
func endStoreSpan(span trace.Span, err error) {
	if err != nil && !errors.Is(err, redis.Nil) {
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End()
}

// errorType is error.type of a failed command: timeout for a network
// timeout, the error's Redis prefix (ERR, WRONGTYPE, ...) otherwise.
func errorType(err error) string {
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "timeout"
	}
	if prefix, _, ok := strings.Cut(err.Error(), " "); ok && prefix == strings.ToUpper(prefix) {
		return prefix
	}
	return "_OTHER"
}
