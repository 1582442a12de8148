package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestRefreshFromChangesOverTheWire: after each change of the workspace —
// an edit, a new, renamed and removed file, an edit of a file whose tool
// another file duplicates, a new folder — a refresh (which scans only the
// changed paths where the folders are watched, docs/federation.md §4)
// makes tools/list answer what a server started on the tree now answers,
// and tells the client list_changed exactly when the list changed.
func TestRefreshFromChangesOverTheWire(t *testing.T) {
	tool := func(name, desc string) string {
		return "@tool \"" + desc + "\"\nfn " + name + "(x: int = 1) to int { x + 1 }\n"
	}
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{
		"tools/a.vox":     tool("a_tool", "A"),
		"tools/b.vox":     tool("b_tool", "B"),
		"tools/sub/c.vox": tool("c_tool", "C"),
	})
	n := connect(t, s)
	root := s.Root()
	write := func(rel, src string) {
		t.Helper()
		writeFiles(t, root, map[string]string{rel: src})
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	listJSON := func(s *Server) string {
		resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		b, _ := json.Marshal(resp["result"])
		return string(b)
	}
	steps := []struct {
		name    string
		change  func()
		changes bool // the list changes
	}{
		{"a body edited", func() { write("tools/a.vox", "@tool \"A\"\nfn a_tool(x: int = 1) to int { x + 2 }\n") }, false},
		{"a description edited", func() { write("tools/sub/c.vox", tool("c_tool", "C, edited")) }, true},
		{"a file added", func() { write("tools/d.vox", tool("d_tool", "D")) }, true},
		{"a file renamed", func() { must(os.Rename(filepath.Join(root, "tools/d.vox"), filepath.Join(root, "tools/sub/e.vox"))) }, true},
		{"a duplicate added", func() { write("tools/sub/a2.vox", tool("a_tool", "A again")) }, false},
		{"the first of the duplicate edited", func() { write("tools/a.vox", tool("a_tool", "A, edited")) }, true},
		{"the first of the duplicate removed", func() { must(os.Remove(filepath.Join(root, "tools/a.vox"))) }, true},
		{"a file removed", func() { must(os.Remove(filepath.Join(root, "tools/b.vox"))) }, true},
		{"a new folder", func() { write("tools/new/f.vox", tool("f_tool", "F")) }, true},
	}
	count := func() int {
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(slices.DeleteFunc(slices.Clone(n.methods), func(m string) bool { return m != "notifications/tools/list_changed" }))
	}
	for _, step := range steps {
		before := count()
		step.change()
		if _, err := s.RefreshWorkspace(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		fresh, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, WorkspaceTools: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.WaitWorkspace(context.Background()); err != nil {
			t.Fatal(err)
		}
		rpc(t, fresh, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		if got, want := listJSON(s), listJSON(fresh); got != want {
			t.Fatalf("%s: tools/list after the refresh\n%s\nfrom a fresh server\n%s", step.name, got, want)
		}
		if step.changes {
			deadline := time.Now().Add(10 * time.Second)
			for count() == before && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if count() == before {
				t.Errorf("%s: no list_changed", step.name)
			}
		} else if count() != before {
			t.Errorf("%s: list_changed although the list did not change", step.name)
		}
	}
}

// TestRefreshRegistersOnlyWhatChanged: adding, removing and renaming
// files and tools among many others changes tools/list exactly as the
// workspace changed — the new tool listed, the removed one gone, every
// other tool in its place, by name, with the definition it had — and
// tells the client list_changed once per refresh that changed the list
// (mcp-go gets only the changed tools: AddTools, DeleteTools, or SetTools
// when a refresh both adds and removes names; docs/federation.md §4),
// never for a refresh that changed only bodies.
func TestRefreshRegistersOnlyWhatChanged(t *testing.T) {
	tool := func(name, desc string) string {
		return "@tool \"" + desc + "\"\nfn " + name + "(x: int = 1) to int { x + 1 }\n"
	}
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("tools/f%02d.vox", i)] = tool(fmt.Sprintf("t%02d", i), fmt.Sprintf("Tool %d", i))
	}
	s := workspaceServer(t, Options{WorkspaceTools: true}, files)
	n := connect(t, s)
	root := s.Root()
	ctx := context.Background()
	list := func() map[string]mcp.Tool {
		t.Helper()
		res, err := n.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(res.Tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) }) {
			t.Fatalf("tools/list is not sorted by name")
		}
		out := map[string]mcp.Tool{}
		for _, tl := range res.Tools {
			out[tl.Name] = tl
		}
		return out
	}
	// listChanged counts the list_changed notifications sent so far: a
	// marker notification sent after the refresh arrives after every
	// notification the refresh sent (one session, in order).
	marks := 0
	listChanged := func() int {
		t.Helper()
		marks++
		marker := fmt.Sprintf("notifications/test_marker_%d", marks)
		s.MCP().SendNotificationToAllClients(marker, nil)
		n.wait(t, marker)
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(slices.DeleteFunc(slices.Clone(n.methods), func(m string) bool { return m != "notifications/tools/list_changed" }))
	}
	source := func(tl mcp.Tool) string {
		return fmt.Sprint(tl.Meta.AdditionalFields["vox_source_path"])
	}
	steps := []struct {
		name          string
		change        func()
		added, gone   []string
		moved         map[string]string // tool → its new source path
		described     map[string]string // tool → its new description
		notifications int
	}{
		{name: "a file added", change: func() { writeFiles(t, root, map[string]string{"tools/f20b.vox": tool("new_tool", "New")}) },
			added: []string{"new_tool"}, notifications: 1},
		{name: "a file removed", change: func() { os.Remove(filepath.Join(root, "tools/f07.vox")) },
			gone: []string{"t07"}, notifications: 1},
		{name: "a file renamed", change: func() { os.Rename(filepath.Join(root, "tools/f20b.vox"), filepath.Join(root, "tools/g.vox")) },
			moved: map[string]string{"new_tool": "tools/g.vox"}, notifications: 1},
		{name: "a body edited", change: func() {
			writeFiles(t, root, map[string]string{"tools/f03.vox": "@tool \"Tool 3\"\nfn t03(x: int = 1) to int { x + 3 }\n"})
		}, notifications: 0},
		{name: "a description edited", change: func() { writeFiles(t, root, map[string]string{"tools/f04.vox": tool("t04", "Tool 4, edited")}) },
			described: map[string]string{"t04": "Tool 4, edited"}, notifications: 1},
		{name: "a tool added to a file", change: func() {
			writeFiles(t, root, map[string]string{"tools/f05.vox": tool("t05", "Tool 5") + "\n" + tool("t05b", "Tool 5b")})
		}, added: []string{"t05b"}, notifications: 1},
		{name: "a tool renamed", change: func() { writeFiles(t, root, map[string]string{"tools/f06.vox": tool("t06_renamed", "Tool 6")}) },
			added: []string{"t06_renamed"}, gone: []string{"t06"}, notifications: 1},
		{name: "a file added and another removed", change: func() {
			os.Remove(filepath.Join(root, "tools/f08.vox"))
			writeFiles(t, root, map[string]string{"tools/h.vox": tool("h_tool", "H")})
		}, added: []string{"h_tool"}, gone: []string{"t08"}, notifications: 1},
	}
	before := list()
	for _, step := range steps {
		count := listChanged()
		prev := s.workspace.surface.Load()
		step.change()
		if _, err := s.RefreshWorkspace(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		// Each of these refreshes merges only the changed files.
		if _, ok := s.workspace.surface.Load().ToolChanges(prev); !ok {
			t.Errorf("%s: the refresh merged the whole workspace", step.name)
		}
		after := list()
		if got := listChanged() - count; got != step.notifications {
			t.Errorf("%s: %d tools/list_changed, want %d", step.name, got, step.notifications)
		}
		want := maps.Clone(before)
		for _, name := range step.gone {
			delete(want, name)
		}
		for _, name := range step.added {
			tl, ok := after[name]
			if !ok {
				t.Fatalf("%s: %s is not listed", step.name, name)
			}
			want[name] = tl
		}
		for name, path := range step.moved {
			if got := source(after[name]); got != path {
				t.Errorf("%s: %s comes from %s, want %s", step.name, name, got, path)
			}
			want[name] = after[name]
		}
		for name, desc := range step.described {
			if got := after[name].Description; got != desc {
				t.Errorf("%s: %s is described %q, want %q", step.name, name, got, desc)
			}
			want[name] = after[name]
		}
		if !reflect.DeepEqual(after, want) {
			t.Fatalf("%s: tools/list has %d tools, want %d; added %v, removed %v", step.name, len(after), len(want), keysMissing(after, want), keysMissing(want, after))
		}
		for _, name := range step.gone {
			if resp := callTool(t, s, name, `{}`); resp["error"] == nil {
				t.Errorf("%s: the removed %s still runs: %v", step.name, name, resp)
			}
		}
		for _, name := range step.added {
			if text, isErr, _ := toolResult(t, callTool(t, s, name, `{"x": 1}`)); isErr || text != "2" {
				t.Errorf("%s: the new %s answers %q (error %v)", step.name, name, text, isErr)
			}
		}
		before = after
	}
}

// keysMissing lists the keys of a that b lacks.
func keysMissing[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
