package gates

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func problemLines(ps []Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Position()+": "+p.Message)
	}
	return strings.Join(out, "\n")
}

func TestSurfaceParityFindings(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/*.vox\"]\n",
		"tools/a.vox":        "@tool \"Greets\"\nfn greet() to str { \"hi\" }\n\n@tool\nfn quiet() to int { 1 }\n\n@tool \"Shadowing\"\nfn vox_tool_search() to int { 1 }\n\n@resource(\"docs://a.md\", \"\")\nfn doc() to str { \"a\" }\n",
		"tools/b.vox":        "@tool \"Again\"\nfn greet() to str { \"again\" }\n\n@resource(\"docs://a.md\", \"Second\")\nfn doc2() to str { \"b\" }\n",
		"tools/c.vox":        "@tool \"Bad\"\nfn bad( to int { 1 }\n",
	})
	r := SurfaceParity(root, func(n string) bool { return n == "vox_tool_search" })
	if r.OK {
		t.Fatal("the gate passed")
	}
	want := `tools/a.vox:4:1: workspace tool quiet has no description: write one after @tool (agents choose tools by it)
tools/a.vox:10:1: workspace resource docs://a.md has no description
tools/b.vox:1:1: duplicate workspace tool greet (first declared at tools/a.vox:1, which wins): rename one
tools/b.vox:4:1: duplicate workspace resource docs://a.md (first declared at tools/a.vox:10, which wins): change one URI
tools/c.vox:2:9: expected a name, found keyword to [vox/parse/syntax]`
	if got := problemLines(r.Problems); got != want {
		t.Errorf("problems:\n%s\nwant\n%s", got, want)
	}
	if got := problemLines(r.Warnings); got != "tools/a.vox:7:1: workspace tool vox_tool_search is shadowed by the catalog tool of the same name and is not served: rename it" {
		t.Errorf("warnings:\n%s", got)
	}
	b, _ := json.Marshal(r.Summary)
	if string(b) != `{"tool_count":2,"resource_count":1,"shadowed":["vox_tool_search"],"duplicate_tools":["greet"],"duplicate_resources":["docs://a.md"],"errors":[{"path":"tools/c.vox","message":"2:9: expected a name, found keyword to [vox/parse/syntax]"}],"tool_fixtures":0,"resource_fixtures":0,"snapshot":"absent"}` {
		t.Errorf("summary = %s", b)
	}
}

func TestSurfaceParitySnapshotAndConfig(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":             "module example.com/ws\n\ngo 1.26\n",
		workspace.ConfigPath: "scan_globs: [\"tools/*.vox\"]\n",
		"tools/a.vox":        "@tool \"Greets\"\nfn greet() to str { \"hi\" }\n",
	})
	r := SurfaceParity(root, nil)
	if !r.OK || r.SummaryLine() != "mcp-vox-surface-parity ok (1 workspace tools, 0 resources, 0 tool fixtures, 0 resource fixtures; no fixtures file, no fixtures run)" {
		t.Errorf("%s\n%s", r.SummaryLine(), problemLines(r.Problems))
	}
	if _, err := gen.Generate(root, true); err != nil {
		t.Fatal(err)
	}
	if r := SurfaceParity(root, nil); !r.OK || r.Summary.(*SurfaceParitySummary).Snapshot != "equal" {
		t.Errorf("after go generate: %s\n%s", r.SummaryLine(), problemLines(r.Problems))
	}
	writeTree(t, root, map[string]string{"tools/a.vox": "@tool \"Greets warmly\"\nfn greet() to str { \"hi\" }\n"})
	r = SurfaceParity(root, nil)
	if r.OK || r.Summary.(*SurfaceParitySummary).Snapshot != "stale" || !strings.Contains(problemLines(r.Problems), "generated/workspace/workspace.go: is stale: run: go generate ./...") {
		t.Errorf("stale snapshot: %s\n%s", r.SummaryLine(), problemLines(r.Problems))
	}
	writeTree(t, root, map[string]string{workspace.ConfigPath: "scan_globs: []\n"})
	r = SurfaceParity(root, nil)
	if r.OK || problemLines(r.Problems) != workspace.ConfigPath+":1:13: scan_globs: want at least 1 item(s), got 0" {
		t.Errorf("invalid config:\n%s", problemLines(r.Problems))
	}
	writeTree(t, root, map[string]string{workspace.ConfigPath: "scan_globs: [a]\n", workspace.FixturesPath: `{"schema_version": 1, "fixtures": [{"tool": "x", "bogus": 1}]}`})
	r = SurfaceParity(root, nil)
	if r.OK || !strings.Contains(problemLines(r.Problems), workspace.FixturesPath+`:1:50: unknown key "bogus" in fixtures[0]`) {
		t.Errorf("invalid fixtures:\n%s", problemLines(r.Problems))
	}
}

func TestSurfaceParityFixtures(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/*.vox\"]\n",
		"tools/a.vox": `@tool "Add two numbers"
fn add(a: int, b: int = 1) to int { a + b }

@tool "Fails on zero"
fn inv(x: int) {
    if x == 0 { return Err("zero has no inverse") }
    1.0 / x
}

@resource("docs://a.md", "A")
fn doc() to str { "# A" }
`,
		workspace.FixturesPath: `{"schema_version": 1, "fixtures": [
  {"tool": "add", "args": {"a": 2}, "expected": 3.0},
  {"tool": "inv", "args": {"x": 0}, "expect_error": "no inverse"},
  {"resource": "docs://a.md", "expected_body": "# A"},
  {"tool": "add", "args": {"a": 2}, "expected": 4},
  {"tool": "inv", "args": {"x": 2}, "expect_error": "no inverse"},
  {"tool": "inv", "args": {"x": 0}, "expect_error": "something else"},
  {"tool": "add", "args": {"c": 1}},
  {"tool": "missing"},
  {"resource": "docs://a.md", "expected_body": "# B"},
  {"resource": "docs://none.md"}
]}`,
	})
	r := SurfaceParity(root, nil)
	want := `contracts/mcp/workspace-tool-fixtures.v1.json:5:3: fixture 3: add returned 3, want 4
contracts/mcp/workspace-tool-fixtures.v1.json:6:3: fixture 4: inv succeeded with 0.5, want an error containing "no inverse"
contracts/mcp/workspace-tool-fixtures.v1.json:7:3: fixture 5: inv failed with "zero has no inverse", want an error containing "something else"
contracts/mcp/workspace-tool-fixtures.v1.json:8:3: fixture 6: add failed: unknown argument: c
contracts/mcp/workspace-tool-fixtures.v1.json:9:3: fixture 7: workspace tool missing is not in the surface
contracts/mcp/workspace-tool-fixtures.v1.json:10:3: fixture 8: docs://a.md has body "# A", want "# B"
contracts/mcp/workspace-tool-fixtures.v1.json:11:3: fixture 9: workspace resource docs://none.md is not in the surface`
	if got := problemLines(r.Problems); got != want {
		t.Errorf("problems:\n%s\nwant\n%s", got, want)
	}
	sum := r.Summary.(*SurfaceParitySummary)
	if sum.ToolFixtures != 7 || sum.ResourceFixtures != 3 || r.OK {
		t.Errorf("summary %+v ok=%v", sum, r.OK)
	}
}

// A tool a checker error keeps off the surface is a problem of the gate,
// at the tool's head, naming the error; the file's other tools pass.
func TestSurfaceParityCountsCheckerErrors(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		workspace.ConfigPath: "scan_globs: [\"tools/*.vox\"]\n",
		"tools/a.vox":        "@tool \"Fine\"\nfn fine() to int { 1 }\n\n@tool \"Wrong result\"\nfn wrong() to str { nope }\n",
	})
	r := SurfaceParity(root, nil)
	if r.OK {
		t.Fatal("the gate passed")
	}
	want := "tools/a.vox:4:1: tool wrong is not served: 5:21: undefined: nope [vox/name/undefined]"
	if got := problemLines(r.Problems); got != want {
		t.Errorf("problems:\n%s\nwant\n%s", got, want)
	}
	if r.Summary.(*SurfaceParitySummary).ToolCount != 1 {
		t.Errorf("summary: %+v", r.Summary)
	}
}
