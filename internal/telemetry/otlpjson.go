package telemetry

import (
	"math"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// OTLP's JSON encoding (the OTLP specification, "JSON Protobuf
// Encoding"): the protobuf messages with lowerCamelCase field names,
// 64-bit integers as decimal strings, enums as numbers, trace and span
// ids as hex. These types hold the part of the export requests vox-mcp
// sends.

type jsonResource struct {
	Attributes []jsonKeyValue `json:"attributes"`
}

type jsonScope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type jsonKeyValue struct {
	Key   string    `json:"key"`
	Value jsonValue `json:"value"`
}

// jsonValue is an AnyValue: exactly one field is set.
type jsonValue struct {
	String *string    `json:"stringValue,omitempty"`
	Bool   *bool      `json:"boolValue,omitempty"`
	Int    *string    `json:"intValue,omitempty"`
	Double *float64   `json:"doubleValue,omitempty"`
	Array  *jsonArray `json:"arrayValue,omitempty"`
}

type jsonArray struct {
	Values []jsonValue `json:"values"`
}

func jsonAttrs(kvs []attribute.KeyValue) []jsonKeyValue {
	out := make([]jsonKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, jsonKeyValue{Key: string(kv.Key), Value: jsonAttrValue(kv.Value)})
	}
	return out
}

func jsonAttrValue(v attribute.Value) jsonValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return jsonValue{Bool: &b}
	case attribute.INT64:
		s := strconv.FormatInt(v.AsInt64(), 10)
		return jsonValue{Int: &s}
	case attribute.FLOAT64:
		f := finite(v.AsFloat64())
		return jsonValue{Double: &f}
	case attribute.BOOLSLICE:
		return jsonArrayOf(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return jsonArrayOf(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return jsonArrayOf(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return jsonArrayOf(v.AsStringSlice(), attribute.StringValue)
	}
	s := v.String()
	return jsonValue{String: &s}
}

// jsonArrayOf is the arrayValue of a slice attribute, each element as
// value makes it an attribute value.
func jsonArrayOf[T any](xs []T, value func(T) attribute.Value) jsonValue {
	var a jsonArray
	for _, x := range xs {
		a.Values = append(a.Values, jsonAttrValue(value(x)))
	}
	return jsonValue{Array: &a}
}

// finite maps NaN and the infinities, which JSON cannot carry, to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func jsonRes(r *resource.Resource) jsonResource {
	if r == nil {
		return jsonResource{Attributes: []jsonKeyValue{}}
	}
	return jsonResource{Attributes: jsonAttrs(r.Attributes())}
}

func jsonScopeOf(s instrumentation.Scope) jsonScope {
	return jsonScope{Name: s.Name, Version: s.Version}
}

// nanos is a time as OTLP's fixed64 nanoseconds, a decimal string.
func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

// The metrics: ExportMetricsServiceRequest.

type jsonMetricsRequest struct {
	ResourceMetrics []jsonResourceMetrics `json:"resourceMetrics"`
}

type jsonResourceMetrics struct {
	Resource     jsonResource       `json:"resource"`
	ScopeMetrics []jsonScopeMetrics `json:"scopeMetrics"`
	SchemaURL    string             `json:"schemaUrl,omitempty"`
}

type jsonScopeMetrics struct {
	Scope   jsonScope    `json:"scope"`
	Metrics []jsonMetric `json:"metrics"`
}

type jsonMetric struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Unit        string         `json:"unit,omitempty"`
	Sum         *jsonSum       `json:"sum,omitempty"`
	Gauge       *jsonGauge     `json:"gauge,omitempty"`
	Histogram   *jsonHistogram `json:"histogram,omitempty"`
}

type jsonSum struct {
	DataPoints             []jsonNumberPoint `json:"dataPoints"`
	AggregationTemporality int               `json:"aggregationTemporality"`
	IsMonotonic            bool              `json:"isMonotonic"`
}

type jsonGauge struct {
	DataPoints []jsonNumberPoint `json:"dataPoints"`
}

type jsonNumberPoint struct {
	Attributes        []jsonKeyValue `json:"attributes"`
	StartTimeUnixNano string         `json:"startTimeUnixNano,omitempty"`
	TimeUnixNano      string         `json:"timeUnixNano"`
	AsInt             *string        `json:"asInt,omitempty"`
	AsDouble          *float64       `json:"asDouble,omitempty"`
}

type jsonHistogram struct {
	DataPoints             []jsonHistogramPoint `json:"dataPoints"`
	AggregationTemporality int                  `json:"aggregationTemporality"`
}

type jsonHistogramPoint struct {
	Attributes        []jsonKeyValue `json:"attributes"`
	StartTimeUnixNano string         `json:"startTimeUnixNano"`
	TimeUnixNano      string         `json:"timeUnixNano"`
	Count             string         `json:"count"`
	Sum               *float64       `json:"sum,omitempty"`
	BucketCounts      []string       `json:"bucketCounts"`
	ExplicitBounds    []float64      `json:"explicitBounds"`
	Min               *float64       `json:"min,omitempty"`
	Max               *float64       `json:"max,omitempty"`
}

// temporality is OTLP's AggregationTemporality enum.
func temporality(t metricdata.Temporality) int {
	if t == metricdata.DeltaTemporality {
		return 1
	}
	return 2 // cumulative, the SDK's default
}

// metricsRequest encodes what a reader collected. Aggregations vox-mcp
// does not use (exponential histograms, summaries) are left out.
func metricsRequest(rm *metricdata.ResourceMetrics) jsonMetricsRequest {
	out := jsonResourceMetrics{Resource: jsonRes(rm.Resource), ScopeMetrics: []jsonScopeMetrics{}}
	if rm.Resource != nil {
		out.SchemaURL = rm.Resource.SchemaURL()
	}
	for _, sm := range rm.ScopeMetrics {
		js := jsonScopeMetrics{Scope: jsonScopeOf(sm.Scope), Metrics: []jsonMetric{}}
		for _, m := range sm.Metrics {
			jm := jsonMetric{Name: m.Name, Description: m.Description, Unit: m.Unit}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				jm.Sum = &jsonSum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}
			case metricdata.Sum[float64]:
				jm.Sum = &jsonSum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}
			case metricdata.Gauge[int64]:
				jm.Gauge = &jsonGauge{DataPoints: numberPoints(d.DataPoints)}
			case metricdata.Gauge[float64]:
				jm.Gauge = &jsonGauge{DataPoints: numberPoints(d.DataPoints)}
			case metricdata.Histogram[int64]:
				jm.Histogram = &jsonHistogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}
			case metricdata.Histogram[float64]:
				jm.Histogram = &jsonHistogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}
			default:
				continue
			}
			js.Metrics = append(js.Metrics, jm)
		}
		out.ScopeMetrics = append(out.ScopeMetrics, js)
	}
	return jsonMetricsRequest{ResourceMetrics: []jsonResourceMetrics{out}}
}

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N]) []jsonNumberPoint {
	out := make([]jsonNumberPoint, 0, len(dps))
	for _, dp := range dps {
		p := jsonNumberPoint{Attributes: jsonAttrs(dp.Attributes.ToSlice()), TimeUnixNano: nanos(dp.Time)}
		if !dp.StartTime.IsZero() {
			p.StartTimeUnixNano = nanos(dp.StartTime)
		}
		switch v := any(dp.Value).(type) {
		case int64:
			s := strconv.FormatInt(v, 10)
			p.AsInt = &s
		case float64:
			f := finite(v)
			p.AsDouble = &f
		}
		out = append(out, p)
	}
	return out
}

func histogramPoints[N int64 | float64](dps []metricdata.HistogramDataPoint[N]) []jsonHistogramPoint {
	out := make([]jsonHistogramPoint, 0, len(dps))
	for _, dp := range dps {
		sum := finite(float64(dp.Sum))
		p := jsonHistogramPoint{
			Attributes:        jsonAttrs(dp.Attributes.ToSlice()),
			StartTimeUnixNano: nanos(dp.StartTime),
			TimeUnixNano:      nanos(dp.Time),
			Count:             strconv.FormatUint(dp.Count, 10),
			Sum:               &sum,
			BucketCounts:      make([]string, len(dp.BucketCounts)),
			ExplicitBounds:    dp.Bounds,
		}
		for i, c := range dp.BucketCounts {
			p.BucketCounts[i] = strconv.FormatUint(c, 10)
		}
		if v, ok := dp.Min.Value(); ok {
			f := finite(float64(v))
			p.Min = &f
		}
		if v, ok := dp.Max.Value(); ok {
			f := finite(float64(v))
			p.Max = &f
		}
		if p.ExplicitBounds == nil {
			p.ExplicitBounds = []float64{}
		}
		out = append(out, p)
	}
	return out
}
