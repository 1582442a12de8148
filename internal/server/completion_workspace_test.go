package server

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

const completeVox = `fn note_ids() to list[str] {
    ["alpha", "Beta", "alphabet", "gamma-alpha", "delta"]
}

fn many() to list[str] {
    let mut out = []
    for i in range(150) { out.push("n{i}") }
    out
}

fn broken_list() to list[str] {
    let xs: list[str] = []
    while true { xs.len() }
    xs
}

@mcp.resource("notes://{id}", "A note")
@mcp.complete("id", note_ids)
fn note(id: str) to str { "note " + id }

@mcp.resource("big://{n}/{m}", "Many")
@mcp.complete("n", many)
fn big(n: str, m: str) to str { n + m }

@mcp.prompt("Summarize a note")
@mcp.complete("id", note_ids)
@mcp.complete("style", broken_list)
fn summarize(id: str, style: Option[str]) to str { "summarize " + id }
`

// completion/complete of a workspace template variable or prompt argument
// runs its @mcp.complete function through the call path and its limits
// (docs/vox-language.md, Completion): its values that contain what the
// client typed, case-insensitively, those starting with it first, at most
// 100 with the total and hasMore; a variable without a function has none;
// a function that fails is an error naming the failure.
func TestWorkspaceCompletion(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/c.vox": completeVox})
	n := connect(t, s)
	ctx := context.Background()
	complete := func(ref any, name, value string) (*mcp.Completion, error) {
		req := mcp.CompleteRequest{}
		req.Params.Ref = ref
		req.Params.Argument.Name, req.Params.Argument.Value = name, value
		res, err := n.c.Complete(ctx, req)
		if err != nil {
			return nil, err
		}
		return &res.Completion, nil
	}
	notes := mcp.ResourceReference{Type: "ref/resource", URI: "notes://{id}"}
	c, err := complete(notes, "id", "AL")
	if err != nil || strings.Join(c.Values, " ") != "alpha alphabet gamma-alpha" || c.Total != 3 || c.HasMore {
		t.Errorf("notes id AL: %+v, %v", c, err)
	}
	c, err = complete(mcp.PromptReference{Type: "ref/prompt", Name: "summarize"}, "id", "b")
	if err != nil || strings.Join(c.Values, " ") != "Beta alphabet" {
		t.Errorf("summarize id b: %+v, %v", c, err)
	}
	c, err = complete(mcp.ResourceReference{Type: "ref/resource", URI: "big://{n}/{m}"}, "n", "")
	if err != nil || len(c.Values) != 100 || c.Total != 150 || !c.HasMore || c.Values[0] != "n0" {
		t.Errorf("big n: %d values, total %d, hasMore %v, %v", len(c.Values), c.Total, c.HasMore, err)
	}
	c, err = complete(mcp.ResourceReference{Type: "ref/resource", URI: "big://{n}/{m}"}, "m", "x")
	if err != nil || len(c.Values) != 0 {
		t.Errorf("a variable without a function: %+v, %v", c, err)
	}
	if _, err = complete(mcp.PromptReference{Type: "ref/prompt", Name: "summarize"}, "style", ""); err == nil || !strings.Contains(err.Error(), "steps limit of") {
		t.Errorf("a completion function past its step limit: %v", err)
	}
}
