package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/server"
)

// requireIsolation skips a test on a host where the sandbox cannot
// isolate; TestSkillRun covers that host's fail-closed answer.
func requireIsolation(t *testing.T) {
	t.Helper()
	if rep := (sandbox.Config{}).SelfTest(context.Background()); rep.Err != nil {
		t.Skip("this host cannot isolate:", rep.Err)
	}
}

// A skill folder swapped for a symlink after start-up is not followed: the
// command does not run, and the secret it leads to never shows.
func TestSkillRunRefusesSwappedFolder(t *testing.T) {
	requireIsolation(t)
	for _, off := range []bool{false, true} {
		s, root := skillServer(t, server.Options{SkillSandboxOff: off}, "release-notes")
		secret := t.TempDir()
		if err := os.WriteFile(filepath.Join(secret, "secret"), []byte("TOP-SECRET"), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "release-notes")
		if err := os.Rename(dir, dir+".moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, dir); err != nil {
			t.Fatal(err)
		}
		text, isErr, _ := call(t, s, "vox_skill_run", `{"id":"release-notes","command":"cat skill/secret"}`)
		want := "skill release-notes: the command did not run: sandbox: open skill folder: " + dir +
			": a symlink is now on the path (too many levels of symbolic links): the folder is no longer the one discovered"
		if !isErr || text != want {
			t.Errorf("sandbox off %v: got %v %q, want %q", off, isErr, text, want)
		}
	}
}

// syncBuffer is a log destination safe for the self-test's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// Where no cgroup can be made (an empty cgroup root stands for such a
// host), commands still run and the start-up log warns; with
// VOX_SKILL_SANDBOX_REQUIRE=cgroups vox_skill_run fails closed.
func TestSkillRunWithoutCgroups(t *testing.T) {
	requireIsolation(t)
	var logs syncBuffer
	cgroupRoot := t.TempDir()
	s, _ := skillServer(t, server.Options{
		Logger:       slog.New(slog.NewTextHandler(&logs, nil)),
		SkillSandbox: sandbox.Config{CgroupRoot: cgroupRoot},
	}, "release-notes")
	text := ok(t, s, "vox_skill_run", `{"id":"release-notes","command":"echo ran"}`)
	if text != `{"exit_code":0,"stdout":"ran\n","stderr":"","timed_out":false,"truncated":false}` {
		t.Errorf("run: %s", text)
	}
	// The start-up goroutine logs once the self-test is done.
	warning := "sandbox: cgroups: memory none, pids none, cpu none, kill none (no cgroup file system of this process is mounted under " + cgroupRoot
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), warning) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), warning) {
		t.Errorf("no cgroup warning in the log:\n%s", logs.String())
	}

	required, _ := skillServer(t, server.Options{SkillSandbox: sandbox.Config{CgroupRoot: cgroupRoot, RequireCgroups: true}}, "release-notes")
	text, isErr, _ := call(t, required, "vox_skill_run", `{"id":"release-notes","command":"echo ran"}`)
	want := "requirement sandbox not met: vox_skill_run fails closed: sandbox: VOX_SKILL_SANDBOX_REQUIRE=cgroups, but this host gives no complete writable cgroup (memory none, pids none, cpu none, kill none: no cgroup file system of this process is mounted under " + cgroupRoot
	if !isErr || !strings.HasPrefix(text, want) {
		t.Errorf("required: got %v %q, want it to start %q", isErr, text, want)
	}
	// Then vox_skill_run is no longer listed, and vox_skill_discover says
	// why (docs/sandbox.md, "Where skill commands run").
	if tools := listed(t, required); tools["vox_skill_run"] || !tools["vox_skill_discover"] {
		t.Errorf("after the failed self-test, listed: vox_skill_run %v, vox_skill_discover %v", tools["vox_skill_run"], tools["vox_skill_discover"])
	}
	var found struct {
		Unavailable *string `json:"skill_run_unavailable"`
	}
	if err := json.Unmarshal([]byte(ok(t, required, "vox_skill_discover", `{}`)), &found); err != nil {
		t.Fatal(err)
	}
	if reason := strings.TrimPrefix(want, "requirement sandbox not met: "); found.Unavailable == nil || !strings.HasPrefix(*found.Unavailable, reason) {
		t.Errorf("discover: skill_run_unavailable = %v, want it to start %q", found.Unavailable, reason)
	}
}

// listed is the set of tool names a plain tools/list answers.
func listed(t *testing.T, s *server.Server) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, tl := range rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)["result"].(map[string]any)["tools"].([]any) {
		out[tl.(map[string]any)["name"].(string)] = true
	}
	return out
}

// vox_skill_run reports the bytes of output so far as progress to a client
// that sent a progress token, growing, the final count last; a client that
// cancels the call ends the command.
func TestSkillRunProgressAndCancellation(t *testing.T) {
	s, _ := skillServer(t, server.Options{SkillSandboxOff: true}, "release-notes")
	sess := &notifySession{id: "progress", ch: make(chan mcp.JSONRPCNotification, 1000)}
	ctx := s.MCP().WithContext(context.Background(), sess)
	send := func(msg string) []byte {
		b, _ := json.Marshal(s.MCP().HandleMessage(ctx, json.RawMessage(msg)))
		return b
	}
	out := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_skill_run","arguments":{"id":"release-notes","command":"printf abc; printf de >&2"},"_meta":{"progressToken":"run"}}}`)
	if !strings.Contains(string(out), `\"stdout\":\"abc\"`) {
		t.Fatalf("run: %s", out)
	}
	var values []float64
	for len(sess.ch) > 0 {
		n := <-sess.ch
		if n.Method == "notifications/progress" && n.Params.AdditionalFields["progressToken"] == "run" {
			values = append(values, n.Params.AdditionalFields["progress"].(float64))
		}
	}
	growing := len(values) >= 2
	for i := 1; i < len(values); i++ {
		growing = growing && values[i] > values[i-1]
	}
	if !growing || values[0] != 0 || values[len(values)-1] != 5 {
		t.Errorf("progress values %v, want 0 first, growing, 5 last", values)
	}

	done := make(chan []byte)
	go func() {
		done <- send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vox_skill_run","arguments":{"id":"release-notes","command":"echo started; sleep 60","timeout_ms":120000},"_meta":{"progressToken":"long"}}}`)
	}()
	for n := range sess.ch { // wait until the command wrote its line
		if n.Method == "notifications/progress" && n.Params.AdditionalFields["progress"].(float64) > 0 {
			break
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	if b := <-done; !strings.Contains(string(b), `\"timed_out\":true`) {
		t.Errorf("the cancelled run answered %s", b)
	}
}
