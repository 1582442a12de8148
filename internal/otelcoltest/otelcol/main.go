// Command otelcol is the OpenTelemetry Collector that vox-mcp's telemetry
// tests send to (internal/otelcoltest): the OTLP receiver and the contrib
// file exporter, nothing else — a minimal build written by hand, as the
// Collector's builder (ocb) would generate it, with the file provider for
// --config and a telemetry factory of its own (below). make deps builds
// it into bin/otelcol.
//
// It lives in a module of its own so that the Collector and its
// dependencies never become dependencies of vox-mcp: the main module's go
// mod tidy and go test ./... do not see it. Every collector module is at
// one release (v0.161.0, with the v1.67.0 stable modules and the contrib
// file exporter v0.161.0).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func main() {
	info := component.BuildInfo{Command: "otelcol", Description: "vox-mcp's test collector", Version: "test"}
	cmd := otelcol.NewCommand(otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	})
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// factories are the components the configuration may name.
func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: telemetryFactory()}, nil
}

// telemetryFactory is the service's own telemetry: its log on stderr, at
// info, for the test's failure messages, and no metrics or traces of its
// own — so parallel Collectors do not all claim the metrics port :8888.
// The standard factory (otelconftelemetry) would do the same through a
// service::telemetry section, but it links cloud resource detectors and
// a Kubernetes client: a quarter more binary and build time for nothing
// a test needs.
func telemetryFactory() telemetry.Factory {
	return telemetry.NewFactory(
		func() component.Config { return &struct{}{} },
		telemetry.WithCreateLogger(func(_ context.Context, set telemetry.LoggerSettings, _ component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			cfg := zap.NewProductionConfig()
			cfg.Encoding, cfg.Sampling = "console", nil
			cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
			logger, err := set.BuildZapLogger(cfg)
			if err != nil {
				return nil, nil, err
			}
			return logger, func(context.Context) error { _ = logger.Sync(); return nil }, nil
		}),
	)
}
