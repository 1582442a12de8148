package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/session"
)

var testSessionKey = []byte("runtime-server-test-session-key-0123456789")

func newKeyedServer(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.Root = t.TempDir()
	opts.Catalog = testCatalog()
	opts.Handlers = testTable
	if opts.SessionKeys == nil {
		opts.SessionKeys = [][]byte{testSessionKey}
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitWorkspace(context.Background())
	return s
}

// keyOf is the store key of a session id the server minted.
func keyOf(t *testing.T, s *Server, raw string) string {
	t.Helper()
	id, err := s.sessions.ids.Verify(raw, PrincipalAnonymous)
	if err != nil {
		t.Fatal(err)
	}
	return id.Key
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// modernCall is a tools/call of protocol 2026-07-28, which has no session.
func modernCall(c *httpClient, name string) httpReply {
	return c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}},"name":%q,"arguments":{"query":"x"}}}`, name),
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", name)
}

func TestSessionLifecycleOverHTTP(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	if !strings.HasPrefix(cl.session, "vox1.") {
		t.Fatalf("initialize minted %q, want a signed vox1. id", cl.session)
	}
	key := keyOf(t, s, cl.session)
	// The session's state: an active skill whose allowlist refuses the
	// tool called below.
	if err := s.sessions.state.SetActiveSkill(context.Background(), key, time.Now().Add(time.Hour), session.ActiveSkill{ID: "demo", Name: "demo", Tools: []string{"greet"}}); err != nil {
		t.Fatal(err)
	}
	if text, _ := cl.call("vox_test_fail"); !strings.Contains(text, "not in skill 'demo' allowlist") {
		t.Fatalf("the session's active skill does not apply: %q", text)
	}

	if r := cl.do(http.MethodDelete, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if n := s.sessions.state.(*session.MemoryStore).Len(); n != 0 {
		t.Errorf("%d sessions keep state after DELETE", n)
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r := cl.do(method, pingBody)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "session ended (DELETE): start a new session with initialize") {
			t.Errorf("%s after DELETE: %d %s", method, r.status, r.body)
		}
	}

	// Without an id: 400, for every verb of a session; never for
	// initialize or a request of 2026-07-28.
	bare := &httpClient{t: t, url: ts.URL}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r := bare.do(method, pingBody)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "missing Mcp-Session-Id: send initialize first") || r.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s without a session: %d %s %v", method, r.status, r.body, r.header)
		}
	}
	if r := modernCall(bare, "vox_tool_search"); r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a 2026-07-28 call: %d %s %v", r.status, r.body, r.header)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if r := bare.do(method, "", "MCP-Protocol-Version", "2026-07-28"); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
			t.Errorf("a 2026-07-28 %s: %d %s", method, r.status, r.body)
		}
	}
	// A batch is of a session too (shim_http.go).
	if r := bare.do(http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "missing Mcp-Session-Id") {
		t.Errorf("a batch without a session: %d %s", r.status, r.body)
	}

	// A new session starts without the old one's state.
	cl.initialize()
	if text, isErr := cl.call("vox_tool_search"); isErr {
		t.Errorf("a new session: %s", text)
	}
}

// TestForgedSessionIDsHoldNothing: invented ids — in mcp-go's format,
// vox-mcp's with a random MAC, signed with another key, or signed with
// the server's key but expired — get 404 and leave nothing behind: no
// state, no revocation, no open request, no memory (mcp-go's stateless
// ids kept about 180 bytes of each for 24 hours).
func TestForgedSessionIDsHoldNothing(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	other, _ := session.NewSigner([][]byte{[]byte("another-key-another-key-another-key-0123")}, 0)
	forge := func(i int) string {
		b := make([]byte, 66)
		rand.Read(b)
		switch i % 4 {
		case 0:
			return fmt.Sprintf("mcp-session-%x-%x-4%x-8%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])[:48]
		case 1:
			b[0] = 1
			return "vox1." + base64.RawURLEncoding.EncodeToString(b)
		case 2:
			raw, _ := other.Mint(0, PrincipalAnonymous)
			return raw
		}
		raw, _ := s.sessions.ids.MintAt(0, PrincipalAnonymous, time.Now().Add(-25*time.Hour))
		return raw
	}
	cl := &httpClient{t: t, url: ts.URL}
	send := func(n int) {
		for i := range n {
			cl.session = forge(i)
			method := http.MethodPost
			if i%10 == 9 {
				method = http.MethodGet // a GET stream with a forged id used to stay open
			}
			if r := cl.do(method, pingBody); r.status != http.StatusNotFound {
				t.Fatalf("%s with forged id %q: %d %s", method, cl.session, r.status, r.body)
			}
		}
	}
	send(2000) // warm up
	before := liveHeap()
	const n = 20000
	send(n)
	after := liveHeap()
	grew := int64(after) - int64(before)
	t.Logf("live heap %d -> %d bytes over %d forged ids", before, after, n)
	if grew > 1<<20 {
		t.Errorf("the live heap grew by %d bytes over %d forged ids (%d per id): they hold state", grew, n, grew/n)
	}
	if st, rv := s.sessions.state.(*session.MemoryStore).Len(), s.sessions.revoked.(*session.MemoryRevocations).Len(); st != 0 || rv != 0 || s.sessions.open.sessions() != 0 {
		t.Errorf("after forged ids: %d states, %d revocations, %d sessions with open requests", st, rv, s.sessions.open.sessions())
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestExpiredSessionsEnd(t *testing.T) {
	s := newKeyedServer(t, Options{SessionLifetime: time.Second})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	// A GET stream ends when its session expires.
	stream := openStream(t, ts.URL, cl.session)
	select {
	case <-stream.closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the GET stream outlived its session")
	}
	r := cl.do(http.MethodPost, pingBody)
	if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "session expired at ") || !strings.Contains(string(r.body), "(sessions last 1s): start a new session with initialize") {
		t.Fatalf("an expired id: %d %s", r.status, r.body)
	}
	// A crafted id of the right key, issued two lifetimes ago.
	old, _ := s.sessions.ids.MintAt(0, PrincipalAnonymous, time.Now().Add(-2*time.Second))
	cl.session = old
	if r := cl.do(http.MethodDelete, ""); r.status != http.StatusNotFound {
		t.Fatalf("DELETE of an expired id: %d %s", r.status, r.body)
	}
}

// stream is a GET event stream being read.
type stream struct {
	events chan string
	closed chan struct{}
	resp   *http.Response
}

func openStream(t *testing.T, url, sessionID string) *stream {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET stream: %d %s", resp.StatusCode, b)
	}
	st := &stream{events: make(chan string, 16), closed: make(chan struct{}), resp: resp}
	go func() {
		defer close(st.closed)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				st.events <- data
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

func TestDeleteEndsTheSessionsStream(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	stream := openStream(t, ts.URL, cl.session)
	if r := cl.do(http.MethodDelete, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	select {
	case <-stream.closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the GET stream stayed open after DELETE")
	}
}

// TestSessionsAreBoundToTheRole: an id minted for the read role is not
// accepted with the full token, nor the other way round, so a read-role
// client can neither use nor end a full-access session. The two static
// tokens are two principals (token:full, token:read), so the id's MAC,
// which covers its principal, already refuses it.
func TestSessionsAreBoundToTheRole(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{Token: "full", ReadToken: "read"}))
	defer ts.Close()
	full := &httpClient{t: t, url: ts.URL, token: "full"}
	full.initialize()
	thief := &httpClient{t: t, url: ts.URL, token: "read", session: full.session}
	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		if r := thief.do(method, pingBody); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "not to this token's principal") {
			t.Errorf("%s of a full session with the read token: %d %s", method, r.status, r.body)
		}
	}
	if text, isErr := full.call("vox_tool_search"); isErr {
		t.Fatalf("the full session after the read role's attempts: %s", text)
	}
	// Authentication comes first: a wrong token gets 401 whatever the id.
	if r := (&httpClient{t: t, url: ts.URL, token: "wrong", session: full.session}).do(http.MethodDelete, ""); r.status != http.StatusUnauthorized {
		t.Errorf("DELETE with a wrong token: %d", r.status)
	}
}

// TestRevokedSetFullRefusesDelete: when the revoked set is full of live
// revocations, DELETE answers 503 with Retry-After and the session stays
// valid; no revocation is forgotten.
func TestRevokedSetFullRefusesDelete(t *testing.T) {
	s := newKeyedServer(t, Options{})
	s.sessions.revoked = session.NewMemoryRevocations(1)
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	a, b := &httpClient{t: t, url: ts.URL}, &httpClient{t: t, url: ts.URL}
	a.initialize()
	b.initialize()
	if r := a.do(http.MethodDelete, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE a: %d %s", r.status, r.body)
	}
	r := b.do(http.MethodDelete, "")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "the revoked set holds its maximum of 1 live revocations") {
		t.Fatalf("DELETE b with the set full: %d %v %s", r.status, r.header, r.body)
	}
	if r := b.do(http.MethodPost, pingBody); r.status != http.StatusOK {
		t.Errorf("b after a refused DELETE: %d %s", r.status, r.body)
	}
	if r := a.do(http.MethodPost, pingBody); r.status != http.StatusNotFound {
		t.Errorf("a is no longer revoked: %d %s", r.status, r.body)
	}
}

// TestSessionStateIsBounded: beyond maxSessionStates sessions with state,
// the least recently used session is ended (its id revoked: its client
// gets 404 and starts anew), so none silently loses its active skill.
func TestSessionStateIsBounded(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	raws := make([]string, maxSessionStates+1)
	ctxOf := func(i int) context.Context {
		if raws[i] == "" {
			raws[i], _ = s.sessions.ids.Mint(0, PrincipalAnonymous)
		}
		id, _ := s.sessions.ids.Verify(raws[i], PrincipalAnonymous)
		return withHTTPSession(context.Background(), &httpSession{raw: raws[i], id: id})
	}
	skill := &session.ActiveSkill{ID: "release-notes", Name: "release-notes", Tools: []string{"vox_check"}}
	for i := range maxSessionStates {
		if err := s.sessions.setActiveSkill(ctxOf(i), skill); err != nil {
			t.Fatal(err)
		}
	}
	// Session 0 is used again, so session 1 is now the least recently used.
	if _, ok, _ := s.sessions.activeSkill(ctxOf(0)); !ok {
		t.Fatal("session 0 lost its skill before the bound was reached")
	}
	if err := s.sessions.setActiveSkill(ctxOf(maxSessionStates), skill); err != nil {
		t.Fatal(err)
	}
	if n := s.sessions.state.(*session.MemoryStore).Len(); n != maxSessionStates {
		t.Fatalf("%d sessions with state, want %d", n, maxSessionStates)
	}
	for i, want := range map[int]bool{0: true, 1: false, 2: true, maxSessionStates: true} {
		if _, ok, _ := s.sessions.activeSkill(ctxOf(i)); ok != want {
			t.Errorf("session %d has its skill = %v, want %v", i, ok, want)
		}
	}
	cl := &httpClient{t: t, url: ts.URL, session: raws[1]}
	if r := cl.do(http.MethodPost, pingBody); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "session ended") {
		t.Errorf("the ended session: %d %s", r.status, r.body)
	}
	cl.session = raws[2]
	if r := cl.do(http.MethodPost, pingBody); r.status != http.StatusOK {
		t.Errorf("a kept session: %d %s", r.status, r.body)
	}
}

// TestSlowBodiesTimeOut: a body that does not arrive within the read
// timeout is answered 408 and its connection closed; the deadline is
// lifted once a body is in, so a GET stream outlives it, and other
// clients are served meanwhile.
func TestSlowBodiesTimeOut(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan net.Addr, 1)
	go s.ListenAndServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", ReadTimeout: 300 * time.Millisecond, Ready: func(a net.Addr) { ready <- a }})
	addr := (<-ready).String()
	url := "http://" + addr + EndpointPath

	cl := &httpClient{t: t, url: url}
	cl.initialize()
	stream := openStream(t, url, cl.session)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
	status := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(conn).ReadString('\n')
		status <- strings.TrimSpace(line)
	}()
	// The slow client sends a byte now and then; the server must give up
	// long before the 1000th.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	sent := 1
wait:
	for {
		select {
		case line := <-status:
			if line != "HTTP/1.1 408 Request Timeout" {
				t.Fatalf("the slow request was answered %q", line)
			}
			break wait
		case <-tick.C:
			if _, err := conn.Write([]byte(" ")); err != nil {
				break wait // closed
			}
			if sent++; sent == 1000 {
				t.Fatal("the server waited for the whole slow body")
			}
		}
	}
	// Other clients are served; the stream, older than the read timeout,
	// still delivers.
	if text, isErr := cl.call("vox_tool_search"); isErr {
		t.Fatalf("another client: %s", text)
	}
	s.mcp.SendNotificationToAllClients("notifications/tools/list_changed", nil)
	select {
	case ev := <-stream.events:
		if !strings.Contains(ev, "notifications/tools/list_changed") {
			t.Errorf("stream event %s", ev)
		}
	case <-stream.closed:
		t.Fatal("the GET stream was cut by the read deadline")
	case <-time.After(30 * time.Second):
		t.Fatal("no event on the GET stream")
	}
}

func TestBodiesOverTheLimitAreRefused(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	r := cl.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("x", maxRequestBody)+`"}}`)
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.body), "request body over 64 MiB") {
		t.Errorf("a body over 64 MiB: %d %s", r.status, r.body)
	}
}

func TestSessionConfigFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	keys, lifetime, err := SessionConfigFromEnv(env(map[string]string{EnvSessionKey: string(testSessionKey) + "," + string(testSessionKey), EnvSessionLifetime: "90m"}))
	if err != nil || len(keys) != 2 || lifetime != 90*time.Minute {
		t.Fatalf("%q %v %v", keys, lifetime, err)
	}
	for kv, want := range map[[2]string]string{
		{EnvSessionKey, "short"}:         "VOX_MCP_SESSION_KEY: key 1 has 5 bytes: each key needs at least 32",
		{EnvSessionLifetime, "10ms"}:     `VOX_MCP_SESSION_LIFETIME="10ms": want a duration of at least 1s`,
		{EnvSessionLifetime, "tomorrow"}: `VOX_MCP_SESSION_LIFETIME="tomorrow"`,
	} {
		if _, _, err := SessionConfigFromEnv(env(map[string]string{kv[0]: kv[1]})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: %v, want %q", kv[0], kv[1], err, want)
		}
	}
	if d, err := ReadTimeoutFromEnv(env(map[string]string{EnvHTTPReadTimeout: "5s"})); err != nil || d != 5*time.Second {
		t.Errorf("read timeout: %v %v", d, err)
	}
	if _, err := ReadTimeoutFromEnv(env(map[string]string{EnvHTTPReadTimeout: "0s"})); err == nil {
		t.Error("a read timeout of 0s was accepted")
	}
}

// TestSessionChecksAgreeWithMCPGo: mcp-go serves a request as part of a
// session only when the endpoint verified its id, so a request with an
// odd _meta never runs outside its session's allowlist.
func TestSessionChecksAgreeWithMCPGo(t *testing.T) {
	s := newKeyedServer(t, Options{})
	ts := httptest.NewServer(s.HTTPHandler(Auth{}))
	defer ts.Close()
	cl := &httpClient{t: t, url: ts.URL}
	cl.initialize()
	if err := s.sessions.state.SetActiveSkill(context.Background(), keyOf(t, s, cl.session), time.Now().Add(time.Hour), session.ActiveSkill{ID: "demo", Tools: []string{"greet"}}); err != nil {
		t.Fatal(err)
	}
	for _, meta := range []string{`5`, `"x"`, `[]`, `null`, `{"progressToken":{}}`, `{"io.modelcontextprotocol/protocolVersion":5}`, `{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}`} {
		r := cl.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":`+meta+`,"name":"vox_test_fail","arguments":{}}}`)
		if strings.Contains(string(r.body), "it failed") {
			t.Errorf("_meta %s: the tool ran outside the session's allowlist: %d %s", meta, r.status, r.body)
		}
	}
	// The id manager mcp-go asks accepts no id the endpoint did not verify.
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	if _, err := s.sessions.ResolveSessionIdManager(req).Validate(cl.session); err == nil {
		t.Error("mcp-go would serve a session the endpoint did not verify")
	}
}

// TestOpenRequestsEndWithTheirSession: ending a session ends every request
// still open in it, and only those; a request that is done is forgotten.
func TestOpenRequestsEndWithTheirSession(t *testing.T) {
	s, err := New(Options{Root: t.TempDir(), SessionKeys: [][]byte{testSessionKey}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.sessions
	var ctxs [3]context.Context
	var reqs [3]*openRequest
	for i := range reqs {
		ctxs[i], reqs[i] = p.track(context.Background(), "a")
	}
	other, otherReq := p.track(context.Background(), "b")
	reqs[1].done() // the middle one ends on its own
	if ctxs[1].Err() == nil {
		t.Fatal("a done request's context is not cancelled")
	}
	p.closeOpen("a")
	for _, i := range []int{0, 2} {
		if ctxs[i].Err() == nil {
			t.Errorf("request %d of the ended session is still open", i)
		}
	}
	if other.Err() != nil {
		t.Error("ending session a ended a request of session b")
	}
	reqs[0].done()
	reqs[2].done()
	otherReq.done()
	if n := p.open.sessions(); n != 0 {
		t.Errorf("%d sessions with open requests after every request is done", n)
	}
}
