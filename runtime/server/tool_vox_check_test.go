package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVoxCheck(t *testing.T) {
	s := newServer(t, nil)
	for rel, body := range map[string]string{
		"tools/greet.vox": "@tool \"Greet someone by name\"\nfn greet(name: str) to str { \"hello \" + name }\n",
		"tools/bad.vox":   "@tool \"Bad\"\nfn bad( to int { 1 }\n",
	} {
		p := filepath.Join(s.Root(), filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	_, isErr, structured := toolResult(t, callTool(t, s, "vox_check", `{"path":"tools/greet.vox"}`))
	if got, _ := json.Marshal(structured); isErr || string(got) != `{"diagnostics":[],"ok":true}` {
		t.Errorf("good file: %s", got)
	}
	_, _, structured = toolResult(t, callTool(t, s, "vox_check", `{"path":"tools/bad.vox"}`))
	if got, _ := json.Marshal(structured); string(got) != `{"diagnostics":[{"code":"vox/parse/syntax","col":9,"line":2,"message":"expected a name, found keyword to","path":"tools/bad.vox","severity":"error"}],"ok":false}` {
		t.Errorf("bad file: %s", got)
	}
	_, _, structured = toolResult(t, callTool(t, s, "vox_check", `{"source":"@mcp.tool \"Old\"\nfn old() to int { 1 }\n"}`))
	res := structured.(map[string]any)
	d := res["diagnostics"].([]any)
	if res["ok"] != true || len(d) != 1 || d[0].(map[string]any)["severity"] != "warning" || d[0].(map[string]any)["path"] != "<source>" {
		t.Errorf("source with a warning: %v", res)
	}
	outside := filepath.Join(t.TempDir(), "x.vox")
	os.WriteFile(outside, []byte("@tool \"x\"\nfn x() to int { 1 }\n"), 0o644)
	os.Symlink(outside, filepath.Join(s.Root(), "tools", "link.vox"))
	for args, want := range map[string]string{
		`{}`:                                  "give exactly one of path",
		`{"path":"a.vox","source":"x"}`:       "give exactly one of path",
		`{"path":"../x.vox"}`:                 "path ../x.vox is outside the workspace",
		`{"path":"tools/link.vox"}`:           "path tools/link.vox is outside the workspace",
		`{"path":` + jsonQuote(outside) + `}`: "give a path relative to the workspace root",
		`{"path":"tools/none.vox"}`:           "path tools/none.vox: no such file in the workspace",
	} {
		text, isErr, _ := toolResult(t, callTool(t, s, "vox_check", args))
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("vox_check %s = %v %q, want an error containing %q", args, isErr, text, want)
		}
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
