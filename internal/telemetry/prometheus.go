package telemetry

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The Prometheus endpoint: a manual reader of the meter provider whose
// collection is written in Prometheus' text exposition format 0.0.4 at
// each scrape. It is written here rather than with OpenTelemetry's
// Prometheus exporter because that one links the Prometheus client
// library and protobuf: 3.7 MB more binary and 2.7 MiB more RSS at every
// start, metrics on or off (docs/metrics.md §3). The names are those the
// OpenTelemetry-to-Prometheus translation gives (dots as underscores,
// the unit as a suffix, _total on counters), target_info carries the
// resource, and each series carries otel_scope_name (docs/metrics.md §2).

// promHandler serves the scrape of reader.
func promHandler(reader *sdkmetric.ManualReader, log func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(r.Context(), &rm); err != nil {
			log(err)
			http.Error(w, "collecting the metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		bw := bufio.NewWriter(w)
		writeProm(bw, &rm)
		_ = bw.Flush()
	})
}

// promUnit is the name suffix of a unit the instruments use
// (OpenTelemetry's Prometheus compatibility specification); a unit in
// braces is an annotation and gives none. A switch, not a map: the
// package initialises nothing (docs/metrics.md §3).
func promUnit(unit string) (string, bool) {
	switch unit {
	case "s":
		return "seconds", true
	case "ms":
		return "milliseconds", true
	case "By":
		return "bytes", true
	}
	return "", false
}

// promName is a metric's Prometheus name.
func promName(name, unit string, counter bool) string {
	n := promSanitize(name)
	if suffix, ok := promUnit(unit); ok && !strings.HasSuffix(n, "_"+suffix) {
		n += "_" + suffix
	}
	if counter && !strings.HasSuffix(n, "_total") {
		n += "_total"
	}
	return n
}

// promSanitize turns every character a legacy Prometheus name does not
// allow into an underscore, and a leading digit gets one before it.
func promSanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == ':':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// promLabels formats a label set, with the extra pairs after it.
func promLabels(attrs []attribute.KeyValue, extra ...string) string {
	type pair struct{ k, v string }
	pairs := make([]pair, 0, len(attrs)+len(extra)/2)
	for _, kv := range attrs {
		pairs = append(pairs, pair{promSanitize(string(kv.Key)), kv.Value.String()})
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k < pairs[j].k })
	for i := 0; i+1 < len(extra); i += 2 {
		pairs = append(pairs, pair{extra[i], extra[i+1]})
	}
	if len(pairs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.k)
		b.WriteString(`="`)
		b.WriteString(promEscape(p.v, true))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// promEscape escapes a label value (quote too) or a HELP text.
func promEscape(s string, quote bool) string {
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '"' && quote:
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func promFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// writeProm writes rm in the text format: target_info first, then each
// metric as one family.
func writeProm(w io.Writer, rm *metricdata.ResourceMetrics) {
	writeTargetInfo(w, rm.Resource)
	for _, sm := range rm.ScopeMetrics {
		scope := []string{"otel_scope_name", sm.Scope.Name, "otel_scope_version", sm.Scope.Version}
		for _, m := range sm.Metrics {
			writeMetric(w, m, scope)
		}
	}
}

func writeTargetInfo(w io.Writer, res *resource.Resource) {
	if res == nil || res.Len() == 0 {
		return
	}
	fmt.Fprint(w, "# HELP target_info Target metadata\n# TYPE target_info gauge\n")
	fmt.Fprintf(w, "target_info%s 1\n", promLabels(res.Attributes()))
}

func writeMetric(w io.Writer, m metricdata.Metrics, scope []string) {
	header := func(name, kind string) {
		if m.Description != "" {
			fmt.Fprintf(w, "# HELP %s %s\n", name, promEscape(m.Description, false))
		}
		fmt.Fprintf(w, "# TYPE %s %s\n", name, kind)
	}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		writeNumbers(w, header, m, d.DataPoints, d.IsMonotonic, scope)
	case metricdata.Sum[float64]:
		writeNumbers(w, header, m, d.DataPoints, d.IsMonotonic, scope)
	case metricdata.Gauge[int64]:
		writeNumbers(w, header, m, d.DataPoints, false, scope)
	case metricdata.Gauge[float64]:
		writeNumbers(w, header, m, d.DataPoints, false, scope)
	case metricdata.Histogram[int64]:
		writeHistogram(w, header, m, d.DataPoints, scope)
	case metricdata.Histogram[float64]:
		writeHistogram(w, header, m, d.DataPoints, scope)
	}
}

func writeNumbers[N int64 | float64](w io.Writer, header func(string, string), m metricdata.Metrics, dps []metricdata.DataPoint[N], counter bool, scope []string) {
	if len(dps) == 0 {
		return
	}
	name := promName(m.Name, m.Unit, counter)
	kind := "gauge"
	if counter {
		kind = "counter"
	}
	header(name, kind)
	for _, dp := range dps {
		fmt.Fprintf(w, "%s%s %s\n", name, promLabels(dp.Attributes.ToSlice(), scope...), promFloat(float64(dp.Value)))
	}
}

func writeHistogram[N int64 | float64](w io.Writer, header func(string, string), m metricdata.Metrics, dps []metricdata.HistogramDataPoint[N], scope []string) {
	if len(dps) == 0 {
		return
	}
	name := promName(m.Name, m.Unit, false)
	header(name, "histogram")
	for _, dp := range dps {
		attrs := dp.Attributes.ToSlice()
		var cum uint64
		for i, bound := range dp.Bounds {
			if i < len(dp.BucketCounts) {
				cum += dp.BucketCounts[i]
			}
			fmt.Fprintf(w, "%s_bucket%s %d\n", name, promLabels(attrs, append(scope[:len(scope):len(scope)], "le", promFloat(bound))...), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", name, promLabels(attrs, append(scope[:len(scope):len(scope)], "le", "+Inf")...), dp.Count)
		labels := promLabels(attrs, scope...)
		fmt.Fprintf(w, "%s_sum%s %s\n", name, labels, promFloat(float64(dp.Sum)))
		fmt.Fprintf(w, "%s_count%s %d\n", name, labels, dp.Count)
	}
}

// collectLogger adapts the provider's logger for promHandler.
func (m *Metrics) collectLogger() func(error) {
	return func(err error) { m.log.Warn("metrics: collecting for a scrape", "err", err) }
}
