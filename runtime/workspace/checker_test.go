package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A checker error keeps only its function off the surface, with the
// tools that call it: each is an entry of the refresh result's errors,
// and the rest of the file is served. A refresh that brings the error in
// by an edit (the incremental path) drops the tool too.
func TestCheckerErrorDropsOnlyItsTools(t *testing.T) {
	src := `fn label(n: int) to str { return n }

@tool "Uses the broken helper"
fn show(n: int) to str { label(n) }

@tool "Has its own error"
fn typo(name: str) to int { name.lenght() }

@tool "Fine"
fn fine() to int { 1 }

@mcp.resource("docs://r.md", "Broken resource")
fn doc() to str { label(1) }
`
	root := workspaceTree(t, cfgExamples, map[string]string{"tools/a.vox": src, "tools/b.vox": "@tool \"Other\"\nfn other() to int { 2 }\n"})
	l := &Loader{Root: root}
	s := load(t, l)
	if _, ok := s.Tool("fine"); !ok {
		t.Error("fine is not served")
	}
	for _, name := range []string{"show", "typo"} {
		if _, ok := s.Tool(name); ok {
			t.Errorf("%s is served", name)
		}
	}
	if s.Result.ToolCount != 2 || s.Result.ResourceCount != 0 {
		t.Errorf("counts %d %d", s.Result.ToolCount, s.Result.ResourceCount)
	}
	want := []FileError{
		{Path: "tools/a.vox", Message: "3:1: tool show is not served: 1:34: it uses function label, which has this error: label returns int here, but it is declared to return str [vox/return/type]"},
		{Path: "tools/a.vox", Message: "6:1: tool typo is not served: 7:34: no method lenght on str [vox/method/unknown]"},
		{Path: "tools/a.vox", Message: "12:1: resource docs://r.md is not served: 1:34: it uses function label, which has this error: label returns int here, but it is declared to return str [vox/return/type]"},
	}
	if got := s.Result.Errors; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("errors:\n%+v\nwant\n%+v", got, want)
	}

	// An edit that breaks b.vox's tool: the next refresh drops it.
	p := filepath.Join(root, "tools", "b.vox")
	os.WriteFile(p, []byte("@tool \"Other\"\nfn other() to int { return \"two\" }\n"), 0o644)
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	s = load(t, l)
	if _, ok := s.Tool("other"); ok {
		t.Error("other is served after the edit broke it")
	}
	last := s.Result.Errors[len(s.Result.Errors)-1]
	if last.Path != "tools/b.vox" || !strings.Contains(last.Message, "tool other is not served: 2:28: other returns str here") {
		t.Errorf("errors after the edit: %+v", s.Result.Errors)
	}
	// A call of a tool whose file broke meanwhile says so.
	os.WriteFile(filepath.Join(root, "tools", "a.vox"), []byte("@tool \"Fine\"\nfn fine() to int { return \"one\" }\n"), 0o644)
	os.Chtimes(filepath.Join(root, "tools", "a.vox"), future.Add(time.Hour), future.Add(time.Hour))
	tool, _ := s.Tool("fine")
	if _, err := s.ToolModule(tool); err == nil || !strings.Contains(err.Error(), "tool fine has an error now (2:27:") {
		t.Errorf("call after the edit: %v", err)
	}
}
