package peers

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
)

// otelSink is the OTLP/HTTP receiver the telemetry-on vox-mcp exports to
// (docs/benchmarks.md, "Telemetry on and off"): an in-process server that
// answers 200 to POST /v1/traces and /v1/metrics and counts what it got,
// so vox-mcp's export work is real while the receiver does next to
// nothing. It reads OTLP's JSON encoding, which vox-mcp sends
// (docs/metrics.md §1), no further than a byte search for the spans.
type otelSink struct {
	srv *http.Server
	url string

	mu  sync.Mutex
	rec TelemetrySink
}

// TelemetrySink is what the sink received over a run.
type TelemetrySink struct {
	TraceExports  int   `json:"trace_exports"`
	TraceBytes    int64 `json:"trace_bytes"` // as sent, compressed or not
	Spans         int   `json:"spans"`
	MetricExports int   `json:"metric_exports"`
	MetricBytes   int64 `json:"metric_bytes"`
	// Refused counts requests to any other path or method, and bodies
	// that did not decode; vox-mcp should send none.
	Refused int `json:"refused"`
	// SpanNames are the distinct span names seen, at most maxSpanNames.
	SpanNames []string `json:"span_names"`
}

// maxSpanNames bounds TelemetrySink.SpanNames: the names are a method and
// a tool (docs/metrics.md §4), few in this benchmark, but a sink should
// not grow without bound.
const maxSpanNames = 32

// startOTelSink listens on a free loopback port.
func startOTelSink() (*otelSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &otelSink{url: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", s.traces)
	mux.HandleFunc("POST /v1/metrics", s.metrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.rec.Refused++
		s.mu.Unlock()
		http.NotFound(w, r)
	})
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// otlpOK is OTLP/HTTP's success answer in the JSON encoding: an empty
// Export*ServiceResponse (no partial success).
func otlpOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// readBody reads a request's body, decompressed when the exporter gzips it
// (OTEL_EXPORTER_OTLP_COMPRESSION=gzip through -vox-env), and the bytes
// that came over the wire.
func readBody(r *http.Request) ([]byte, int64, error) {
	wire := &countingReader{r: r.Body}
	var in io.Reader = wire
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(wire)
		if err != nil {
			return nil, wire.n, err
		}
		in = zr
	}
	b, err := io.ReadAll(in)
	return b, wire.n, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (s *otelSink) traces(w http.ResponseWriter, r *http.Request) {
	body, wire, err := readBody(r)
	if err == nil && !bytes.HasPrefix(bytes.TrimSpace(body), []byte(`{"resourceSpans"`)) {
		err = errors.New(`the body does not begin {"resourceSpans"`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.rec.Refused++
		http.Error(w, "bench-peers sink: not an OTLP JSON trace export: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.rec.TraceExports++
	s.rec.TraceBytes += wire
	s.rec.SpanNames = scanSpans(body, &s.rec.Spans, s.rec.SpanNames)
	otlpOK(w)
}

var (
	spanIDKey = []byte(`"spanId":"`)
	nameKey   = []byte(`"name":"`)
)

// scanSpans counts the spans of an OTLP JSON trace export into *n and
// adds their names to names, without decoding it: a full decode of every
// batch would put measurable CPU on the machine the client and the
// measured server share, while a byte search costs next to nothing. Each
// span of vox-mcp's encoder is an object whose keys come in its struct's
// order (internal/telemetry/exporters.go: traceId, spanId, …, name, …),
// so every "spanId" key opens a span and the next "name" key is its name
// (kept as the JSON spells it, escapes and all).
// vox-mcp's spans carry no links, whose "spanId" would count twice; the
// names TestQuickRun wants hold the scan to the encoder.
func scanSpans(body []byte, n *int, names []string) []string {
	for {
		i := bytes.Index(body, spanIDKey)
		if i < 0 {
			return names
		}
		*n++
		body = body[i+len(spanIDKey):]
		j := bytes.Index(body, nameKey)
		if j < 0 {
			return names
		}
		name := body[j+len(nameKey):]
		end := bytes.IndexByte(name, '"')
		if end < 0 {
			return names
		}
		name = name[:end]
		if len(names) < maxSpanNames && !slices.ContainsFunc(names, func(s string) bool { return s == string(name) }) {
			names = append(names, string(name))
		}
		body = body[j:]
	}
}

func (s *otelSink) metrics(w http.ResponseWriter, r *http.Request) {
	_, n, err := readBody(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.rec.Refused++
		http.Error(w, "bench-peers sink: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.rec.MetricExports++
	s.rec.MetricBytes += n
	otlpOK(w)
}

// close stops the sink and returns what it received.
func (s *otelSink) close() TelemetrySink {
	_ = s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.rec
	rec.SpanNames = slices.Clone(rec.SpanNames)
	slices.Sort(rec.SpanNames)
	return rec
}
