package e2e

// Fleet mode (docs/federation.md §8, "Fleet mode"): two `vox-mcp --http
// --store redis://...` instances on one real redis-server, behind a
// round-robin proxy without stickiness.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
)

// fleetKey is the session key the instances of a test fleet share.
const fleetKey = "VOX_MCP_SESSION_KEY=fleet-test-key-fleet-test-key-0123456789"

// fleet is n instances on one store behind a round-robin proxy.
type fleet struct {
	redis     *redistest.Server
	instances []*httpServer
	proxy     *roundRobin
	// URL is the proxy's endpoint.
	URL  string
	root string
}

// roundRobin sends each request to the next instance, whatever its
// session: the load balancer of fleet mode needs no stickiness. It names
// the instance that answered in the X-Fleet-Instance header.
type roundRobin struct {
	backends []*httputil.ReverseProxy
	next     atomic.Uint64
}

func newRoundRobin(t testing.TB, urls []string) *roundRobin {
	p := &roundRobin{}
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = ""
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.FlushInterval = -1
		rp.ModifyResponse = func(r *http.Response) error {
			r.Header.Set("X-Fleet-Instance", strconv.Itoa(i))
			return nil
		}
		p.backends = append(p.backends, rp)
	}
	return p
}

func (p *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := (p.next.Add(1) - 1) % uint64(len(p.backends))
	p.backends[i].ServeHTTP(w, r)
}

// fleetSkill allows only slugify.
const fleetSkill = "---\nname: fleet-limited\ndescription: A skill for the fleet test that allows only the slugify workspace tool. Use in tests.\nmetadata:\n  vox-tools: slugify\n---\n# Fleet\n\nOnly slugify.\n"

const fleetDenial = "Tool 'fibonacci' is not in skill 'fleet-limited' allowlist [\"slugify\"]"

// startFleet starts redis-server and n instances serving one workspace
// (copied from this repository's examples) with the skill fleet-limited.
func startFleet(t testing.TB, n int) *fleet {
	t.Helper()
	f := &fleet{redis: redistest.Start(t)}
	root, skills := soakWorkspace(t)
	f.root = root
	if err := os.MkdirAll(filepath.Join(skills, "fleet-limited"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, "fleet-limited", "SKILL.md"), []byte(fleetSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for range n {
		s := startHTTPWith(t, root, []string{"--store", f.redis.URL}, "VOX_SKILL_ROOTS="+skills, fleetKey)
		f.instances = append(f.instances, s)
		urls = append(urls, s.URL)
	}
	f.proxy = newRoundRobin(t, urls)
	srv := httptest.NewServer(f.proxy)
	t.Cleanup(srv.Close)
	f.URL = srv.URL + "/mcp"
	return f
}

// rawSession speaks MCP over plain HTTP requests, so that the test
// chooses where each request goes and sees every status.
type rawSession struct {
	t   testing.TB
	id  string
	seq atomic.Int64
}

// reply is one HTTP answer: its status, the instance that answered (via
// the proxy; -1 when sent directly), and the JSON-RPC message or the
// plain-text refusal.
type reply struct {
	status   int
	instance int
	msg      struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	text string
}

// toolText is the text of a tool result, or why there is none.
func (r reply) toolText() string {
	switch {
	case r.status != http.StatusOK:
		return fmt.Sprintf("HTTP %d: %s", r.status, strings.TrimSpace(r.text))
	case r.msg.Error != nil:
		return "JSON-RPC error: " + r.msg.Error.Message
	case r.msg.Result == nil:
		return "no result: " + r.text
	}
	return resultText(r.msg.Result)
}

func (r reply) ok() bool {
	return r.status == http.StatusOK && r.msg.Result != nil && !r.msg.Result.IsError
}

func send(t testing.TB, method, endpoint, sessionID, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, endpoint, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, endpoint, err)
	}
	r := reply{status: resp.StatusCode, instance: -1, text: string(raw)}
	if v := resp.Header.Get("X-Fleet-Instance"); v != "" {
		r.instance, _ = strconv.Atoi(v)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id"`) {
				raw = []byte(data)
			}
		}
	}
	if r.status == http.StatusOK && len(raw) > 0 {
		_ = json.Unmarshal(raw, &r.msg)
	}
	return r
}

// initializeRaw starts a session at endpoint.
func initializeRaw(t testing.TB, endpoint string) *rawSession {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fleet-test","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s := &rawSession{t: t, id: resp.Header.Get("Mcp-Session-Id")}
	if resp.StatusCode != http.StatusOK || s.id == "" {
		t.Fatalf("initialize at %s: HTTP %d, session %q", endpoint, resp.StatusCode, s.id)
	}
	if r := send(t, http.MethodPost, endpoint, s.id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: HTTP %d %s", r.status, r.text)
	}
	return s
}

// call calls a tool of the session at endpoint.
func (s *rawSession) call(endpoint, tool string, args map[string]any) reply {
	s.t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, s.seq.Add(1), params)
	return send(s.t, http.MethodPost, endpoint, s.id, body)
}

func (s *rawSession) end(endpoint string) reply {
	s.t.Helper()
	return send(s.t, http.MethodDelete, endpoint, s.id, "")
}

var (
	fibArgs  = map[string]any{"count": 3}
	slugArgs = map[string]any{"title": "Fleet Mode"}
)

// TestFleetBatchSeesItsOwnSkillChange: a request's active skill is read
// with its revocation (one round trip), and a change of the skill within
// the request — a batch of protocol 2025-03-26 — is seen by the calls
// after it: vox_skill_use (exempt from the allowlist, so it reads no
// skill) activates fleet-limited and the batch's next call is refused; a
// batch that clears it lets the next call through.
func TestFleetBatchSeesItsOwnSkillChange(t *testing.T) {
	f := startFleet(t, 1)
	s := initializeRaw(t, f.URL)
	batch := func(skill string) map[float64]string {
		t.Helper()
		body := fmt.Sprintf(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_skill_use","arguments":{"id":%q}}},`+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fibonacci","arguments":{"count":3}}}]`, skill)
		req, _ := http.NewRequest(http.MethodPost, f.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s.id) // no Mcp-Protocol-Version: a 2025-03-26 batch
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var answers []struct {
			ID     float64             `json:"id"`
			Result *mcp.CallToolResult `json:"result"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &answers) != nil {
			t.Fatalf("batch: HTTP %d %s", resp.StatusCode, raw)
		}
		texts := map[float64]string{}
		for _, a := range answers {
			if a.Result != nil {
				texts[a.ID] = resultText(a.Result)
			}
		}
		return texts
	}
	if got := batch("fleet-limited"); got[2] != fleetDenial {
		t.Fatalf("fibonacci after vox_skill_use fleet-limited in the same batch: %q (vox_skill_use: %q)", got[2], got[1])
	}
	if got := batch(""); got[2] != "[0,1,1]" {
		t.Fatalf("fibonacci after clearing the skill in the same batch: %q (vox_skill_use: %q)", got[2], got[1])
	}
}

// TestFleetSkillFollowsTheSession: a skill activated through one instance
// restricts the session's calls on the other, and clearing it on one
// frees them on both.
func TestFleetSkillFollowsTheSession(t *testing.T) {
	f := startFleet(t, 2)
	s := initializeRaw(t, f.URL)
	use := s.call(f.URL, "vox_skill_use", map[string]any{"id": "fleet-limited"})
	if !use.ok() {
		t.Fatalf("vox_skill_use through instance %d: %s", use.instance, use.toolText())
	}
	denied, allowed := map[int]bool{}, map[int]bool{}
	for range 4 {
		r := s.call(f.URL, "fibonacci", fibArgs)
		if r.toolText() != fleetDenial {
			t.Fatalf("fibonacci on instance %d under fleet-limited (activated on instance %d): %s", r.instance, use.instance, r.toolText())
		}
		denied[r.instance] = true
	}
	for range 4 {
		r := s.call(f.URL, "slugify", slugArgs)
		if r.toolText() != "fleet-mode" {
			t.Fatalf("slugify on instance %d under fleet-limited: %s", r.instance, r.toolText())
		}
		allowed[r.instance] = true
	}
	if !denied[0] || !denied[1] || !allowed[0] || !allowed[1] {
		t.Fatalf("the proxy did not send the calls to both instances: denied on %v, allowed on %v", denied, allowed)
	}
	if r := s.call(f.URL, "vox_skill_use", map[string]any{"id": ""}); !r.ok() {
		t.Fatalf("clearing the skill: %s", r.toolText())
	}
	for range 2 {
		if r := s.call(f.URL, "fibonacci", fibArgs); r.toolText() != "[0,1,1]" {
			t.Fatalf("fibonacci on instance %d after the skill was cleared: %s", r.instance, r.toolText())
		}
	}
}

// TestFleetDeleteEndsTheSessionEverywhere: DELETE on one instance gives
// 404 on the other, and ends the session's event stream there.
func TestFleetDeleteEndsTheSessionEverywhere(t *testing.T) {
	f := startFleet(t, 2)
	a, b := f.instances[0].URL, f.instances[1].URL
	s := initializeRaw(t, a)
	if r := s.call(b, "slugify", slugArgs); r.toolText() != "fleet-mode" {
		t.Fatalf("the session of instance 0 on instance 1: %s", r.toolText())
	}
	stream := openStream(t, b, s.id)
	if r := s.end(a); r.status != http.StatusOK {
		t.Fatalf("DELETE on instance 0: HTTP %d %s", r.status, r.text)
	}
	r := s.call(b, "slugify", slugArgs)
	if r.status != http.StatusNotFound || !strings.Contains(r.text, "session ended (DELETE)") {
		t.Fatalf("the ended session on instance 1: %s; want 404 session ended", r.toolText())
	}
	if r := s.end(b); r.status != http.StatusNotFound {
		t.Fatalf("DELETE again on instance 1: HTTP %d %s; want 404", r.status, r.text)
	}
	select {
	case <-stream.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the session's GET stream on instance 1 stayed open for 20s after DELETE on instance 0:\n%s", f.instances[1].stderr)
	}
}

// stream is an open GET event stream; done is closed when it ends.
type stream struct{ done chan struct{} }

func openStream(t testing.TB, endpoint, sessionID string) *stream {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", resp.StatusCode)
	}
	s := &stream{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	t.Cleanup(func() { resp.Body.Close(); <-s.done })
	return s
}

// TestFleetRefreshReachesEveryInstance: a refresh requested through one
// instance rescans the other, whose clients are told tools/list_changed,
// and a skill installed through one is found by the other.
func TestFleetRefreshReachesEveryInstance(t *testing.T) {
	f := startFleet(t, 2)
	a, b := f.instances[0].URL, f.instances[1].URL
	s := initializeRaw(t, a)
	if r := s.call(b, "fleet_added", map[string]any{}); r.ok() {
		t.Fatalf("fleet_added exists before it was written: %s", r.toolText())
	}
	events := openEvents(t, b, s.id)
	tool := "@tool \"A tool added while the fleet runs\"\nfn fleet_added() to str {\n    \"added\"\n}\n"
	if err := os.WriteFile(filepath.Join(f.root, "examples", "fleet_added.vox"), []byte(tool), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := s.call(a, "vox_workspace_mcp_refresh", map[string]any{}); !r.ok() {
		t.Fatalf("refresh on instance 0: %s", r.toolText())
	}
	if r := s.call(a, "fleet_added", map[string]any{}); r.toolText() != "added" {
		t.Fatalf("fleet_added on instance 0 after its refresh: %s", r.toolText())
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.call(b, "fleet_added", map[string]any{})
		if r.toolText() == "added" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance 1 did not rescan within 20s of the refresh on instance 0: %s", r.toolText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !events.wait("notifications/tools/list_changed", 20*time.Second) {
		t.Fatalf("instance 1's client got no tools/list_changed; its stream carried:\n%s", events.text())
	}

	// A skill installed through one instance is found by the other.
	second := strings.ReplaceAll(fleetSkill, "fleet-limited", "fleet-second")
	if r := s.call(a, "vox_skill_install", map[string]any{"skill_md": second}); !r.ok() {
		t.Fatalf("vox_skill_install on instance 0: %s", r.toolText())
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		r := s.call(b, "vox_skill_use", map[string]any{"id": "fleet-second"})
		if r.ok() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance 1 did not find the skill installed on instance 0 within 20s: %s", r.toolText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := s.call(a, "fibonacci", fibArgs); r.toolText() != strings.ReplaceAll(fleetDenial, "fleet-limited", "fleet-second") {
		t.Fatalf("fibonacci on instance 0 under the skill activated on instance 1: %s", r.toolText())
	}
}

// events is an open GET event stream whose text the test reads.
type events struct {
	mu  sync.Mutex
	buf strings.Builder
}

func openEvents(t testing.TB, endpoint, sessionID string) *events {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", resp.StatusCode)
	}
	e := &events{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			e.mu.Lock()
			e.buf.Write(buf[:n])
			e.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close(); <-done })
	// The stream is registered once its headers are out.
	return e
}

func (e *events) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buf.String()
}

func (e *events) wait(what string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if strings.Contains(e.text(), what) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestFleetStoreRestartLosesNothing kills redis-server mid-run and starts
// it again, empty, while workers call through the proxy: a session
// without state is served throughout, a session under a skill is never
// let past its allowlist (refused while its state cannot be read,
// restricted again once the store is back), and an ended session stays
// ended.
func TestFleetStoreRestartLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs calls through a store outage; run without -short")
	}
	f := startFleet(t, 2)
	plain := initializeRaw(t, f.URL)
	skilled := initializeRaw(t, f.URL)
	if r := skilled.call(f.URL, "vox_skill_use", map[string]any{"id": "fleet-limited"}); !r.ok() {
		t.Fatalf("vox_skill_use: %s", r.toolText())
	}
	ended := initializeRaw(t, f.URL)
	if r := ended.end(f.URL); r.status != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d %s", r.status, r.text)
	}
	// The instances' mirrors learn of the writes through the store's
	// messages; the run starts once both have them.
	time.Sleep(200 * time.Millisecond)

	var (
		stop                              atomic.Bool
		mu                                sync.Mutex
		failures                          []string
		plainOK, skilledRefused, endedNum atomic.Int64
		wg                                sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	worker := func(body func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				body()
			}
		}()
	}
	worker(func() {
		if r := plain.call(f.URL, "slugify", slugArgs); r.toolText() != "fleet-mode" {
			fail("a session without state lost a call on instance %d: %s", r.instance, r.toolText())
		} else {
			plainOK.Add(1)
		}
	})
	worker(func() {
		r := skilled.call(f.URL, "fibonacci", fibArgs)
		switch text := r.toolText(); {
		case text == fleetDenial:
		case r.msg.Result != nil && r.msg.Result.IsError && strings.Contains(text, "active skill cannot be read"):
			skilledRefused.Add(1)
		default:
			fail("a call outside the allowlist was not denied on instance %d: %s", r.instance, text)
		}
	})
	worker(func() {
		if r := ended.call(f.URL, "slugify", slugArgs); r.status != http.StatusNotFound {
			fail("an ended session was served on instance %d: %s", r.instance, r.toolText())
		} else {
			endedNum.Add(1)
		}
	})

	time.Sleep(300 * time.Millisecond)
	f.redis.Kill()
	time.Sleep(time.Second)
	f.redis.Restart()
	// Until the instances have written their mirrors back, the skilled
	// session is refused; then it is restricted again.
	restarted := time.Now()
	for i, in := range f.instances {
		for {
			r := skilled.call(in.URL, "slugify", slugArgs)
			if r.toolText() == "fleet-mode" {
				break
			}
			if time.Since(restarted) > 30*time.Second {
				t.Fatalf("instance %d still refuses the skilled session 30s after the store came back: %s", i, r.toolText())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("both instances served the skilled session again %v after the store was restarted", time.Since(restarted).Round(time.Millisecond))
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	for _, msg := range failures {
		t.Error(msg)
	}
	for range 2 {
		if r := skilled.call(f.URL, "slugify", slugArgs); r.toolText() != "fleet-mode" {
			t.Errorf("slugify under the skill after the store came back, on instance %d: %s", r.instance, r.toolText())
		}
		if r := skilled.call(f.URL, "fibonacci", fibArgs); r.toolText() != fleetDenial {
			t.Errorf("fibonacci under the skill after the store came back, on instance %d: %s", r.instance, r.toolText())
		}
	}
	if skilledRefused.Load() == 0 {
		t.Error("no call of the skilled session was refused while the store was down: the outage was not exercised")
	}
	t.Logf("%d calls of the session without state served, %d calls under the skill refused while the store was down, %d calls of the ended session refused",
		plainOK.Load(), skilledRefused.Load(), endedNum.Load())
}

// BenchmarkFleet measures tools/call of a workspace tool (slugify) with
// loadConcurrency sessions in flight through the round-robin proxy, to
// one instance and to two sharing a redis-server (`make bench-fleet`;
// not in CI): req/s, p50 and p99 as benchmark metrics, a session per
// client, each call landing on the next instance.
func BenchmarkFleet(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			f := startFleet(b, n)
			var clients []*client.Client
			for range loadConcurrency {
				c := newHTTPClient(b, f.URL, mcp.ProtocolVersion20251125)
				b.Cleanup(func() { c.Close() })
				clients = append(clients, c)
			}
			before := storeScripts(b, f.redis.Addr)
			benchmarkCalls(b, clients, loadTool{"workspace", "slugify", slugArgs, "fleet-mode"})
			// The store's round trips per call (scripts run; the
			// instances' other commands are a ping a second).
			b.ReportMetric(float64(storeScripts(b, f.redis.Addr)-before)/float64(b.N), "store-scripts/call")
		})
	}
}

// storeScripts is the number of scripts the store at addr has run.
func storeScripts(t testing.TB, addr string) int {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	stats, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(stats, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if ok && (name == "cmdstat_evalsha" || name == "cmdstat_eval") {
			calls, _, _ := strings.Cut(rest, ",")
			c, _ := strconv.Atoi(calls)
			n += c
		}
	}
	return n
}

// TestFleetResumesAStreamOnAnotherInstance: the events of a POST's stream
// sent by one instance are replayed by the other to a GET with
// Last-Event-ID.
func TestFleetResumesAStreamOnAnotherInstance(t *testing.T) {
	f := startFleet(t, 2)
	a, b := f.instances[0].URL, f.instances[1].URL
	s := initializeRaw(t, a)
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"vox_workspace_mcp_refresh","arguments":{},"_meta":{"progressToken":"p"}}}`
	status, ids, datas := sseRequest(t, http.MethodPost, a, s.id, body, "")
	if status != http.StatusOK || len(ids) < 3 || ids[0] == "" || datas[0] != "" {
		t.Fatalf("refresh with progress on instance 0: HTTP %d, events %q %q; want a priming event, progress and the answer", status, ids, datas)
	}
	last := datas[len(datas)-1]
	status, rids, rdatas := sseRequest(t, http.MethodGet, b, s.id, "", ids[0])
	if status != http.StatusOK || len(rids) != len(ids)-1 || rdatas[len(rdatas)-1] != last {
		t.Fatalf("resume on instance 1 after %s: HTTP %d, events %q %q; want the %d events after the priming one", ids[0], status, rids, rdatas, len(ids)-1)
	}
}

// sseRequest sends a request of the session and reads its whole event
// stream: the ids and data of its events.
func sseRequest(t *testing.T, method, endpoint, sessionID, body, lastEventID string) (status int, ids, datas []string) {
	t.Helper()
	req, _ := http.NewRequest(method, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	req.Header.Set("Mcp-Session-Id", sessionID)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var id, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			ids, datas = append(ids, id), append(datas, data)
			id, data = "", ""
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
		// A replay stream stays open for live events: stop once the
		// answer (the event with "id":9) has come.
		if method == http.MethodGet && line == "" && strings.Contains(datas[len(datas)-1], `"id":9`) {
			break
		}
	}
	return resp.StatusCode, ids, datas
}
