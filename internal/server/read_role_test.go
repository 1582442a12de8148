package server

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// The read role is decided by what a request would run (docs/federation.md
// §8, Tokens): a request that the up-front check lets through but that
// would reach the repository's code — a route missed, or a prompt whose
// source changed between the check and the dispatch, which a skill-sourced
// entry with a workspace handler stands for here — is refused where the
// code would run, and the function does not run.
func TestReadRoleNeverRunsRepositoryCode(t *testing.T) {
	s := newRoleServer(t)
	s.promptSources = append(s.promptSources, fixedPrompts{
		{prompt: mcp.Prompt{Name: "sneaky", Description: "a skill prompt in name only"}, source: registry.SourceSkill, handler: s.workspace.promptHandler("vox_prompt")},
	})
	s.syncPrompts()
	reader, full := roleClients(t, s)

	get := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"sneaky","arguments":{"q":"ran"}}}`
	resp := reader.rpc(get)
	if e, ok := resp["error"].(map[string]any); !ok || !strings.Contains(fmt.Sprint(e["message"]), readRoleDoesNotRunCode) {
		t.Errorf("read role getting a prompt whose handler runs Vox: %v, want the error %q", resp, readRoleDoesNotRunCode)
	}
	if got := fmt.Sprint(full.rpc(get)["result"]); !strings.Contains(got, "text:ran") {
		t.Errorf("full access getting the same prompt: %s: the handler does not run Vox, the case shows nothing", got)
	}
}

// A URI in a reserved scheme is routed by its scheme, for every role: it
// never reaches a workspace template, an unserved one is
// resource-not-found (-32002), and the read role may read, subscribe and
// complete in it — never what would run a workspace function.
func TestReservedSchemeRouting(t *testing.T) {
	s := newRoleServer(t)
	reader, full := roleClients(t, s)
	for _, c := range []*httpClient{reader, full} {
		for _, uri := range []string{"skill://nothing/here", "SKILL://index.json", "skill:x"} {
			resp := c.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
			e, ok := resp["error"].(map[string]any)
			if !ok || e["code"] != float64(mcp.RESOURCE_NOT_FOUND) || fmt.Sprint(e["data"]) != "map[uri:"+uri+"]" {
				t.Errorf("%s reading %s: %v, want -32002 naming it", c.token, uri, resp)
			}
		}
	}
	// The skill file template is the server's; any other template in the
	// skill scheme is too, and has no values; a workspace template stays
	// the workspace's, which the read role may not complete.
	for uri, want := range map[string]string{
		SkillFileTemplate:      "",
		"SKILL://{id}":         "",
		"skill{+rest}":         "read role may not complete workspace resource skill{+rest}: use a full-access token",
		"notskill://{id}/x":    "read role may not complete workspace resource notskill://{id}/x: use a full-access token",
		"vox://notes/{id}":     "read role may not complete workspace resource vox://notes/{id}: use a full-access token",
		"vox://notes/{id}?x=1": "read role may not complete workspace resource vox://notes/{id}?x=1: use a full-access token",
	} {
		resp := reader.rpc(`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"` + uri + `"},"argument":{"name":"id","value":""}}}`)
		e, isErr := resp["error"].(map[string]any)
		switch {
		case want == "" && isErr:
			t.Errorf("read role completing %s: %v", uri, e)
		case want == "" && fmt.Sprint(resp["result"].(map[string]any)["completion"].(map[string]any)["values"]) != "[]":
			t.Errorf("read role completing %s: %v, want no values", uri, resp["result"])
		case want != "" && (!isErr || e["message"] != want):
			t.Errorf("read role completing %s: %v, want %q", uri, resp, want)
		}
	}
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		resp := reader.rpc(`{"jsonrpc":"2.0","id":4,"method":"` + method + `","params":{"uri":"Skill://demo/SKILL.md"}}`)
		if e, ok := resp["error"].(map[string]any); ok {
			t.Errorf("read role %s of a skill URI: %v", method, e)
		}
	}
	// The workspace's own template still serves its scheme.
	if got := fmt.Sprint(full.rpc(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"vox://notes/abc"}}`)["result"]); !strings.Contains(got, "text:abc") {
		t.Errorf("full access reading vox://notes/abc: %s", got)
	}
}

// roleClients serves s over HTTP with a full and a read token and returns
// an initialized client of each role.
func roleClients(t *testing.T, s *Server) (reader, full *httpClient) {
	t.Helper()
	ts := httptest.NewServer(s.HTTPHandler(Auth{Token: "full", ReadToken: "read"}))
	t.Cleanup(ts.Close)
	reader = &httpClient{t: t, url: ts.URL, token: "read"}
	reader.initialize()
	full = &httpClient{t: t, url: ts.URL, token: "full"}
	full.initialize()
	return reader, full
}
