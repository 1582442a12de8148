package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRefreshPublishesOnlyChangedDefinitions: a refresh after an edit that
// leaves every definition as it was (a body, a comment) publishes nothing
// and the new body runs; an edit of a description, a line or a name
// publishes a new set in which the other tools keep their entries.
func TestRefreshPublishesOnlyChangedDefinitions(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{
		"tools/a.vox": "@tool \"A\"\nfn a_tool(x: int) to int { x + 1 }\n",
		"tools/b.vox": "@tool \"B\"\nfn b_tool() to str { \"b\" }\n",
		"tools/c.vox": "@tool \"C\"\nfn c_tool() to str { \"c\" }\n",
	})
	edit := func(rel, body string) {
		t.Helper()
		p := filepath.Join(s.Root(), "tools", rel)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(time.Duration(time.Now().UnixNano()%1000+1) * time.Second)
		os.Chtimes(p, mt, mt)
		if _, err := s.RefreshWorkspace(); err != nil {
			t.Fatal(err)
		}
	}
	set := s.currentTools()
	b, _ := set.lookup("b_tool")

	edit("a.vox", "@tool \"A\"\nfn a_tool(x: int) to int { x + 100 } // faster\n")
	if s.currentTools() != set {
		t.Error("a refresh that changed no definition published a new tool set")
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "a_tool", `{"x":1}`)); isErr || text != "101" {
		t.Errorf("a_tool after the body edit: %q %v", text, isErr)
	}

	edit("a.vox", "@tool \"A, described anew\"\nfn a_tool(x: int) to int { x + 100 }\n")
	next := s.currentTools()
	if next == set {
		t.Fatal("a changed description was not published")
	}
	if nb, _ := next.lookup("b_tool"); nb != b {
		t.Error("an unchanged tool got a new entry")
	}
	if d := listedTools(t, s)["a_tool"]["description"]; d != "A, described anew" {
		t.Errorf("listed description %v", d)
	}

	edit("a.vox", "\n\n@tool \"A, described anew\"\nfn a_tool(x: int) to int { x + 100 }\n")
	meta := listedTools(t, s)["a_tool"]["_meta"].(map[string]any)
	if meta["vox_source_line"] != float64(3) {
		t.Errorf("vox_source_line after the move: %v", meta["vox_source_line"])
	}

	edit("c.vox", "@tool \"C\"\nfn c_renamed() to str { \"c\" }\n")
	listed := listedTools(t, s)
	if _, ok := listed["c_tool"]; ok {
		t.Error("a renamed tool is still listed under its old name")
	}
	if _, ok := listed["c_renamed"]; !ok {
		t.Error("a renamed tool is not listed")
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "c_renamed", `{}`)); isErr || text != "c" {
		t.Errorf("c_renamed: %q %v", text, isErr)
	}
}
