package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// TestFirstCallAfterStartIsNeverLost starts a server on a workspace of 500
// tools many times and calls a workspace tool at once, twice: right after
// initialize, and the moment the first scan's tool set is published (the
// window in which mcp-go had not registered it yet, where the call used to
// answer "tool not found"). Every call must answer.
func TestFirstCallAfterStartIsNeverLost(t *testing.T) {
	files := map[string]string{workspace.ConfigPath: testScanConfig}
	for f := range 50 {
		var src strings.Builder
		for i := range 10 {
			n := f*10 + i
			name := fmt.Sprintf("add_%03d", n)
			if n == 0 {
				name = "add"
			}
			fmt.Fprintf(&src, "@tool \"Add two integers\"\nfn %s(a: int, b: int) to int { a + b }\n\n", name)
		}
		files[fmt.Sprintf("tools/add%02d.vox", f)] = src.String()
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	starts := 150
	if testing.Short() {
		starts = 40
	}
	call := func(s *Server, id int) string {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":7}}}`, id, id)
		b, _ := json.Marshal(s.MCP().HandleMessage(context.Background(), json.RawMessage(msg)))
		return string(b)
	}
	for start := range starts {
		s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable, WorkspaceTools: true})
		if err != nil {
			t.Fatal(err)
		}
		atPublish := make(chan string, 1)
		go func() {
			for {
				if _, ok := s.currentTools().lookup("add"); ok {
					break
				}
				runtime.Gosched()
			}
			atPublish <- call(s, 2)
		}()
		rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		if got := call(s, 1); !strings.Contains(got, `"text":"8"`) {
			t.Errorf("start %d: the call made at once answered %s", start, got)
		}
		if got := <-atPublish; !strings.Contains(got, `"text":"9"`) {
			t.Errorf("start %d: the call made as the tool set was published answered %s", start, got)
		}
		if err := s.WaitWorkspace(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
