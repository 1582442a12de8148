package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// stdioClient is a client of s over stdio whose first scan is held back
// by the gate firstScanGate until release is called (at the latest when
// the test ends, which then waits for the scan).
type stdioClient struct {
	t     *testing.T
	s     *Server
	send  func(msg string)
	lines chan string
}

// heldStart starts a server with opts, its first scan held back, and
// initializes a stdio session with it; release lets the scan go.
func heldStart(t *testing.T, opts Options) (c *stdioClient, release func()) {
	t.Helper()
	gate := make(chan struct{})
	firstScanGate = gate
	s, err := New(opts)
	firstScanGate = nil
	if err != nil {
		t.Fatal(err)
	}
	var once bool
	release = func() {
		if !once {
			once = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		release()
		s.WaitWorkspace(context.Background())
	})
	in, out := stdioPipes(t, s)
	c = &stdioClient{t: t, s: s, lines: make(chan string, 64), send: func(msg string) { fmt.Fprintln(in, msg) }}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.answer()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c, release
}

// next is the next message the server wrote, decoded.
func (c *stdioClient) next() map[string]any {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			c.t.Fatalf("%q: %v", l, err)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no message from the server within 20s")
		return nil
	}
}

// answer is the next answer the server wrote, past the notifications
// before it (list_changed of the scan the list waited for precedes it).
func (c *stdioClient) answer() map[string]any {
	c.t.Helper()
	for {
		if m := c.next(); m["id"] != nil {
			return m
		}
	}
}

// toolNames is the names listed in the tools/list answer m.
func toolNames(t *testing.T, m map[string]any) map[string]bool {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	tools, ok := res["tools"].([]any)
	if !ok {
		t.Fatalf("not a tools/list answer: %v", m)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.(map[string]any)["name"].(string)] = true
	}
	return names
}

// coldOptions are the options of a server on a workspace with greet and
// no surface cache: neither a snapshot nor a record can answer.
func coldOptions(t *testing.T) Options {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig, "tools/greet.vox": greetVox})
	return Options{Root: root, Catalog: testCatalog(), Handlers: testTable, WorkspaceTools: true}
}

// TestFirstListWaitsForTheFirstScan: on a cold start, a tools/list sent
// while the first scan is held back waits for it, and lists the
// workspace's tool. The scan is let go only once the list is waiting
// (it closed w.check), so without the wait the list would have been
// answered without greet.
func TestFirstListWaitsForTheFirstScan(t *testing.T) {
	for name, list := range map[string]string{
		"prepared": `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		// A cursor: mcp-go answers, not the prepared list.
		"mcp-go": `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":""}}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, release := heldStart(t, coldOptions(t))
			c.send(list)
			select {
			case <-c.s.workspace.check:
			case <-time.After(20 * time.Second):
				t.Fatal("the list did not wait for the first scan")
			}
			release()
			if names := toolNames(t, c.answer()); !names["greet"] || !names["vox_tool_search"] {
				t.Errorf("first list: %v, want greet and the catalog", names)
			}
		})
	}
}

// TestFirstListFromTheCacheAnswersAtOnce: with the surface cache's record
// the first list is answered while the first scan stays held back (the
// bound is longer than the test may run: a list that waited would not be
// answered), from the record.
func TestFirstListFromTheCacheAnswersAtOnce(t *testing.T) {
	old := firstListWait
	firstListWait = time.Hour
	t.Cleanup(func() { firstListWait = old })
	_, _, opts := cachedWorkspace(t)
	c, _ := heldStart(t, opts)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if names := toolNames(t, c.next()); !names["greet"] {
		t.Errorf("first list from the record: %v, want greet", names)
	}
	select {
	case <-c.s.workspace.ready:
		t.Error("the first scan ran although it was held back")
	default:
	}
}

// TestFirstListUnadvertisedAnswersAtOnce: without the opt-in the
// workspace tools are not listed, so a cold start's list has nothing to
// wait for: it is answered with the first scan held back and an hour's
// bound.
func TestFirstListUnadvertisedAnswersAtOnce(t *testing.T) {
	old := firstListWait
	firstListWait = time.Hour
	t.Cleanup(func() { firstListWait = old })
	opts := coldOptions(t)
	opts.WorkspaceTools = false
	c, _ := heldStart(t, opts)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if names := toolNames(t, c.answer()); names["greet"] || !names["vox_tool_search"] {
		t.Errorf("list without the opt-in: %v, want the catalog", names)
	}
}

// TestFirstListPastTheBound: past the bound the list is answered with
// what is registered (the catalog), and list_changed follows when the
// first scan installs greet, which the next list has.
func TestFirstListPastTheBound(t *testing.T) {
	old := firstListWait
	firstListWait = time.Millisecond
	t.Cleanup(func() { firstListWait = old })
	c, release := heldStart(t, coldOptions(t))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	names := toolNames(t, c.next())
	if names["greet"] || !names["vox_tool_search"] {
		t.Errorf("list past the bound: %v, want the catalog without greet", names)
	}
	release()
	if m := c.next(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("after the first scan: %v, want notifications/tools/list_changed", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if names := toolNames(t, c.answer()); !names["greet"] {
		t.Errorf("list after list_changed: %v, want greet", names)
	}
}
