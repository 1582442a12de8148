package server

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// cachedWorkspace writes a workspace with greet, starts a server with a
// surface cache on it and waits for its first scan, which records the
// surface; it returns the root, the cache folder and the server's options.
func cachedWorkspace(t *testing.T) (root, cacheDir string, opts Options) {
	t.Helper()
	root, cacheDir, opts, _ = cachedWorkspaceOf(t, map[string]string{"tools/greet.vox": greetVox})
	return root, cacheDir, opts
}

// cachedWorkspaceOf is cachedWorkspace on files (beside the scan config),
// also returning the path of the one record the first scan wrote.
func cachedWorkspaceOf(t *testing.T, files map[string]string) (root, cacheDir string, opts Options, record string) {
	t.Helper()
	root, cacheDir = t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig})
	writeFiles(t, root, files)
	opts = Options{Root: root, Catalog: testCatalog(), Handlers: testTable, WorkspaceTools: true, SurfaceCacheDir: cacheDir}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	}
	records, _ := filepath.Glob(filepath.Join(cacheDir, "*.gob"))
	if len(records) != 1 {
		t.Fatalf("records after the first scan: %v", records)
	}
	return root, cacheDir, opts, records[0]
}

// TestSurfaceCacheServesTheLastScanAtTheNextStart: a start whose first
// scan is held back serves the surface the previous start recorded — the
// tool listed and callable — and the scan then replaces it.
func TestSurfaceCacheServesTheLastScanAtTheNextStart(t *testing.T) {
	_, _, opts := cachedWorkspace(t)
	block := make(chan struct{})
	firstScanGate = block
	t.Cleanup(func() { firstScanGate = nil })
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(block)
		s.WaitWorkspace(context.Background())
	}()
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	// The record is registered before New returns, the scan held back.
	if s.MCP().GetTool("greet") == nil {
		t.Fatal("the recorded surface was not served")
	}
	select {
	case <-s.workspace.ready:
		t.Fatal("the first scan ran although it was held back")
	default:
	}
	if _, ok := listedTools(t, s)["greet"]; !ok {
		t.Error("greet of the record is not listed")
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "greet", `{"name":"cache"}`)); isErr || text != "hello cache" {
		t.Errorf("greet of the record: %v %q", isErr, text)
	}
}

// TestSurfaceCacheDiscardsAStaleRecord: the record is served only while
// it describes the workspace — every file it names unchanged, the same
// scan config, root and build, a record that decodes — and never from
// inside the workspace.
func TestSurfaceCacheDiscardsAStaleRecord(t *testing.T) {
	root, cacheDir, _ := cachedWorkspace(t)
	load := func() error {
		t.Helper()
		c := newSurfaceCache(cacheDir, root)
		cfg, err := workspace.LoadConfig(root)
		if err != nil {
			t.Fatal(err)
		}
		_, _, why := c.load(cfg)
		return why
	}
	if err := load(); err != nil {
		t.Fatalf("a current record was refused: %v", err)
	}
	greet := filepath.Join(root, "tools", "greet.vox")
	records, _ := filepath.Glob(filepath.Join(cacheDir, "*.gob"))
	record, err := os.ReadFile(records[0])
	if err != nil {
		t.Fatal(err)
	}
	// rewritten is the record with one field changed.
	rewritten := func(change func(*surfaceRecord)) []byte {
		var rec surfaceRecord
		if err := gob.NewDecoder(bytes.NewReader(record)).Decode(&rec); err != nil {
			t.Fatal(err)
		}
		change(&rec)
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(rec); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, c := range []struct {
		name, want    string
		change, undo  func()
		recordChanged []byte
	}{
		{name: "an edited file", want: "tools/greet.vox changed since it was recorded",
			change: func() {
				writeFiles(t, root, map[string]string{"tools/greet.vox": strings.Replace(greetVox, "hello", "bye", 1)})
			},
			undo: func() { writeFiles(t, root, map[string]string{"tools/greet.vox": greetVox}) }},
		{name: "a removed file", want: "tools/greet.vox",
			change: func() { os.Remove(greet) },
			undo:   func() { writeFiles(t, root, map[string]string{"tools/greet.vox": greetVox}) }},
		{name: "another scan config", want: "the scan config " + workspace.ConfigPath + " changed",
			change: func() {
				writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig + "exclude_globs: [\"x/**\"]\n"})
			},
			undo: func() { writeFiles(t, root, map[string]string{workspace.ConfigPath: testScanConfig}) }},
		{name: "another build", want: "another vox-mcp build",
			recordChanged: rewritten(func(r *surfaceRecord) { r.Build += "x" })},
		{name: "another root", want: "the record is of root",
			recordChanged: rewritten(func(r *surfaceRecord) { r.Root = "/elsewhere" })},
		{name: "another format", want: "record format 3",
			recordChanged: rewritten(func(r *surfaceRecord) { r.Format = 3 })},
		{name: "a record that does not decode", want: "the record does not decode",
			recordChanged: record[:len(record)/2]},
	} {
		if c.change != nil {
			c.change()
		}
		if c.recordChanged != nil {
			if err := os.WriteFile(records[0], c.recordChanged, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := load(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
		if c.undo != nil {
			c.undo()
		}
		if err := os.WriteFile(records[0], record, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := load(); err != nil {
			t.Fatalf("after undoing %s: %v", c.name, err)
		}
	}
	if c := newSurfaceCache(filepath.Join(root, ".cache"), root); c != nil {
		t.Error("a cache folder inside the workspace was used")
	}
}

// TestSurfaceCacheRecordsOnlyAChange: a start whose scan finds what the
// record holds leaves the record as it is; one that finds more rewrites
// it.
func TestSurfaceCacheRecordsOnlyAChange(t *testing.T) {
	root, cacheDir, opts := cachedWorkspace(t)
	records, _ := filepath.Glob(filepath.Join(cacheDir, "*.gob"))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(records[0], old, old); err != nil {
		t.Fatal(err)
	}
	start := func() *workspace.Snapshot {
		t.Helper()
		s, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WaitWorkspace(context.Background()); err != nil {
			t.Fatal(err)
		}
		var rec surfaceRecord
		data, err := os.ReadFile(records[0])
		if err != nil || gob.NewDecoder(bytes.NewReader(data)).Decode(&rec) != nil {
			t.Fatalf("the record: %v", err)
		}
		return rec.Snapshot
	}
	start()
	if info, err := os.Stat(records[0]); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("an unchanged surface rewrote the record: %v", err)
	}
	writeFiles(t, root, map[string]string{"tools/more.vox": "@tool \"New\"\nfn added() to int { 3 }\n"})
	snap := start()
	if len(snap.Tools) != 2 || snap.Tools[0].Name != "added" {
		t.Errorf("the record after a new file: %+v", snap.Tools)
	}
}

// TestSurfaceCacheCallOfANewToolStartsTheCheck: the scan that checks a
// served record waits for the first tools/list, but a call of a tool the
// record does not have — a file added since — starts it and is served by
// it.
func TestSurfaceCacheCallOfANewToolStartsTheCheck(t *testing.T) {
	root, _, opts := cachedWorkspace(t)
	writeFiles(t, root, map[string]string{"tools/more.vox": "@tool \"New\"\nfn added() to int { 3 }\n"})
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.WaitWorkspace(context.Background())
	rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if s.MCP().GetTool("greet") == nil {
		t.Fatal("the recorded surface was not served")
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "added", `{}`)); isErr || text != "3" {
		t.Errorf("a tool of a file added since the record: %v %q", isErr, text)
	}
}
