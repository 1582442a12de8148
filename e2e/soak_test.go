package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The soak test: many concurrent calls of catalog and workspace tools,
// reads of workspace and skill resources, listings, workspace refreshes,
// skill installs and removals and (over HTTP, where each client has a
// session of its own) skill activations, against one vox-mcp process per
// transport on loopback. Every call must get its own correct answer, and
// the server's resident memory after the run must stay close to what it
// was after a warm-up. The run is bounded by a number of operations and
// by a time limit, whichever comes first; nothing is timed.
const (
	soakWorkers    = 6
	soakOpsPerRun  = 12000 // per transport, warm-up included
	soakWarmupOps  = 3000
	soakTimeLimit  = 90 * time.Second // per transport
	soakRSSFactor  = 1.25             // end RSS ≤ factor × warm RSS + slack
	soakRSSSlackMB = 16
)

// soakSkill is installed before the run; activating it allows slugify and
// the infrastructure tools only.
const soakSkill = `---
name: soak-limited
description: A skill for the soak test that allows only the slugify workspace tool. Use in tests.
metadata:
  vox-tools: slugify
---
# Soak

Only slugify.
`

// soakRun drives one server with soakWorkers goroutines, each with the
// client clients[w], until soakOpsPerRun operations have been started or
// soakTimeLimit has passed; rss reads the server's resident memory.
type soakRun struct {
	t       *testing.T
	clients []*client.Client
	// session says whether worker w has a session of its own: HTTP
	// clients up to protocol 2025-11-25. Over stdio all workers share the
	// process's session; HTTP clients of 2026-07-28 have none.
	session func(w int) sessionKind
	rss     func() int64

	started, done atomic.Int64
	failures      atomic.Int64
	mu            sync.Mutex
	firstErrors   []string
}

type sessionKind int

const (
	ownSession sessionKind = iota
	sharedSession
	noSession
)

func (r *soakRun) fail(format string, args ...any) {
	r.failures.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.firstErrors) < 10 {
		r.firstErrors = append(r.firstErrors, fmt.Sprintf(format, args...))
	}
}

// op runs operation i of worker w and checks its answer.
func (r *soakRun) op(ctx context.Context, w, i int) {
	c := r.clients[w]
	call := func(name string, args map[string]any) (*mcp.CallToolResult, bool) {
		res, err := callTool(ctx, c, name, args)
		if err != nil {
			r.fail("worker %d op %d: %s: %v", w, i, name, err)
			return nil, false
		}
		return res, true
	}
	switch i % 8 {
	case 0: // a catalog tool
		if res, ok := call("vox_tool_search", map[string]any{"query": "slug", "limit": 3}); ok && (res.IsError || !strings.Contains(resultText(res), `"name":"slugify"`)) {
			r.fail("worker %d op %d: vox_tool_search: %s", w, i, resultText(res))
		}
	case 1: // a workspace tool whose answer is unique to this call
		want := fmt.Sprintf("soak-%d-%d", w, i)
		if res, ok := call("slugify", map[string]any{"title": fmt.Sprintf("Soak %d %d", w, i)}); ok && resultText(res) != want {
			r.fail("worker %d op %d: slugify = %s, want %s", w, i, resultText(res), want)
		}
	case 2:
		n := i%15 + 1
		if res, ok := call("fibonacci", map[string]any{"count": n}); ok {
			var got []int
			if res.IsError || json.Unmarshal([]byte(resultText(res)), &got) != nil || len(got) != n {
				r.fail("worker %d op %d: fibonacci(%d) = %s", w, i, n, resultText(res))
			}
		}
	case 3:
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil || len(res.Tools) == 0 {
			r.fail("worker %d op %d: tools/list: %v", w, i, err)
		}
	case 4: // a workspace resource
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "vox-mcp://examples/README.md"
		res, err := c.ReadResource(ctx, req)
		if err != nil || len(res.Contents) != 1 {
			r.fail("worker %d op %d: read README.md: %v", w, i, err)
		} else if tc, ok := res.Contents[0].(mcp.TextResourceContents); !ok || !strings.HasPrefix(tc.Text, "# vox-mcp examples") {
			r.fail("worker %d op %d: README.md = %v", w, i, res.Contents[0])
		}
	case 5: // a skill resource
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "skill://index.json"
		if res, err := c.ReadResource(ctx, req); err != nil || len(res.Contents) != 1 {
			r.fail("worker %d op %d: read skill://index.json: %v", w, i, err)
		}
	case 6:
		switch r.session(w) {
		case ownSession:
			r.skillCycle(call, w, i)
		case noSession:
			want := "activating a skill needs a session: use stdio, or HTTP with Mcp-Session-Id; a request of protocol 2026-07-28 names its active skill in _meta[\"io.github.vox-lang/activeSkill\"]"
			if res, ok := call("vox_skill_use", map[string]any{"id": "soak-limited"}); ok && (!res.IsError || resultText(res) != want) {
				r.fail("worker %d op %d: vox_skill_use without a session: %s", w, i, resultText(res))
			}
		case sharedSession:
			// Over stdio the process is the one session: activating a
			// skill would restrict every worker. Ping instead.
			if err := c.Ping(ctx); err != nil {
				r.fail("worker %d op %d: ping: %v", w, i, err)
			}
		}
	case 7:
		switch w {
		case 0: // refresh while the others call workspace tools
			if res, ok := call("vox_workspace_mcp_refresh", map[string]any{}); ok && (res.IsError || !strings.Contains(resultText(res), `"tool_count":3`)) {
				r.fail("worker %d op %d: refresh: %s", w, i, resultText(res))
			}
		case 1: // a skill change: install, then remove
			name := fmt.Sprintf("soak-tmp-%d", i)
			md := fmt.Sprintf("---\nname: %s\ndescription: A temporary skill of the soak test, installed and removed again. Use in tests.\n---\n# Temporary\n", name)
			if res, ok := call("vox_skill_install", map[string]any{"skill_md": md}); ok && res.IsError {
				r.fail("worker %d op %d: install: %s", w, i, resultText(res))
			}
			if res, ok := call("vox_skill_remove", map[string]any{"id": name}); ok && res.IsError {
				r.fail("worker %d op %d: remove: %s", w, i, resultText(res))
			}
		default:
			if res, ok := call("vox_skill_list", map[string]any{}); ok && (res.IsError || !strings.Contains(resultText(res), `"id":"soak-limited"`)) {
				r.fail("worker %d op %d: vox_skill_list: %s", w, i, resultText(res))
			}
		}
	}
}

// skillCycle activates soak-limited in the worker's session, checks the
// allowlist both ways and clears it again; other sessions must not notice.
func (r *soakRun) skillCycle(call func(string, map[string]any) (*mcp.CallToolResult, bool), w, i int) {
	if res, ok := call("vox_skill_use", map[string]any{"id": "soak-limited"}); !ok || res.IsError {
		r.fail("worker %d op %d: vox_skill_use: %s", w, i, resultText(res))
		return
	}
	want := "Tool 'fibonacci' is not in skill 'soak-limited' allowlist [\"slugify\"]"
	if res, ok := call("fibonacci", map[string]any{"count": 2}); ok && (!res.IsError || resultText(res) != want) {
		r.fail("worker %d op %d: fibonacci under soak-limited: %s", w, i, resultText(res))
	}
	if res, ok := call("slugify", map[string]any{"title": "Allowed Here"}); ok && resultText(res) != "allowed-here" {
		r.fail("worker %d op %d: slugify under soak-limited: %s", w, i, resultText(res))
	}
	if res, ok := call("vox_skill_use", map[string]any{"id": ""}); ok && res.IsError {
		r.fail("worker %d op %d: clearing the skill: %s", w, i, resultText(res))
	}
}

// run starts operations until limit have been started or the deadline
// passed; it returns when every started operation has finished.
func (r *soakRun) run(limit int64, deadline time.Time) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range r.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				n := r.started.Add(1)
				if n > limit {
					r.started.Add(-1)
					return
				}
				r.op(ctx, w, int(n))
				r.done.Add(1)
			}
		}()
	}
	wg.Wait()
}

func (r *soakRun) soak() {
	t := r.t
	deadline := time.Now().Add(soakTimeLimit)
	r.run(soakWarmupOps, deadline)
	warm := r.rss()
	r.run(soakOpsPerRun, deadline)
	end := r.rss()

	if r.started.Load() != r.done.Load() {
		t.Errorf("%d operations started, %d finished: calls were lost", r.started.Load(), r.done.Load())
	}
	if n := r.failures.Load(); n > 0 {
		t.Errorf("%d of %d operations failed; the first:\n%s", n, r.done.Load(), strings.Join(r.firstErrors, "\n"))
	}
	if r.started.Load() < soakOpsPerRun {
		t.Logf("the time limit of %v ended the run early", soakTimeLimit)
	}
	t.Logf("%d operations by %d workers; server RSS %.1f MB after warm-up, %.1f MB at the end", r.done.Load(), len(r.clients), mb(warm), mb(end))
	if warm > 0 && float64(end) > soakRSSFactor*float64(warm)+soakRSSSlackMB*(1<<20) {
		t.Errorf("server memory grew from %.1f MB after warm-up to %.1f MB at the end (bound %.1f× + %d MB)", mb(warm), mb(end), soakRSSFactor, soakRSSSlackMB)
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// installSoakSkill installs soak-limited through the server.
func installSoakSkill(t *testing.T, c *client.Client) {
	t.Helper()
	res, err := callTool(context.Background(), c, "vox_skill_install", map[string]any{"skill_md": soakSkill})
	if err != nil || res.IsError {
		t.Fatalf("installing soak-limited: %v %s", err, resultText(res))
	}
}

func TestSoakHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs thousands of calls; run without -short")
	}
	root, skills := soakWorkspace(t)
	srv := startHTTPOn(t, root, "VOX_SKILL_ROOTS="+skills)
	// Two thirds of the clients use the initialize handshake with a
	// session each, the others the sessionless 2026-07-28 core.
	modern := func(w int) bool { return w%3 == 2 }
	r := &soakRun{t: t, session: func(w int) sessionKind {
		if modern(w) {
			return noSession
		}
		return ownSession
	}}
	for w := range soakWorkers {
		version := mcp.ProtocolVersion20251125
		if modern(w) {
			version = mcp.ProtocolVersion20260728
		}
		c := newHTTPClient(t, srv.URL, version)
		t.Cleanup(func() { c.Close() })
		r.clients = append(r.clients, c)
	}
	installSoakSkill(t, r.clients[0])
	r.rss = func() int64 { return rssOf(srv.cmd.Process.Pid) }
	r.soak()
}

func TestSoakStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs thousands of calls; run without -short")
	}
	root, skills := soakWorkspace(t)
	s := startStdio(t, root, serverEnv(t, "VOX_SKILL_ROOTS="+skills))
	installSoakSkill(t, s.client)
	r := &soakRun{t: t, rss: func() int64 { return rssOf(s.cmd.Process.Pid) }, session: func(int) sessionKind { return sharedSession }}
	for range soakWorkers {
		r.clients = append(r.clients, s.client) // one process, concurrent requests
	}
	r.soak()
}

// rssOf is rssBytes where /proc exists; elsewhere 0 turns the memory check off.
func rssOf(pid int) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	return rssBytes(pid)
}
