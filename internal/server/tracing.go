package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/vox-lang/vox-mcp/internal/telemetry"
)

// The traces (docs/metrics.md §4). mcp-go opens a server span around
// every message it dispatches, on either transport, through its tracing
// seam (WithTracer, WithPropagator, WithMetaPropagator); mcpTracer puts
// an OpenTelemetry span behind it, named and attributed as OpenTelemetry's
// MCP semantic conventions say, which mcp-go's own names (mcp.<method>,
// mcp.tool.name, the raw session id) are not. The hooks below add what
// only the decoded request and the answer know. Off (Options.Tracing
// nil), none of this is installed: mcp-go keeps its no-op tracer, and the
// child spans (the interpreter call, a skill run, the fleet store's
// commands) start from the context's span, which is then the no-op one.

// The attributes of the server span (the MCP semantic conventions).
const (
	attrMethodName      = attribute.Key("mcp.method.name")
	attrSessionID       = attribute.Key("mcp.session.id")
	attrProtocolVersion = attribute.Key("mcp.protocol.version")
	attrToolName        = attribute.Key("gen_ai.tool.name")
	attrPromptName      = attribute.Key("gen_ai.prompt.name")
	attrOperationName   = attribute.Key("gen_ai.operation.name")
	attrResourceURI     = attribute.Key("mcp.resource.uri")
	attrRequestID       = attribute.Key("jsonrpc.request.id")
	attrErrorType       = attribute.Key("error.type")
	attrRPCStatus       = attribute.Key("rpc.response.status_code")
)

// tracingOptions are mcp-go's options that install the traces, none when
// they are off.
func tracingOptions(t *telemetry.Tracing) []mcpserver.ServerOption {
	if t == nil {
		return nil
	}
	return []mcpserver.ServerOption{
		mcpserver.WithTracer(mcpTracer{t}),
		mcpserver.WithPropagator(headerPropagator{t.Propagator()}),
		mcpserver.WithMetaPropagator(metaPropagator{t.Propagator()}),
	}
}

// addTracingHooks adds the hooks that complete the server span.
func addTracingHooks(hooks *mcpserver.Hooks, t *telemetry.Tracing) {
	if t == nil {
		return
	}
	hooks.AddBeforeAny(func(ctx context.Context, id any, method mcp.MCPMethod, message any) {
		sp, ok := tracing.SpanFromContext(ctx).(*mcpSpan)
		if !ok {
			return
		}
		if id != nil {
			sp.span.SetAttributes(attrRequestID.String(requestIDString(id)))
		}
		switch m := message.(type) {
		case *mcp.CallToolRequest:
			sp.target(attrToolName, m.Params.Name)
		case *mcp.GetPromptRequest:
			sp.target(attrPromptName, m.Params.Name)
		case *mcp.ReadResourceRequest:
			sp.span.SetAttributes(attrResourceURI.String(m.Params.URI))
		}
	})
	hooks.AddOnSuccess(func(ctx context.Context, _ any, _ mcp.MCPMethod, _, result any) {
		if r, ok := result.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attrErrorType.String("tool_error"))
			span.SetStatus(codes.Error, "the tool's result is an error (isError)")
		}
	})
	hooks.AddOnError(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any, err error) {
		code := mcp.INTERNAL_ERROR
		if e, ok := err.(interface{ ToJSONRPCError() mcp.JSONRPCError }); ok {
			code = e.ToJSONRPCError().Error.Code
		}
		c := strconv.Itoa(code)
		span := trace.SpanFromContext(ctx)
		span.SetAttributes(attrErrorType.String(c), attrRPCStatus.String(c))
		span.SetStatus(codes.Error, err.Error())
	})
}

// requestIDString is a JSON-RPC id as the attribute carries it.
func requestIDString(id any) string {
	switch v := id.(type) {
	case mcp.RequestId:
		return requestIDString(v.Value())
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	}
	return ""
}

// mcpTracer is mcp-go's tracing.Tracer on an OpenTelemetry tracer.
type mcpTracer struct{ t *telemetry.Tracing }

// Start opens the server span of a message. mcp-go's other span, the
// internal tool.<name> around a tool handler, is not opened: the
// conventions make the server span of tools/call the tool's execution
// (gen_ai.operation.name execute_tool), and the handler's work is its
// children.
func (a mcpTracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	if kind != tracing.SpanKindServer {
		return ctx, tracing.SpanFromContext(context.Background()) // the no-op span
	}
	var method string
	kvs := make([]attribute.KeyValue, 0, len(attrs)+1)
	for _, at := range attrs {
		switch at.Key {
		case "mcp.method":
			method = at.Value
			kvs = append(kvs, attrMethodName.String(at.Value))
		case "mcp.session.id":
			kvs = append(kvs, attrSessionID.String(a.t.SessionHash(at.Value)))
		case "mcp.protocol.version":
			kvs = append(kvs, attrProtocolVersion.String(at.Value))
		}
	}
	if method == "" {
		method = name
	}
	if method == string(mcp.MethodToolsCall) {
		kvs = append(kvs, attrOperationName.String("execute_tool"))
	}
	ctx, span := a.t.Tracer().Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(kvs...))
	sp := &mcpSpan{span: span, method: method}
	return tracing.ContextWithSpan(ctx, sp), sp
}

// mcpSpan is mcp-go's tracing.Span on an OpenTelemetry span.
type mcpSpan struct {
	span   trace.Span
	method string
	named  bool
}

// target names the span "{method} {target}" and sets the target's
// attribute (the conventions' span name).
func (s *mcpSpan) target(key attribute.Key, name string) {
	if name == "" || s.named {
		return
	}
	s.named = true
	s.span.SetName(s.method + " " + name)
	s.span.SetAttributes(key.String(name))
}

// SetAttributes takes mcp-go's tool name (set by its tool middleware);
// the hooks set the rest.
func (s *mcpSpan) SetAttributes(attrs ...tracing.Attribute) {
	for _, at := range attrs {
		if at.Key == "mcp.tool.name" {
			s.target(attrToolName, at.Value)
		}
	}
}

func (s *mcpSpan) RecordError(err error) { s.span.RecordError(err) }

// SetStatus records an error status; mcp-go sets no other.
func (s *mcpSpan) SetStatus(code tracing.StatusCode, description string) {
	if code == tracing.StatusError {
		s.span.SetStatus(codes.Error, description)
	}
}

func (s *mcpSpan) End() { s.span.End() }

// headerPropagator reads traceparent and tracestate from the HTTP
// request's headers (none over stdio).
type headerPropagator struct{ p propagation.TextMapPropagator }

func (h headerPropagator) Inject(ctx context.Context, headers http.Header) {
	h.p.Inject(ctx, propagation.HeaderCarrier(headers))
}

func (h headerPropagator) Extract(ctx context.Context, headers http.Header) context.Context {
	if headers == nil || headers.Get("traceparent") == "" {
		return ctx // keep what _meta gave
	}
	return h.p.Extract(ctx, propagation.HeaderCarrier(headers))
}

// metaPropagator reads traceparent and tracestate from params._meta,
// where a client over stdio (or one that prefers it) sends them (SEP-414).
type metaPropagator struct{ p propagation.TextMapPropagator }

func (m metaPropagator) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	if meta == nil {
		meta = &mcp.Meta{}
	}
	c := propagation.MapCarrier{}
	m.p.Inject(ctx, c)
	if len(c) > 0 && meta.AdditionalFields == nil {
		meta.AdditionalFields = map[string]any{}
	}
	for k, v := range c {
		meta.AdditionalFields[k] = v
	}
	return meta
}

func (m metaPropagator) ExtractMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil {
		return ctx
	}
	c := propagation.MapCarrier{}
	for _, k := range []string{"traceparent", "tracestate"} {
		if v, ok := meta.AdditionalFields[k].(string); ok {
			c[k] = v
		}
	}
	if c["traceparent"] == "" {
		return ctx
	}
	return m.p.Extract(ctx, c)
}

// childSpan starts a span under the request's: the no-op span when
// tracing is off or the context has none.
func childSpan(ctx context.Context, name string, kind trace.SpanKind, attrs func() []attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		// Traces off: the attributes are not even built (a variadic
		// slice of them escaped to the heap on every call).
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(telemetry.TracerName).Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs()...))
}

// endSpan ends span, marking err as its error.
func endSpan(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// shimSpan records a request the shim answered itself (shim.go), which
// mcp-go's tracing never sees: a server span from start to now, under the
// caller's span from params._meta.traceparent or, over HTTP, the
// traceparent header (header nil over stdio). reply's JSON-RPC error, if
// any, is its outcome.
func (s *Server) shimSpan(ctx context.Context, head *rpcMessage, header http.Header, start time.Time, reply []byte) {
	t := s.opts.Tracing
	if t == nil || len(head.ID) == 0 {
		return
	}
	var params struct {
		Meta struct {
			Traceparent string `json:"traceparent"`
			Tracestate  string `json:"tracestate"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(head.Params, &params)
	if params.Meta.Traceparent != "" {
		ctx = t.Propagator().Extract(ctx, propagation.MapCarrier{"traceparent": params.Meta.Traceparent, "tracestate": params.Meta.Tracestate})
	}
	if header.Get("traceparent") != "" {
		ctx = t.Propagator().Extract(ctx, propagation.HeaderCarrier(header))
	}
	_, span := t.Tracer().Start(ctx, head.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithAttributes(attrMethodName.String(head.Method), attrRequestID.String(strings.Trim(string(head.ID), `"`))))
	var answer struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(reply, &answer) == nil && answer.Error != nil {
		c := strconv.Itoa(answer.Error.Code)
		span.SetAttributes(attrErrorType.String(c), attrRPCStatus.String(c))
		span.SetStatus(codes.Error, answer.Error.Message)
	}
	span.End()
}

// traceHeaderKey carries the HTTP request's header to shimSpan, set by
// the HTTP shim when traces are on.
type traceHeaderKey struct{}

// headerFrom is the header the HTTP shim put in ctx (nil: none, stdio).
func headerFrom(ctx context.Context) http.Header {
	h, _ := ctx.Value(traceHeaderKey{}).(http.Header)
	return h
}
