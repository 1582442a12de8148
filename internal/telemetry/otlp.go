package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The OTLP/HTTP client of both signals (docs/metrics.md §1): the
// endpoint, headers, timeout and compression of a signal as
// OpenTelemetry's exporter specification reads them from the
// environment, and one POST of a JSON-encoded export request.

// Signals, the path of their default endpoint and their part of the
// variable names.
const (
	signalMetrics = "METRICS"
	signalTraces  = "TRACES"
)

// otlpEnabled reports whether the environment asks for OTLP export of
// signal: an endpoint is set (the signal's or the general one), the SDK
// is not disabled and OTEL_<signal>_EXPORTER is not none.
func otlpEnabled(getenv func(string) string, signal string) bool {
	if getenv == nil {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv("OTEL_"+signal+"_EXPORTER")), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != ""
}

// otlpClient posts export requests of one signal.
type otlpClient struct {
	url      string
	headers  http.Header
	timeout  time.Duration
	gzip     bool
	http     *http.Client
	protocol string // OTEL_EXPORTER_OTLP_PROTOCOL as set, for the warning
}

// newOTLPClient reads the configuration of signal: the signal's variable
// wins over the general one; the general endpoint gets /v1/metrics or
// /v1/traces appended, the signal's is used as it is.
func newOTLPClient(getenv func(string) string, signal string) (*otlpClient, error) {
	get := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + signal + "_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	c := &otlpClient{headers: http.Header{}, timeout: 10 * time.Second, protocol: get("PROTOCOL")}
	if u := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT")); u != "" {
		c.url = u
	} else {
		c.url = strings.TrimSuffix(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), "/") + "/v1/" + strings.ToLower(signal)
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP %s endpoint %q: want an http:// or https:// URL, for example http://localhost:4318 in OTEL_EXPORTER_OTLP_ENDPOINT", strings.ToLower(signal), c.url)
	}
	if h := get("HEADERS"); h != "" {
		for _, kv := range strings.Split(h, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %q is not key=value; write key1=value1,key2=value2 (values URL-encoded)", kv)
			}
			if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = dv
			}
			c.headers.Add(k, strings.TrimSpace(v))
		}
	}
	if t := get("TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want a positive number of milliseconds, such as 10000", t)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch comp := get("COMPRESSION"); comp {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", comp)
	}
	c.http = &http.Client{Timeout: c.timeout}
	return c, nil
}

// jsonOnly says, when OTEL_EXPORTER_OTLP_PROTOCOL asks for another
// protocol, that this exporter sends http/json regardless ("" when not).
func (c *otlpClient) jsonOnly() string {
	if c.protocol == "" || c.protocol == "http/json" {
		return ""
	}
	return "OTEL_EXPORTER_OTLP_PROTOCOL=" + c.protocol + ": vox-mcp exports OTLP/HTTP in its JSON encoding (http/json) only, which OTLP receivers accept on the same port"
}

// post sends one export request body. A 2xx answer is success; anything
// else is an error naming the status and the start of the answer (the
// export is not retried: the next one carries cumulative metrics, and a
// lost batch of spans is logged).
func (c *otlpClient) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var r io.Reader = bytes.NewReader(body)
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		r = &buf
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, r)
	if err != nil {
		return fmt.Errorf("OTLP export to %s: %w", c.url, err)
	}
	for k, vs := range c.headers {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("OTLP export to %s: %w; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector runs", c.url, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("OTLP export to %s: %s: %s", c.url, resp.Status, bytes.TrimSpace(answer))
	}
	return nil
}

// errShutdown is what an exporter answers after Shutdown.
var errShutdown = errors.New("OTLP exporter: shut down")
