package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

const templatesVox = `@mcp.resource("test://template/{id}/data", "Data for an id", "application/json")
fn template_data(id: str) to str {
    json.stringify({id: id, templateTest: true, data: "Data for ID: {id}"})
}

@mcp.resource("files://{+path}", "A file by path")
fn file_at(path: str) to str { "file " + path }

@mcp.resource("files://{+rest}", "Never reached: files://{+path} is declared first")
fn shadowed(rest: str) to str { "shadowed " + rest }

@resource("docs://plain.md", "A plain resource")
fn plain() to str { "# Plain" }

@mcp.resource("fail://{id}", "Fails")
fn failing(id: str) to Result[str, str] { Err("no note " + id) }
`

// Workspace resources with URI parameters (docs/vox-language.md,
// Resources with URI parameters) are resource templates on the MCP wire:
// listed in resources/templates/list beside nothing else of theirs, read
// by URI with the decoded variables, the first declared winning a URI two
// templates match; a URI that none matches is -32002 with data.uri; a
// refresh updates the list and says so.
func TestWorkspaceResourceTemplates(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/t.vox": templatesVox})
	n := connect(t, s)
	ctx := context.Background()

	lt, err := n.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var data *mcp.ResourceTemplate
	for i, tp := range lt.ResourceTemplates {
		names = append(names, tp.Name+"="+tp.URITemplate.Raw())
		if tp.Name == "template_data" {
			data = &lt.ResourceTemplates[i]
		}
	}
	if got := strings.Join(names, " "); got != "failing=fail://{id} file_at=files://{+path} shadowed=files://{+rest} skill-file=skill://{id}/{+path} template_data=test://template/{id}/data" {
		t.Fatalf("templates: %s", got)
	}
	if data.MIMEType != "application/json" || data.Description != "Data for an id" || data.Meta.AdditionalFields["vox_source"] != "workspace" ||
		data.Meta.AdditionalFields["vox_source_path"] != "tools/t.vox" {
		t.Errorf("template_data: %+v %+v", data, data.Meta)
	}
	lr, err := n.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lr.Resources {
		if strings.Contains(r.URI, "{") {
			t.Errorf("a template is listed as a resource: %s", r.URI)
		}
	}

	read := func(uri string) (mcp.TextResourceContents, error) {
		t.Helper()
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := n.c.ReadResource(ctx, req)
		if err != nil {
			return mcp.TextResourceContents{}, err
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%s: %d contents", uri, len(res.Contents))
		}
		return res.Contents[0].(mcp.TextResourceContents), nil
	}
	c, err := read("test://template/123/data")
	if err != nil || c.URI != "test://template/123/data" || c.MIMEType != "application/json" ||
		c.Text != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
		t.Errorf("test://template/123/data: %+v, %v", c, err)
	}
	if c, err := read("files://a%20b/c.md"); err != nil || c.Text != "file a b/c.md" {
		t.Errorf("the first declared template serves a URI two match: %+v, %v", c, err)
	}
	if _, err := read("fail://x"); err == nil || !strings.Contains(err.Error(), "no note x") {
		t.Errorf("a failing template read: %v", err)
	}

	// Through the shim, as both transports dispatch: a URI no template
	// matches is -32002 with data.uri; one that matches goes to mcp-go.
	for uri, want := range map[string]string{"test://template/1/2/data": "missing", "test://template//data": "missing", "test://template/7/data": "served"} {
		raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":%q}}`, uri)
		_, reply, answered := s.preDispatch(ctx, []byte(raw), false)
		if want == "served" {
			if answered {
				t.Errorf("%s: answered by the shim: %s", uri, reply)
			}
			continue
		}
		var resp struct {
			Error struct {
				Code int
				Data map[string]string
			}
		}
		if !answered || json.Unmarshal(reply, &resp) != nil || resp.Error.Code != -32002 || resp.Error.Data["uri"] != uri {
			t.Errorf("%s: %s, want -32002 with data.uri", uri, reply)
		}
	}

	// A refresh that removes a template lists the rest and notifies.
	n.mu.Lock()
	n.methods = nil
	n.mu.Unlock()
	src := strings.Replace(templatesVox, "@mcp.resource(\"files://{+rest}\"", "@mcp.resource(\"other://{+rest}\"", 1)
	if err := os.WriteFile(filepath.Join(s.Root(), "tools", "t.vox"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshWorkspace(); err != nil {
		t.Fatal(err)
	}
	n.wait(t, "notifications/resources/list_changed")
	lt, err = n.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, tp := range lt.ResourceTemplates {
		names = append(names, tp.URITemplate.Raw())
	}
	if got := strings.Join(names, " "); got != "fail://{id} files://{+path} other://{+rest} skill://{id}/{+path} test://template/{id}/data" {
		t.Errorf("templates after the refresh: %s", got)
	}
	if c, err := read("other://x/y"); err != nil || c.Text != "shadowed x/y" {
		t.Errorf("the renamed template: %+v, %v", c, err)
	}
}
