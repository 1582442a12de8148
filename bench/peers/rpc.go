package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// protocolVersion is the MCP version every server is asked for: the newest
// that vox-mcp, mcp-go, the Go SDK and the TypeScript SDK all speak with
// the initialize handshake and sessions.
const protocolVersion = "2025-11-25"

// message is one JSON-RPC message from a server: a response (ID with
// Result or Error), a notification (Method) or a request (ID and Method).
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// requestLine is one JSON-RPC request, without the line feed.
func requestLine(id int, method string, params json.RawMessage) []byte {
	b := make([]byte, 0, 96+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, '"')
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

var (
	initializeParams  = json.RawMessage(`{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"vox-bench-peers","version":"1"}}`)
	initializedNotice = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
)

// callParams are the params of a tools/call.
func callParams(name string, args json.RawMessage) json.RawMessage {
	b := make([]byte, 0, 32+len(name)+len(args))
	b = append(b, `{"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	return append(b, '}')
}

// callResult is the part of a tools/call result the benchmark checks.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// text is the text of the result's single text content.
func (r callResult) text() string {
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return fmt.Sprintf("<%d contents>", len(r.Content))
	}
	return r.Content[0].Text
}

// listResult is one page of a tools/list result.
type listResult struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	NextCursor string `json:"nextCursor"`
}

// conn is a client connection to one server: a session over stdio or
// streamable HTTP. roundTrip sends one request and returns its response,
// the response's size on the wire and when the response was complete.
type conn interface {
	roundTrip(method string, params json.RawMessage) (m message, size int, done time.Time, err error)
}

// stdioConn speaks newline-delimited JSON-RPC with a server process on its
// stdin and stdout. It reads synchronously — request out, lines in until
// the answer — so no goroutine hand-off sits in the measured path.
type stdioConn struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	nextID int
	waited chan error
	// listChanged is set when a notifications/tools/list_changed arrived.
	listChanged bool
}

// startStdio starts cmd with pipes on its standard streams.
func startStdio(cmd *exec.Cmd) (*stdioConn, error) {
	c := &stdioConn{cmd: cmd, stderr: &tailBuffer{}}
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 64<<10)
	c.waited = make(chan error, 1)
	go func() { c.waited <- cmd.Wait() }()
	return c, nil
}

// send writes one message line.
func (c *stdioConn) send(line []byte) error {
	_, err := c.in.Write(append(line, '\n'))
	return err
}

func (c *stdioConn) roundTrip(method string, params json.RawMessage) (message, int, time.Time, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	if err := c.send(requestLine(c.nextID, method, params)); err != nil {
		return message{}, 0, time.Time{}, c.failure(err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		done := time.Now()
		if err != nil {
			return message{}, 0, done, c.failure(err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return message{}, 0, done, fmt.Errorf("not a JSON-RPC message on stdout: %v: %.200q", err, line)
		}
		switch {
		case m.Method == "" && string(m.ID) == id:
			if m.Error != nil {
				return m, len(line), done, m.Error
			}
			return m, len(line), done, nil
		case m.Method == "notifications/tools/list_changed":
			c.listChanged = true
		case m.Method != "" && m.ID != nil:
			// A request of the server's (ping, roots/list): this client
			// offers nothing but an answer, so the server does not wait.
			reply := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"the benchmark client offers no %s"}}`, m.ID, m.Method)
			if err := c.send(reply); err != nil {
				return message{}, 0, done, c.failure(err)
			}
		}
	}
}

// failure adds what the server printed to an I/O error.
func (c *stdioConn) failure(err error) error {
	select {
	case werr := <-c.waited:
		c.waited <- werr
		return fmt.Errorf("%v (the server exited: %v)\n%s", err, werr, c.stderr)
	case <-time.After(200 * time.Millisecond):
	}
	return fmt.Errorf("%v\n%s", err, c.stderr)
}

// stop closes the server's stdin and waits for it to exit, killing it
// after a grace period.
func (c *stdioConn) stop() {
	c.in.Close()
	select {
	case <-c.waited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.waited
	}
}

// initialize runs the initialize handshake.
func initialize(c conn) error {
	if _, _, _, err := c.roundTrip("initialize", initializeParams); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	switch c := c.(type) {
	case *stdioConn:
		return c.send(initializedNotice)
	case *httpConn:
		return c.notify(initializedNotice)
	}
	return nil
}

// httpConn is one MCP session over streamable HTTP, on a connection of
// its own (as an independent client would have).
type httpConn struct {
	url     string
	client  *http.Client
	session string
	nextID  int
}

// newHTTPConn opens a session with the server at url: initialize, then
// notifications/initialized.
func newHTTPConn(url string) (*httpConn, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true, ForceAttemptHTTP2: false}
	c := &httpConn{url: url, client: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
	if err := initialize(c); err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	return c, nil
}

// close ends the session (DELETE, as a polite client does) and the
// connection.
func (c *httpConn) close() {
	if req, err := http.NewRequest(http.MethodDelete, c.url, nil); err == nil && c.session != "" {
		c.headers(req)
		if resp, err := c.client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	c.client.CloseIdleConnections()
}

func (c *httpConn) headers(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	}
}

// post sends one message and reads the whole answer.
func (c *httpConn) post(body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	c.headers(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// notify posts a notification, which the server accepts with 202.
func (c *httpConn) notify(line []byte) error {
	resp, body, err := c.post(line)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("notification answered %s: %.200s", resp.Status, body)
	}
	return nil
}

func (c *httpConn) roundTrip(method string, params json.RawMessage) (message, int, time.Time, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	resp, body, err := c.post(requestLine(c.nextID, method, params))
	done := time.Now()
	if err != nil {
		return message{}, 0, done, err
	}
	if resp.StatusCode != http.StatusOK {
		return message{}, 0, done, fmt.Errorf("%s answered %s: %.300s", method, resp.Status, body)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && c.session == "" {
		c.session = sid
	}
	payloads := [][]byte{body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		payloads = sseData(body)
	}
	for _, p := range payloads {
		var m message
		if err := json.Unmarshal(p, &m); err != nil {
			return message{}, 0, done, fmt.Errorf("%s: not a JSON-RPC message: %v: %.200q", method, err, p)
		}
		if m.Method == "" && string(m.ID) == id {
			if m.Error != nil {
				return m, len(p), done, m.Error
			}
			return m, len(p), done, nil
		}
	}
	return message{}, 0, done, fmt.Errorf("%s: no response with id %s in %.300q", method, id, body)
}

// sseData is the data of each event of a text/event-stream body.
func sseData(body []byte) [][]byte {
	var out [][]byte
	var data []byte
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if data != nil {
				out = append(out, data)
				data = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
	if data != nil {
		out = append(out, data)
	}
	return out
}

// listTools lists every tool, following pages, and returns their names
// and the bytes of all the responses.
func listTools(c conn) (names []string, size int, done time.Time, err error) {
	cursor := ""
	for {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params = fmt.Appendf(nil, `{"cursor":%q}`, cursor)
		}
		m, n, at, err := c.roundTrip("tools/list", params)
		if err != nil {
			return nil, 0, at, err
		}
		size += n
		done = at
		var page listResult
		if err := json.Unmarshal(m.Result, &page); err != nil {
			return nil, 0, at, fmt.Errorf("tools/list result: %v", err)
		}
		for _, t := range page.Tools {
			names = append(names, t.Name)
		}
		if page.NextCursor == "" {
			return names, size, done, nil
		}
		cursor = page.NextCursor
	}
}

// errNotListed says that a tools/list lacks tools the server must serve.
var errNotListed = errors.New("tools/list lacks tools the server serves")

// tailBuffer keeps the last 8 KiB written to it: a server's stderr, shown
// when the server fails.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - 8<<10; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
