package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

const guideVox = `@mcp.resource("docs://guide", "The guide, from guides/intro.md")
fn guide() to str { fs.read("guides/intro.md")? }

@mcp.resource("docs://other", "Reads no file")
fn other() to str { "other" }
`

// With --watch, a subscribed workspace resource whose function read a data
// file hears notifications/resources/updated when that file changes
// (docs/federation.md §11), and a resource that did not read it hears
// nothing: the change is no change of the scan, so nothing is refreshed.
func TestResourceHearsOfTheFilesItRead(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/guide.vox": guideVox, "guides/intro.md": "# Guide v0\n"})
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- s.WatchWorkspace(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watched; err != nil {
			t.Error(err)
		}
	})

	subscriber := &logSession{id: "subscriber", ch: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.MCP().RegisterSession(context.Background(), subscriber); err != nil {
		t.Fatal(err)
	}
	sctx := s.MCP().WithContext(context.Background(), subscriber)
	send := func(id int, method, uri string) string {
		t.Helper()
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":%q}}`, id, method, uri)
		pass, reply, answered := s.preDispatch(sctx, []byte(msg), false)
		if answered {
			t.Fatalf("the shim answered %s: %s", msg, reply)
		}
		b, _ := json.Marshal(s.MCP().HandleMessage(sctx, pass))
		if strings.Contains(string(b), `"error"`) {
			t.Fatalf("%s: %s", msg, b)
		}
		return string(b)
	}
	send(1, "resources/subscribe", "docs://guide")
	send(2, "resources/subscribe", "docs://other")
	if got := send(3, "resources/read", "docs://guide"); !strings.Contains(got, `# Guide v0`) {
		t.Fatalf("read: %s", got)
	}
	send(4, "resources/read", "docs://other")
	if got := updatedURIs(subscriber); len(got) != 0 {
		t.Fatalf("told before any change: %v", got)
	}

	// The watcher adds the folder of a file read after the read, on its
	// own goroutine: the file is written again until the notification
	// comes, each write waited for a bounded time.
	guide := filepath.Join(s.Root(), "guides", "intro.md")
	var got []string
	for i := 1; i <= 20 && len(got) == 0; i++ {
		if err := os.WriteFile(guide, []byte(fmt.Sprintf("# Guide v%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-subscriber.ch:
			if n.Method == string(mcp.MethodNotificationResourceUpdated) {
				got = append(got, fmt.Sprint(n.Params.AdditionalFields["uri"]))
			}
		case <-time.After(time.Second):
		}
	}
	got = append(got, updatedURIs(subscriber)...)
	if len(got) == 0 || got[0] != "docs://guide" {
		t.Fatalf("no notifications/resources/updated for docs://guide after guides/intro.md changed: %v", got)
	}
	for _, u := range got {
		if u != "docs://guide" {
			t.Errorf("told %s, which read no changed file", u)
		}
	}
	if got := send(5, "resources/read", "docs://guide"); strings.Contains(got, `# Guide v0`) {
		t.Errorf("read after the change: %s", got)
	}
}

// The files kept are bounded by URIs; a read that reads nothing forgets
// the URI, and only the readers of a changed file are named.
func TestResourceReadsBounds(t *testing.T) {
	r := newResourceReads()
	for i := range maxReadURIs + 10 {
		r.record(fmt.Sprintf("notes://%d", i), []string{fmt.Sprintf("notes/%d.md", i)})
	}
	if n := len(r.files()); n != maxReadURIs {
		t.Errorf("%d files kept, want %d", n, maxReadURIs)
	}
	if got := r.readers([]string{"notes/7.md", fmt.Sprintf("notes/%d.md", maxReadURIs+1)}); fmt.Sprint(got) != "[notes://7]" {
		t.Errorf("readers = %v", got)
	}
	r.record("notes://7", nil)
	if got := r.readers([]string{"notes/7.md"}); len(got) != 0 {
		t.Errorf("a URI that read nothing the last time is still a reader: %v", got)
	}
	r.record("notes://new", []string{"a.md"}) // room again
	if got := r.readers([]string{"a.md"}); fmt.Sprint(got) != "[notes://new]" {
		t.Errorf("readers = %v", got)
	}
}
