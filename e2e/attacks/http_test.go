package attacks

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// The HTTP commands of the attack suite (see the package comment).

// httpServers holds the server each script started with http-serve.
var httpServers sync.Map // *testscript.TestScript -> *httpServer

type httpServer struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
}

func (s *httpServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

func (s *httpServer) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

var urlInLog = regexp.MustCompile(`url=(http://\S+)`)

// cmdHTTPServe is http-serve [-env K=V]... [ARGS]: it starts
// "vox-mcp --http 127.0.0.1:0 ARGS" in the background, waits for the log
// line giving its URL, and sets $URL and $SERVER_PID. The server is
// stopped (SIGTERM) when the script ends.
func cmdHTTPServe(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http-serve", flag.ContinueOnError)
	var extra envFlags
	fs.Var(&extra, "env", "K=V for the server")
	fs.SetOutput(io.Discard)
	if neg || fs.Parse(args) != nil {
		ts.Fatalf("usage: http-serve [-env K=V] [ARGS]")
	}
	if _, ok := httpServers.Load(ts); ok {
		ts.Fatalf("http-serve: a server is running already")
	}
	cmd := exec.Command(filepath.Join(binDir, "vox-mcp"), append([]string{"--http", "127.0.0.1:0"}, fs.Args()...)...)
	cmd.Dir = ts.MkAbs(".")
	for _, name := range serverEnvNames {
		if v := ts.Getenv(name); v != "" {
			cmd.Env = append(cmd.Env, name+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	srv := &httpServer{cmd: cmd}
	cmd.Stderr = srv
	ts.Check(cmd.Start())
	httpServers.Store(ts, srv)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	ts.Defer(func() {
		httpServers.Delete(ts)
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := urlInLog.FindStringSubmatch(srv.logText()); m != nil {
			ts.Setenv("URL", m[1])
			ts.Setenv("SERVER_PID", strconv.Itoa(cmd.Process.Pid))
			return
		}
		select {
		case <-exited:
			ts.Fatalf("http-serve: vox-mcp exited before serving:\n%s", srv.logText())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			ts.Fatalf("http-serve: vox-mcp gave no URL within 30s:\n%s", srv.logText())
		}
	}
}

// cmdHTTPLog is http-log [-wait REGEXP]: it writes the log of the server
// of http-serve so far to stdout. The log reaches the harness through a
// pipe, a little after the server wrote it; with -wait it first waits (up
// to 10s) until the log matches REGEXP.
func cmdHTTPLog(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http-log", flag.ContinueOnError)
	wait := fs.String("wait", "", "a regular expression the log must match first")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); neg || err != nil || fs.NArg() != 0 {
		ts.Fatalf("usage: http-log [-wait REGEXP]")
	}
	v, ok := httpServers.Load(ts)
	if !ok {
		ts.Fatalf("http-log: no server: use http-serve first")
	}
	srv := v.(*httpServer)
	if *wait != "" {
		re, err := regexp.Compile(*wait)
		ts.Check(err)
		for deadline := time.Now().Add(10 * time.Second); !re.MatchString(srv.logText()) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	io.WriteString(ts.Stdout(), srv.logText())
}

// headerFlags are repeatable -H 'Name: value' flags.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

func (h headerFlags) apply(ts *testscript.TestScript, req *http.Request) {
	for _, kv := range h {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			ts.Fatalf("-H %q: want 'Name: value'", kv)
		}
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
}

func serverURL(ts *testscript.TestScript) string {
	u := ts.Getenv("URL")
	if u == "" {
		ts.Fatalf("no $URL: use http-serve first")
	}
	return u
}

// newMCPRequest is a request to $URL as an MCP client sends it.
func newMCPRequest(ctx context.Context, ts *testscript.TestScript, method, body string, h headerFlags) *http.Request {
	req, err := http.NewRequestWithContext(ctx, method, serverURL(ts), strings.NewReader(body))
	ts.Check(err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.apply(ts, req)
	return req
}

// cmdHTTP is http [-H 'K: V']... [-show HEADER]... [-setenv VAR=HEADER]...
// [-capture VAR=REGEXP]... [-timeout D] [-body FILE] [-firstid VAR] METHOD [BODY]: one request to
// $URL (the body from FILE with -body). It prints "status N", then
// "HEADER: value" for each -show header the answer has, then "body " and
// the body: compact JSON or text (-capture VAR=REGEXP sets $VAR to the
// first group of REGEXP's first match in it); for an event stream, read until it ends
// or -timeout passes, "event id=ID retry=MS" for each event with an id or
// retry field (-firstid sets $VAR to the first event's id) and "body DATA"
// for each event with data.
// An event stream that sends nothing within -timeout (default 5s) is
// printed as "body (an event stream, still open)". -setenv sets $VAR to
// the answer's HEADER.
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	var headers, show, setenv, capture headerFlags
	fs.Var(&headers, "H", "a request header")
	fs.Var(&capture, "capture", "VAR=REGEXP")
	fs.Var(&show, "show", "a response header to print")
	fs.Var(&setenv, "setenv", "VAR=HEADER")
	timeout := fs.Duration("timeout", 5*time.Second, "the longest wait for the answer")
	bodyFile := fs.String("body", "", "a file holding the body")
	firstID := fs.String("firstid", "", "a variable to set to the id of the first event")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); neg || err != nil || fs.NArg() < 1 || fs.NArg() > 2 {
		ts.Fatalf("usage: http [-H 'K: V'] [-show HEADER] [-setenv VAR=HEADER] [-capture VAR=REGEXP] [-timeout D] [-body FILE] [-firstid VAR] METHOD [BODY]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	body := fs.Arg(1)
	if *bodyFile != "" {
		b, err := os.ReadFile(ts.MkAbs(*bodyFile))
		ts.Check(err)
		body = string(b)
	}
	req := newMCPRequest(ctx, ts, fs.Arg(0), body, headers)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.Fatalf("http %s: no answer within %v: %v", fs.Arg(0), *timeout, err)
	}
	defer resp.Body.Close()
	fmt.Fprintf(ts.Stdout(), "status %d\n", resp.StatusCode)
	for _, name := range show {
		if v := resp.Header.Get(name); v != "" {
			fmt.Fprintf(ts.Stdout(), "%s: %s\n", name, v)
		}
	}
	for _, kv := range setenv {
		name, header, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("-setenv %q: want VAR=HEADER", kv)
		}
		ts.Setenv(name, resp.Header.Get(header))
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Every event: "event id=ID retry=MS" when it has either field,
		// and "body DATA" when its data is not empty.
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 64<<20)
		data, fields, first := false, "", true
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if fields != "" {
					fmt.Fprintf(ts.Stdout(), "event%s\n", fields)
				}
				fields, first = "", false
			case strings.HasPrefix(line, "id: "):
				fields += " id=" + line[4:]
				if first && *firstID != "" {
					ts.Setenv(*firstID, line[4:])
				}
			case strings.HasPrefix(line, "retry: "):
				fields += " retry=" + line[7:]
			case strings.HasPrefix(line, "data: ") && len(line) > 6:
				fmt.Fprintf(ts.Stdout(), "body %s\n", line[6:])
				data = true
			}
		}
		if data {
			return
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			fmt.Fprintln(ts.Stdout(), "body (an event stream, still open)")
			return
		}
		fmt.Fprintln(ts.Stdout(), "body (an event stream, closed)")
		return
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.Fatalf("http %s: reading the answer: %v", fs.Arg(0), err)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, b) == nil {
		b = compact.Bytes()
	}
	fmt.Fprintf(ts.Stdout(), "body %s\n", strings.TrimSpace(string(b)))
	for _, kv := range capture {
		name, expr, ok := strings.Cut(kv, "=")
		re, err := regexp.Compile(expr)
		if !ok || err != nil || re.NumSubexp() < 1 {
			ts.Fatalf("-capture %q: want VAR=REGEXP with a group (%v)", kv, err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			ts.Fatalf("-capture %s: %s matches nothing in %s", name, expr, b)
		}
		ts.Setenv(name, string(m[1]))
	}
}

// cmdHTTPForge is http-forge [-n N] [-H 'K: V']... [-maxgrowth MiB]
// BODY: it POSTs BODY to $URL 2N times, each with a new invented
// Mcp-Session-Id (half in mcp-go's format, mcp-session-<uuid>, half in
// vox-mcp's, vox1.<88 random base64url characters>), 16 at a time, and
// prints one line per HTTP status, "status S: COUNT". Between the first N
// (warming up) and the last N it reads the server's resident memory
// (VmRSS of $SERVER_PID); with -maxgrowth it fails when the last N made
// it grow by more than that many MiB.
func cmdHTTPForge(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http-forge", flag.ContinueOnError)
	var headers headerFlags
	fs.Var(&headers, "H", "a request header")
	n := fs.Int("n", 1000, "requests per half")
	maxGrowth := fs.Int64("maxgrowth", 0, "the largest allowed RSS growth over the second half, in MiB (0: unchecked)")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); neg || err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: http-forge [-n N] [-H 'K: V'] [-maxgrowth MiB] BODY")
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	statuses := map[int]int{}
	var mu sync.Mutex
	batch := func(count int) {
		ids := make(chan string)
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := range ids {
					req := newMCPRequest(context.Background(), ts, http.MethodPost, fs.Arg(0), headers)
					req.Header.Set("Mcp-Session-Id", id)
					req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
					status := -1
					if resp, err := client.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
					mu.Lock()
					statuses[status]++
					mu.Unlock()
				}
			}()
		}
		for i := range count {
			ids <- forgedID(i)
		}
		close(ids)
		wg.Wait()
	}
	pid, _ := strconv.Atoi(ts.Getenv("SERVER_PID"))
	batch(*n)
	before := residentMemory(pid)
	batch(*n)
	after := residentMemory(pid)
	var keys []int
	for s := range statuses {
		keys = append(keys, s)
	}
	sort.Ints(keys)
	for _, s := range keys {
		fmt.Fprintf(ts.Stdout(), "status %d: %d\n", s, statuses[s])
	}
	growth := after - before
	fmt.Fprintf(ts.Stderr(), "http-forge: VmRSS %d KiB after the first %d requests, %d KiB after the last %d (%+d KiB)\n", before>>10, *n, after>>10, *n, growth>>10)
	if before == 0 || after == 0 {
		ts.Fatalf("http-forge: cannot read the resident memory of $SERVER_PID %q", ts.Getenv("SERVER_PID"))
	}
	if *maxGrowth > 0 && growth > *maxGrowth<<20 {
		ts.Fatalf("http-forge: the server's resident memory grew by %d KiB over the last %d forged ids, over the allowed %d MiB: it keeps state for ids it never issued", growth>>10, *n, *maxGrowth)
	}
}

// forgedID is an invented session id: even i in mcp-go's format, odd i in
// vox-mcp's (right length and prefix, random MAC).
func forgedID(i int) string {
	b := make([]byte, 66)
	rand.Read(b)
	if i%2 == 0 {
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("mcp-session-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	}
	b[0] = 1 // the version byte
	return "vox1." + base64.RawURLEncoding.EncodeToString(b)
}

// residentMemory is a live process's VmRSS in bytes; 0 when unreadable.
func residentMemory(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cmdHTTPSlow is http-slow [-every D] [-bytes N] [-H 'K: V']...: it opens
// a connection to $URL and sends a POST whose headers announce an N-byte
// body, then the body one byte every D, as a slow client does. While it
// trickles it sends one ordinary request (ping, with the same headers) on
// another connection and prints "another client: status S". It prints
// "closed by the server before the body was complete" when the server
// ends the connection before the last byte (the number of bytes sent
// goes to stderr), or "sent the whole body: the server held the
// connection for it" otherwise.
func cmdHTTPSlow(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http-slow", flag.ContinueOnError)
	var headers headerFlags
	fs.Var(&headers, "H", "a request header")
	every := fs.Duration("every", 500*time.Millisecond, "the time between two bytes")
	n := fs.Int("bytes", 40, "the body's length")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); neg || err != nil || fs.NArg() != 0 {
		ts.Fatalf("usage: http-slow [-every D] [-bytes N] [-H 'K: V']")
	}
	u, err := url.Parse(serverURL(ts))
	ts.Check(err)
	conn, err := net.Dial("tcp", u.Host)
	ts.Check(err)
	defer conn.Close()
	var head strings.Builder
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", u.Path, u.Host, *n)
	for _, kv := range headers {
		fmt.Fprintf(&head, "%s\r\n", kv)
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(conn, head.String()); err != nil {
		ts.Fatalf("http-slow: sending the headers: %v", err)
	}
	// The server ends the exchange by answering or closing; either makes
	// this read return.
	closed := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(conn).ReadString('\n')
		if line != "" {
			closed <- strings.TrimSpace(line)
			return
		}
		closed <- fmt.Sprint(err)
	}()
	other := make(chan string, 1)
	sent := 0
	for sent < *n {
		select {
		case how := <-closed:
			fmt.Fprintf(ts.Stderr(), "http-slow: the server ended the connection after %d of %d bytes (%s)\n", sent, *n, how)
			fmt.Fprintln(ts.Stdout(), "closed by the server before the body was complete")
			fmt.Fprintln(ts.Stdout(), <-other)
			return
		case <-time.After(*every):
		}
		if _, err := conn.Write([]byte{' '}); err != nil {
			fmt.Fprintf(ts.Stderr(), "http-slow: the server closed the connection after %d of %d bytes (%v)\n", sent, *n, err)
			fmt.Fprintln(ts.Stdout(), "closed by the server before the body was complete")
			fmt.Fprintln(ts.Stdout(), <-other)
			return
		}
		sent++
		if sent == 1 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				req := newMCPRequest(ctx, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"other","version":"1"}}}`, headers)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					other <- fmt.Sprintf("another client: no answer (%v)", err)
					return
				}
				resp.Body.Close()
				other <- fmt.Sprintf("another client: status %d", resp.StatusCode)
			}()
		}
	}
	fmt.Fprintln(ts.Stdout(), "sent the whole body: the server held the connection for it")
	fmt.Fprintln(ts.Stdout(), <-other)
}

// cmdSessionID is session-id [-age D] [-role N] [-owner P] VAR: it mints
// a session id with the key of $VOX_MCP_SESSION_KEY for the principal P
// (default anonymous, a server without tokens), as if issued D ago
// (default 0), and sets $VAR to it: an id the server issued, aged at will.
func cmdSessionID(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("session-id", flag.ContinueOnError)
	age := fs.Duration("age", 0, "how long ago the id was issued")
	role := fs.Uint("role", 0, "the role byte (0: full access)")
	owner := fs.String("owner", "anonymous", "the principal the id is for (anonymous: a server without tokens)")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); neg || err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: session-id [-age D] [-role N] [-owner P] VAR")
	}
	keys, err := session.ParseKeys(ts.Getenv("VOX_MCP_SESSION_KEY"))
	if err != nil {
		ts.Fatalf("session-id: $VOX_MCP_SESSION_KEY: %v", err)
	}
	s, err := session.NewSigner(keys, 0)
	ts.Check(err)
	id, _ := s.MintAt(uint8(*role), *owner, time.Now().Add(-*age))
	ts.Setenv(fs.Arg(0), id)
}
