package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// The @param lines of a workspace function's doc comment reach the client
// as the descriptions of its tool's inputSchema properties and of its
// prompt's arguments (docs/vox-language.md, Parameter descriptions).
func TestWorkspaceParamDescriptions(t *testing.T) {
	src := `# @param path the file, relative to the repository's root
# @param word what to look for
@tool "Count the lines that hold a word"
fn count_lines(path: str, word: str) to int { 0 }

# @param path the file to review
@mcp.prompt("Review a file")
fn review(path: str, focus: Option[str]) to str { path }
`
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/docs.vox": src})
	n := connect(t, s)
	ctx := context.Background()
	tools, err := n.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var schema []byte
	for _, tl := range tools.Tools {
		if tl.Name == "count_lines" {
			schema, _ = json.Marshal(tl.InputSchema)
		}
	}
	var got struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &got); err != nil {
		t.Fatalf("count_lines's inputSchema %s: %v", schema, err)
	}
	if d := got.Properties["path"].Description; d != "the file, relative to the repository's root" {
		t.Errorf("path's description %q in %s", d, schema)
	}
	if d := got.Properties["word"].Description; d != "what to look for" {
		t.Errorf("word's description %q in %s", d, schema)
	}

	prompts, err := n.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, p := range prompts.Prompts {
		if p.Name == "review" {
			for _, a := range p.Arguments {
				args = append(args, a.Name+"="+a.Description)
			}
		}
	}
	if strings.Join(args, ";") != "path=the file to review;focus=" {
		t.Errorf("review's arguments: %q", args)
	}
}
