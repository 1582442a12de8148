package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// mcpGoAnswer is mcp-go's own answer to msg, as its transports write it.
func mcpGoAnswer(t *testing.T, s *Server, msg string) string {
	t.Helper()
	b, err := json.Marshal(s.MCP().HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// preparedAnswer is the prepared answer to msg ("" when it is mcp-go's).
func preparedAnswer(t *testing.T, s *Server, msg string) string {
	t.Helper()
	var head rpcMessage
	if err := json.Unmarshal([]byte(msg), &head); err != nil {
		t.Fatal(err)
	}
	reply, ok := s.preparedToolsList([]byte(msg), &head)
	if !ok {
		return ""
	}
	return string(reply.bytes())
}

// TestPreparedToolsListIsMCPGos: a plain tools/list answered from the
// prepared bytes is byte for byte mcp-go's answer — hidden workspace
// tools left out as the AfterListTools hook leaves them out — and follows
// a refresh that changes the tools.
func TestPreparedToolsListIsMCPGos(t *testing.T) {
	for _, advertise := range []bool{false, true} {
		s := workspaceServer(t, Options{WorkspaceTools: advertise}, map[string]string{"tools/greet.vox": greetVox})
		requests := []string{
			`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":-12,"method":"tools/list","params":{}}`,
			`{"method":"tools/list","params":null,"id":"list-1","jsonrpc":"2.0"}`,
			`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{ }}`,
		}
		check := func(wantTool string) {
			t.Helper()
			for _, req := range requests {
				got, want := preparedAnswer(t, s, req), mcpGoAnswer(t, s, req)
				if got == "" {
					t.Fatalf("advertise=%v: %s was not answered from the prepared list", advertise, req)
				}
				if got != want {
					t.Errorf("advertise=%v: %s\nprepared: %s\nmcp-go:   %s", advertise, req, got, want)
				}
				if listed := strings.Contains(got, `"name":"`+wantTool+`"`); listed != advertise {
					t.Errorf("advertise=%v: %s listed: %v", advertise, wantTool, listed)
				}
			}
		}
		check("greet")
		writeFiles(t, s.Root(), map[string]string{"tools/more.vox": "@tool \"New\"\nfn added() to int { 3 }\n"})
		if text, isErr, _ := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`)); isErr {
			t.Fatal(text)
		}
		check("added")
	}
}

// TestToolsListReusesUnchangedTools: after a refresh that changed one
// file, the prepared list encodes that file's tool only — every other
// tool's JSON is the previous list's — and is still byte for byte
// mcp-go's answer; a list with many tools, encoded on every core, too.
func TestToolsListReusesUnchangedTools(t *testing.T) {
	files := map[string]string{"tools/greet.vox": greetVox}
	for i := range 150 {
		files[fmt.Sprintf("tools/t%03d.vox", i)] = fmt.Sprintf("@tool \"Add %d\"\nfn add_%03d(a: int) to int { a + %d }\n", i, i, i)
	}
	s := workspaceServer(t, Options{WorkspaceTools: true}, files)
	const req = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	check := func(wantEncoded int) {
		t.Helper()
		if got, want := preparedAnswer(t, s, req), mcpGoAnswer(t, s, req); got != want {
			t.Fatalf("prepared list differs from mcp-go's:\nprepared: %.300s\nmcp-go:   %.300s", got, want)
		}
		set := s.listed.Load()
		if set == nil {
			t.Fatal("no set is listed")
		}
		if wantEncoded >= 0 && set.encoded != wantEncoded {
			t.Fatalf("the list encoded %d tools; want %d", set.encoded, wantEncoded)
		}
	}
	// The first list: how many it encodes depends on which sets the
	// start registered before the scan's (the catalog's were listed,
	// and encoded, by the first).
	check(-1)
	writeFiles(t, s.Root(), map[string]string{"tools/t007.vox": "@tool \"Add seven, changed\"\nfn add_007(a: int) to int { a + 7 }\n"})
	if text, isErr, _ := toolResult(t, callTool(t, s, "vox_workspace_mcp_refresh", `{}`)); isErr {
		t.Fatal(text)
	}
	check(1)
	if got := preparedAnswer(t, s, req); !strings.Contains(got, "Add seven, changed") {
		t.Errorf("the list after the change does not hold it: %.300s", got)
	}
}

// TestToolsListLeftToMCPGo: a tools/list whose answer could
// depend on more than the tool set — a cursor, _meta (the request may be
// of protocol 2026-07-28), an id mcp-go writes back otherwise, another
// member — is left to mcp-go.
func TestToolsListLeftToMCPGo(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/greet.vox": greetVox})
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"Z3JlZXQ="}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1234567890123456,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a\u0041","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"<x>","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
		`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
	} {
		if got := preparedAnswer(t, s, req); got != "" {
			t.Errorf("%s was answered from the prepared list: %.80s…", req, got)
		}
	}
}

// TestPreparedToolsListWaitsForRegistration: while no registration with
// mcp-go succeeded there is nothing prepared to answer from.
func TestPreparedToolsListWaitsForRegistration(t *testing.T) {
	s := workspaceServer(t, Options{}, nil)
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if preparedAnswer(t, s, req) == "" {
		t.Fatal("a registered set is not answered from the prepared list")
	}
	s.listed.Store(nil)
	if got := preparedAnswer(t, s, req); got != "" {
		t.Errorf("answered from a prepared list while none is registered: %.80s…", got)
	}
}
