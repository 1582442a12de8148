package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// langVox holds a workspace tool for each rule of docs/vox-language.md
// that once gave a silent wrong answer, and the core constructs a tool
// file uses: they are called over MCP with mcp-go's client.
const langVox = `
@tool "For binds the element, then the position"
fn loops(xs: list[str], m: map[str, int], s: str) {
    let mut out = []
    for x, i in xs { out.push("{i}:{x}") }
    for e in m { out.push(e) }
    for (k, v), i in m { out.push("{k}={v}@{i}") }
    for c in s { out.push(c) }
    let u = for x in xs { x }
    {out: out, unit: u}
}

@tool "Templates: {{ }} only in a template; descriptions keep {braces}"
fn braces(name: str) {
    ["}}", "{{x}}", "{{name}} is {name}", "{" + "\"k\": 1" + "}"]
}

@mcp.resource("notes://{id}", "The note {id}")
fn note(id: str) to str { 'note {id} ' + id }

@tool "Values are copied on write; write-back; push and pop"
fn values(xs: list[int]) {
    let mut a = xs
    let b = a
    a.push(99)
    let mut ys = [3, 1, 2]
    ys.push(4)
    ys.reverse()
    let last = ys.pop()
    ys = ys.push(9)
    let mut m = {k: [1]}
    let n = m
    m.k.push(2)
    m.insert("j", 0)
    {a: a, b: b, ys: ys, last: last, m: m, n: n}
}

type Item { name: str, price: dec, qty: Option[int] }

@tool "Records, decimals, in, guards, with"
fn order(items: list[Item], coupon: Option[str]) to str {
    let mut total = 0dec
    for it in items {
        let q = match it.qty { Some(n) if n > 0 => n, _ => 1 }
        total = total + it.price * q
    }
    let off = if coupon is Some("HALF") { "half" } else { "none" }
    let known = "HALF" in ["HALF", "TEN"]
    "{total} {off} {known}"
}
`

func TestWorkspaceLanguageOverMCP(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/lang.vox": langVox})
	n := connect(t, s)
	ctx := context.Background()
	call := func(name string, args map[string]any) string {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := n.c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: error result %+v", name, res.Content)
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"loops", map[string]any{"xs": []any{"a", "b"}, "m": map[string]any{"k": 1}, "s": "hé"},
			`{"out":["0:a","1:b",["k",1],"k=1@0","h","é"],"unit":null}`},
		{"braces", map[string]any{"name": "Ada"}, `["}}","{{x}}","{name} is Ada","{\"k\": 1}"]`},
		{"values", map[string]any{"xs": []any{1}},
			`{"a":[1,99],"b":[1],"ys":[4,2,1,9],"last":3,"m":{"k":[1,2],"j":0},"n":{"k":[1]}}`},
		{"order", map[string]any{"items": []any{
			map[string]any{"name": "a", "price": "19.99", "qty": 3},
			map[string]any{"name": "b", "price": 0.1},
		}, "coupon": "HALF"}, "60.07 half true"},
	} {
		if got := call(tc.name, tc.args); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}

	// Descriptions and URIs are never templates.
	tools, err := n.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var braces, order *mcp.Tool
	for i, tl := range tools.Tools {
		switch tl.Name {
		case "braces":
			braces = &tools.Tools[i]
		case "order":
			order = &tools.Tools[i]
		}
	}
	if braces == nil || braces.Description != "Templates: {{ }} only in a template; descriptions keep {braces}" {
		t.Errorf("braces tool = %+v", braces)
	}
	// A record parameter is an object schema with its fields.
	if order == nil {
		t.Fatal("order is not listed")
	}
	schema, _ := json.Marshal(order.RawInputSchema)
	if order.RawInputSchema == nil {
		schema, _ = json.Marshal(order.InputSchema)
	}
	const wantItems = `"items":{"items":{"additionalProperties":false,"properties":{"name":{"type":"string"},"price":{"type":"number"},"qty":{"type":"integer"}},"required":["name","price"],"type":"object"},"type":"array"}`
	if !json.Valid(schema) || !strings.Contains(string(schema), wantItems) {
		t.Errorf("order schema = %s", schema)
	}
	rr := mcp.ReadResourceRequest{}
	rr.Params.URI = "notes://7" // the URI is a template (docs/vox-language.md)
	res, err := n.c.ReadResource(ctx, rr)
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read notes://7: %v %+v", err, res)
	}
	if c, ok := res.Contents[0].(mcp.TextResourceContents); !ok || c.Text != "note {id} 7" {
		t.Errorf("notes://7 = %+v", res.Contents[0])
	}

	// A record argument missing a field is an argument error.
	req := mcp.CallToolRequest{}
	req.Params.Name = "order"
	req.Params.Arguments = map[string]any{"items": []any{map[string]any{"name": "a"}}}
	bad, err := n.c.CallTool(ctx, req)
	if err != nil || !bad.IsError || bad.Content[0].(mcp.TextContent).Text != "argument items[0]: missing field price of Item" {
		t.Errorf("missing field: %v %+v", err, bad)
	}
}
