package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
