package otelcoltest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Span is a span as the Collector received it. IDs are lower-case hex,
// as OTLP JSON writes them; ParentSpanID is empty for a root span.
type Span struct {
	Name                          string
	Kind                          int // OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer
	TraceID, SpanID, ParentSpanID string
	Attributes                    map[string]any
	Events                        []Event
	StatusCode                    int // 0 unset, 1 ok, 2 error
	StatusMessage                 string
	Start, End                    time.Time
	Resource                      map[string]any // the resource's attributes (service.name, …)
	Scope                         string         // the instrumentation scope's name
}

// Event is a span event (an exception recorded on a span is one).
type Event struct {
	Name       string
	Attributes map[string]any
}

// Metric is one metric of one export as the Collector received it: a
// cumulative metric exported twice appears twice, the later one last.
type Metric struct {
	Name, Unit, Description string
	Type                    string // gauge, sum, histogram, exponentialHistogram or summary
	Points                  []Point
	Resource                map[string]any
	Scope                   string
}

// Point is a data point. Value is a gauge's or sum's value (asInt or
// asDouble); Count and Sum are a histogram's or summary's.
type Point struct {
	Attributes map[string]any
	Value      float64
	Count      uint64
	Sum        float64
}

// Log is a log record as the Collector received it; Body is a string
// body, or the JSON of any other.
type Log struct {
	Body            string
	SeverityText    string
	SeverityNumber  int
	TraceID, SpanID string
	Attributes      map[string]any
	Resource        map[string]any
	Scope           string
}

// Attribute values decode to string, int64, float64, bool, []byte,
// []any or map[string]any, as the OTLP AnyValue held them.

// Spans returns every span received so far, in the order received.
func (c *Collector) Spans() []Span {
	c.t.Helper()
	spans, _, _ := c.read()
	return spans
}

// Metrics returns every metric received so far, in the order received.
func (c *Collector) Metrics() []Metric {
	c.t.Helper()
	_, metrics, _ := c.read()
	return metrics
}

// Logs returns every log record received so far, in the order received.
func (c *Collector) Logs() []Log {
	c.t.Helper()
	_, _, logs := c.read()
	return logs
}

// WaitSpans polls until done holds of the spans received so far and
// returns them; it fails the test, listing them, after WaitTimeout.
func (c *Collector) WaitSpans(done func([]Span) bool) []Span {
	c.t.Helper()
	return wait(c, "spans", c.Spans, done)
}

// WaitMetrics polls until done holds of the metrics received so far.
func (c *Collector) WaitMetrics(done func([]Metric) bool) []Metric {
	c.t.Helper()
	return wait(c, "metrics", c.Metrics, done)
}

// WaitLogs polls until done holds of the log records received so far.
func (c *Collector) WaitLogs(done func([]Log) bool) []Log {
	c.t.Helper()
	return wait(c, "log records", c.Logs, done)
}

func wait[T any](c *Collector, what string, get func() []T, done func([]T) bool) []T {
	c.t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for {
		got := get()
		if done(got) {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("otelcoltest: the %s received in %s are not what the test waits for:\n%s\nthe Collector's log:\n%s", what, WaitTimeout, dump(got), c.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func dump[T any](v []T) string {
	if len(v) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, x := range v {
		fmt.Fprintf(&b, "  %+v\n", x)
	}
	return b.String()
}

// Names lists the spans' names, for messages and simple checks.
func Names(spans []Span) []string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	return names
}

// FindSpan returns the first span named name.
func FindSpan(spans []Span, name string) (Span, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return Span{}, false
}

// FindMetric returns the last metric named name (for a cumulative
// metric, the latest total).
func FindMetric(metrics []Metric, name string) (Metric, bool) {
	for i := len(metrics) - 1; i >= 0; i-- {
		if metrics[i].Name == name {
			return metrics[i], true
		}
	}
	return Metric{}, false
}

// The OTLP JSON the file exporter writes (the OTLP specification's JSON
// encoding: lowerCamelCase names, hex trace and span ids, 64-bit integers
// as strings), decoded only as far as the types above need.
type (
	line struct {
		ResourceSpans []struct {
			Resource   resource `json:"resource"`
			ScopeSpans []struct {
				Scope scope    `json:"scope"`
				Spans []jsSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
		ResourceMetrics []struct {
			Resource     resource `json:"resource"`
			ScopeMetrics []struct {
				Scope   scope      `json:"scope"`
				Metrics []jsMetric `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
		ResourceLogs []struct {
			Resource  resource `json:"resource"`
			ScopeLogs []struct {
				Scope      scope   `json:"scope"`
				LogRecords []jsLog `json:"logRecords"`
			} `json:"scopeLogs"`
		} `json:"resourceLogs"`
	}
	resource struct {
		Attributes []keyValue `json:"attributes"`
	}
	scope struct {
		Name string `json:"name"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		StringValue *string         `json:"stringValue"`
		BoolValue   *bool           `json:"boolValue"`
		IntValue    json.RawMessage `json:"intValue"`
		DoubleValue json.RawMessage `json:"doubleValue"`
		BytesValue  *string         `json:"bytesValue"`
		ArrayValue  *struct {
			Values []anyValue `json:"values"`
		} `json:"arrayValue"`
		KvlistValue *struct {
			Values []keyValue `json:"values"`
		} `json:"kvlistValue"`
	}
	jsSpan struct {
		TraceID           string          `json:"traceId"`
		SpanID            string          `json:"spanId"`
		ParentSpanID      string          `json:"parentSpanId"`
		Name              string          `json:"name"`
		Kind              int             `json:"kind"`
		StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
		EndTimeUnixNano   json.RawMessage `json:"endTimeUnixNano"`
		Attributes        []keyValue      `json:"attributes"`
		Events            []struct {
			Name       string     `json:"name"`
			Attributes []keyValue `json:"attributes"`
		} `json:"events"`
		Status struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	}
	jsMetric struct {
		Name                 string    `json:"name"`
		Unit                 string    `json:"unit"`
		Description          string    `json:"description"`
		Gauge                *jsPoints `json:"gauge"`
		Sum                  *jsPoints `json:"sum"`
		Histogram            *jsPoints `json:"histogram"`
		ExponentialHistogram *jsPoints `json:"exponentialHistogram"`
		Summary              *jsPoints `json:"summary"`
	}
	jsPoints struct {
		DataPoints []struct {
			Attributes []keyValue      `json:"attributes"`
			AsInt      json.RawMessage `json:"asInt"`
			AsDouble   json.RawMessage `json:"asDouble"`
			Count      json.RawMessage `json:"count"`
			Sum        json.RawMessage `json:"sum"`
		} `json:"dataPoints"`
	}
	jsLog struct {
		SeverityNumber int        `json:"severityNumber"`
		SeverityText   string     `json:"severityText"`
		Body           anyValue   `json:"body"`
		Attributes     []keyValue `json:"attributes"`
		TraceID        string     `json:"traceId"`
		SpanID         string     `json:"spanId"`
	}
)

// read decodes the whole file; a missing file is nothing received yet.
// A last line without its newline is a write in progress: it is left for
// the next read.
func (c *Collector) read() (spans []Span, metrics []Metric, logs []Log) {
	c.t.Helper()
	data, err := os.ReadFile(c.file)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		c.t.Fatalf("otelcoltest: %v", err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			c.t.Fatalf("otelcoltest: %s:%d: not OTLP JSON: %v", c.file, n, err)
		}
		s, m, g, err := l.decode()
		if err != nil {
			c.t.Fatalf("otelcoltest: %s:%d: %v", c.file, n, err)
		}
		spans, metrics, logs = append(spans, s...), append(metrics, m...), append(logs, g...)
	}
	if err := sc.Err(); err != nil {
		c.t.Fatalf("otelcoltest: %s: %v", c.file, err)
	}
	return spans, metrics, logs
}

func (l *line) decode() (spans []Span, metrics []Metric, logs []Log, err error) {
	for _, rs := range l.ResourceSpans {
		res, err := attrs(rs.Resource.Attributes)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, ss := range rs.ScopeSpans {
			for _, js := range ss.Spans {
				s := Span{Name: js.Name, Kind: js.Kind, TraceID: js.TraceID, SpanID: js.SpanID, ParentSpanID: js.ParentSpanID,
					StatusCode: js.Status.Code, StatusMessage: js.Status.Message, Resource: res, Scope: ss.Scope.Name}
				if s.Attributes, err = attrs(js.Attributes); err != nil {
					return nil, nil, nil, err
				}
				for _, je := range js.Events {
					a, err := attrs(je.Attributes)
					if err != nil {
						return nil, nil, nil, err
					}
					s.Events = append(s.Events, Event{Name: je.Name, Attributes: a})
				}
				if s.Start, err = unixNano(js.StartTimeUnixNano); err != nil {
					return nil, nil, nil, err
				}
				if s.End, err = unixNano(js.EndTimeUnixNano); err != nil {
					return nil, nil, nil, err
				}
				spans = append(spans, s)
			}
		}
	}
	for _, rm := range l.ResourceMetrics {
		res, err := attrs(rm.Resource.Attributes)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, sm := range rm.ScopeMetrics {
			for _, jm := range sm.Metrics {
				m := Metric{Name: jm.Name, Unit: jm.Unit, Description: jm.Description, Resource: res, Scope: sm.Scope.Name}
				var pts *jsPoints
				switch {
				case jm.Gauge != nil:
					m.Type, pts = "gauge", jm.Gauge
				case jm.Sum != nil:
					m.Type, pts = "sum", jm.Sum
				case jm.Histogram != nil:
					m.Type, pts = "histogram", jm.Histogram
				case jm.ExponentialHistogram != nil:
					m.Type, pts = "exponentialHistogram", jm.ExponentialHistogram
				case jm.Summary != nil:
					m.Type, pts = "summary", jm.Summary
				default:
					return nil, nil, nil, fmt.Errorf("metric %q has no data of a known type", jm.Name)
				}
				for _, jp := range pts.DataPoints {
					var p Point
					if p.Attributes, err = attrs(jp.Attributes); err != nil {
						return nil, nil, nil, err
					}
					for _, f := range []struct {
						raw json.RawMessage
						dst *float64
					}{{jp.AsInt, &p.Value}, {jp.AsDouble, &p.Value}, {jp.Sum, &p.Sum}} {
						if len(f.raw) > 0 {
							if *f.dst, err = number(f.raw); err != nil {
								return nil, nil, nil, fmt.Errorf("metric %q: %v", jm.Name, err)
							}
						}
					}
					if len(jp.Count) > 0 {
						n, err := number(jp.Count)
						if err != nil {
							return nil, nil, nil, fmt.Errorf("metric %q: %v", jm.Name, err)
						}
						p.Count = uint64(n)
					}
					m.Points = append(m.Points, p)
				}
				metrics = append(metrics, m)
			}
		}
	}
	for _, rl := range l.ResourceLogs {
		res, err := attrs(rl.Resource.Attributes)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, sl := range rl.ScopeLogs {
			for _, jl := range sl.LogRecords {
				g := Log{SeverityText: jl.SeverityText, SeverityNumber: jl.SeverityNumber, TraceID: jl.TraceID, SpanID: jl.SpanID, Resource: res, Scope: sl.Scope.Name}
				if g.Attributes, err = attrs(jl.Attributes); err != nil {
					return nil, nil, nil, err
				}
				body, err := jl.Body.value()
				if err != nil {
					return nil, nil, nil, err
				}
				if s, ok := body.(string); ok {
					g.Body = s
				} else if body != nil {
					b, _ := json.Marshal(body)
					g.Body = string(b)
				}
				logs = append(logs, g)
			}
		}
	}
	return spans, metrics, logs, nil
}

func attrs(kvs []keyValue) (map[string]any, error) {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.value()
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %v", kv.Key, err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

func (v anyValue) value() (any, error) {
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case len(v.IntValue) > 0:
		// A 64-bit integer is a JSON string in OTLP JSON; a number is
		// accepted too.
		s := strings.Trim(string(v.IntValue), `"`)
		return strconv.ParseInt(s, 10, 64)
	case len(v.DoubleValue) > 0:
		return number(v.DoubleValue)
	case v.BytesValue != nil:
		return base64.StdEncoding.DecodeString(*v.BytesValue)
	case v.ArrayValue != nil:
		out := make([]any, 0, len(v.ArrayValue.Values))
		for _, e := range v.ArrayValue.Values {
			x, err := e.value()
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case v.KvlistValue != nil:
		return attrs(v.KvlistValue.Values)
	}
	return nil, nil
}

// number decodes a JSON number, or a number in a string (64-bit integers,
// and NaN or Infinity).
func number(raw json.RawMessage) (float64, error) {
	return strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
}

func unixNano(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %s: %v", raw, err)
	}
	return time.Unix(0, n).UTC(), nil
}
