package gen

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// TestRenderSnapshotOutputSchema: a tool with an object-shaped result
// keeps its outputSchema in the generated tables (docs/tool-results.md
// §2); a tool without one gets no OutputSchema field, so the tables of
// plain tools do not change.
func TestRenderSnapshotOutputSchema(t *testing.T) {
	snap := &workspace.Snapshot{Module: "m", Tools: []workspace.SnapshotTool{
		{Name: "counts", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"additionalProperties":{"type":"integer"},"type":"object"}`), Path: "a.vox", Line: 1},
		{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`), Path: "a.vox", Line: 4},
	}}
	src, err := renderWorkspace(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "workspace.go", src, 0); err != nil {
		t.Fatalf("the tables do not parse: %v\n%s", err, src)
	}
	if n := strings.Count(string(src), "OutputSchema: json.RawMessage("); n != 1 {
		t.Errorf("%d OutputSchema fields, want 1:\n%s", n, src)
	}
	if !strings.Contains(string(src), `"additionalProperties":{"type":"integer"}`) {
		t.Errorf("the outputSchema is missing:\n%s", src)
	}
}

// TestRenderSnapshotPrompts: workspace prompts, with their arguments,
// are part of the generated tables (docs/federation.md §6); a snapshot
// without prompts gets no Prompts field.
func TestRenderSnapshotPrompts(t *testing.T) {
	snap := &workspace.Snapshot{Module: "m", Prompts: []workspace.SnapshotPrompt{
		{Name: "ask", Description: "Ask", Arguments: []workspace.PromptArgument{{Name: "q", Required: true}, {Name: "tone"}},
			Completions: []workspace.Completion{{Param: "tone", Func: "tones"}}, Path: "a.vox", Line: 2, Hash: "h"},
	}, Resources: []workspace.SnapshotResource{
		{URI: "notes://{id}", Description: "Note", MIMEType: "text/plain", Func: "note", Variables: []string{"id"}, Path: "a.vox", Line: 5, Hash: "h"},
	}}
	src, err := renderWorkspace(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "workspace.go", src, 0); err != nil {
		t.Fatalf("the tables do not parse: %v\n%s", err, src)
	}
	flat := strings.Join(strings.Fields(string(src)), " ") // gofmt aligns the fields
	for _, want := range []string{"Prompts: []loader.SnapshotPrompt{", `Name: "q", Required: true,`, `Name: "tone", Required: false,`, `Path: "a.vox", Line: 2,`,
		`Func: "note", Variables: []string{ "id", }, Path:`,
		`Completions: []loader.Completion{ { Param: "tone", Func: "tones", }, },`} {
		if !strings.Contains(flat, want) {
			t.Errorf("%s is missing:\n%s", want, src)
		}
	}
	if src, _ := renderWorkspace(&workspace.Snapshot{Module: "m"}); strings.Contains(string(src), "Prompts") {
		t.Errorf("a snapshot without prompts has a Prompts field:\n%s", src)
	}
}
