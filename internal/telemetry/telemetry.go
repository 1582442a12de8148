// Package telemetry is vox-mcp's metrics and traces: one OpenTelemetry
// meter provider whose instruments are read by a Prometheus endpoint
// (--metrics ADDR, its own listener) and exported over OTLP/HTTP, and a
// tracer provider exporting spans over OTLP/HTTP, when OpenTelemetry's
// standard environment variables name an endpoint (docs/metrics.md §1,
// §4). The instrument names follow OpenTelemetry's MCP semantic
// conventions where they have one (mcp.server.operation.duration) and
// are vox.mcp.* otherwise (docs/metrics.md §2).
//
// The exporters are written here (exporters.go, prometheus.go): the
// OTLP/HTTP JSON encoding and the Prometheus text format over the SDK's
// collected data. OpenTelemetry's own exporters link gRPC and protobuf
// (otlpmetrichttp imports the OTLP collector services) and the
// Prometheus client library, which cost 21 MB of binary and 8 MiB of RSS
// at every start, telemetry on or off (docs/metrics.md §3).
//
// Off is the default and costs nothing: Start and StartTracing return nil
// when nothing is configured, without initialising the SDK, and every
// method of a nil *Metrics returns at once, so the server's hooks are one
// nil check; the package has no init work of its own.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// MetricsPath is the path of the Prometheus endpoint.
const MetricsPath = "/metrics"

// Config says where the metrics go.
type Config struct {
	// PrometheusAddr is HOST:PORT of the Prometheus endpoint (--metrics);
	// "" serves none. A port of 0 picks a free one (see Metrics.Addr).
	PrometheusAddr string
	// AllowRemote lets PrometheusAddr be a non-loopback address
	// (--metrics-allow-remote): the metrics name tools and skills.
	AllowRemote bool
	// Getenv reads OpenTelemetry's environment variables; nil means none
	// are set.
	Getenv func(string) string
	// ServiceVersion is the resource's service.version.
	ServiceVersion string
	// Logger receives export errors; nil discards them.
	Logger *slog.Logger
	// SessionKey keys the hash spans carry for a session id
	// (Tracing.SessionHash); nil picks a random key.
	SessionKey []byte
}

// OTLPConfigured reports whether the environment asks for OTLP metrics:
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is
// set, and neither OTEL_SDK_DISABLED=true nor OTEL_METRICS_EXPORTER=none
// turns it off (OpenTelemetry's environment variable specification).
func OTLPConfigured(getenv func(string) string) bool {
	return otlpEnabled(getenv, signalMetrics)
}

// CheckAddr refuses a Prometheus endpoint on a non-loopback address unless
// allowRemote: the series name the workspace's tools and skills, which
// are the repository's business, in the spirit of internal/server's
// CheckListenAddr, which refuses --http there without a token.
func CheckAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics %s: want HOST:PORT, for example 127.0.0.1:9464 (%v)", addr, err)
	}
	if isLoopback(host) || allowRemote {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return fmt.Errorf("--metrics %s: refusing to serve the metrics on %s, which is not a loopback address: they name this repository's tools and skills; "+
		"listen on a loopback address such as 127.0.0.1:%s, or pass --metrics-allow-remote to serve them there", addr, where, port)
}

// isLoopback is transport.IsLoopback of internal/server (localhost,
// 127.0.0.0/8, ::1), which this leaf does not import.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// Start builds the meter provider and its readers: the Prometheus
// endpoint when cfg.PrometheusAddr is set, the OTLP/HTTP exporter when
// OTLPConfigured. Neither configured: it returns nil and nil, and nothing
// of the SDK is initialised.
func Start(ctx context.Context, cfg Config) (*Metrics, error) {
	otlp := OTLPConfigured(cfg.Getenv)
	if cfg.PrometheusAddr == "" && !otlp {
		return nil, nil
	}
	if cfg.PrometheusAddr != "" {
		if err := CheckAddr(cfg.PrometheusAddr, cfg.AllowRemote); err != nil {
			return nil, err
		}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	res, err := newResource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var reader *sdkmetric.ManualReader
	if cfg.PrometheusAddr != "" {
		reader = sdkmetric.NewManualReader()
		opts = append(opts, sdkmetric.WithReader(reader))
	}
	if otlp {
		client, err := newOTLPClient(cfg.Getenv, signalMetrics)
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		if w := client.jsonOnly(); w != "" {
			logger.Warn(w)
		}
		// The reader reads OTEL_METRIC_EXPORT_INTERVAL and
		// OTEL_METRIC_EXPORT_TIMEOUT itself.
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&metricExporter{client: client})))
	}
	m := &Metrics{provider: sdkmetric.NewMeterProvider(opts...), log: logger}
	if err := m.instruments(); err != nil {
		_ = m.provider.Shutdown(ctx)
		return nil, err
	}
	if reader != nil {
		if err := m.listen(cfg.PrometheusAddr, reader); err != nil {
			_ = m.provider.Shutdown(ctx)
			return nil, err
		}
	}
	return m, nil
}

// newResource is the resource every series carries: service.name
// (OTEL_SERVICE_NAME, else vox-mcp), service.version, and
// OTEL_RESOURCE_ATTRIBUTES.
func newResource(ctx context.Context, cfg Config) (*resource.Resource, error) {
	name := "vox-mcp"
	if cfg.Getenv != nil && cfg.Getenv("OTEL_SERVICE_NAME") != "" {
		name = cfg.Getenv("OTEL_SERVICE_NAME")
	}
	attrs := []attribute.KeyValue{semconv.ServiceName(name)}
	if cfg.ServiceVersion != "" {
		attrs = append(attrs, semconv.ServiceVersion(cfg.ServiceVersion))
	}
	detectors := []resource.Option{resource.WithAttributes(attrs...)}
	if cfg.Getenv != nil && cfg.Getenv("OTEL_RESOURCE_ATTRIBUTES") != "" {
		detectors = append(detectors, resource.WithFromEnv())
	}
	res, err := resource.New(ctx, detectors...)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("metrics: OTEL_RESOURCE_ATTRIBUTES: %w; write it as key=value,key=value", err)
	}
	return res, nil
}

// listen serves the Prometheus endpoint on its own listener.
func (m *Metrics) listen(addr string, reader *sdkmetric.ManualReader) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics %s: %w; choose a free port", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, promHandler(reader, m.collectLogger()))
	m.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.addr = ln.Addr()
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error("the metrics endpoint stopped", "addr", addr, "err", err)
		}
	}()
	return nil
}

// Addr is the bound address of the Prometheus endpoint (nil: none).
func (m *Metrics) Addr() net.Addr {
	if m == nil {
		return nil
	}
	return m.addr
}

// Shutdown stops the endpoint and flushes the OTLP exporter.
func (m *Metrics) Shutdown(ctx context.Context) error {
	if m == nil {
		return nil
	}
	var errs []error
	if m.server != nil {
		errs = append(errs, m.server.Shutdown(ctx))
	}
	errs = append(errs, m.provider.Shutdown(ctx))
	return errors.Join(errs...)
}

// meter is the instrumentation scope of every instrument here.
func (m *Metrics) meter() metric.Meter {
	return m.provider.Meter("github.com/vox-lang/vox-mcp/internal/telemetry")
}
