package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditsApplyOnTheNextCall edits a tool's file over and over and calls
// the tool right after each edit, with no pause and no refresh: every call
// runs the body just written (docs/federation.md §3), whether the file
// is rewritten in place, replaced by a rename (as editors save) or
// touched by a directory move and back. Where the server watches the
// workspace it skips the stat of unchanged files; the watch must never
// let a call run a stale body.
func TestEditsApplyOnTheNextCall(t *testing.T) {
	s := workspaceServer(t, Options{}, map[string]string{"tools/sub/value.vox": "@tool \"V\"\nfn value() to int { 0 }\n"})
	dir := filepath.Join(s.Root(), "tools", "sub")
	p := filepath.Join(dir, "value.vox")
	edits := 300
	if testing.Short() {
		edits = 60
	}
	for i := 1; i <= edits; i++ {
		// The padding makes every version's size differ: two writes in one
		// tick of the file system clock may share a modification time.
		src := fmt.Sprintf("@tool \"V\"\nfn value() to int { %d }\n// %s\n", i, strings.Repeat("x", i))
		switch i % 3 {
		case 0:
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		case 1:
			tmp := filepath.Join(dir, ".value.vox.tmp")
			if err := os.WriteFile(tmp, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		case 2:
			// Moved away and back: the directory's watch goes and the
			// server must stat until it watches it again.
			moved := filepath.Join(s.Root(), "tools", "moved")
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(moved, "value.vox"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(moved, dir); err != nil {
				t.Fatal(err)
			}
		}
		text, isErr, _ := toolResult(t, callTool(t, s, "value", `{}`))
		if isErr || text != fmt.Sprint(i) {
			t.Fatalf("call after edit %d answered %q (error %v)", i, text, isErr)
		}
		// A second call with nothing changed answers the same.
		if text, _, _ := toolResult(t, callTool(t, s, "value", `{}`)); text != fmt.Sprint(i) {
			t.Fatalf("second call after edit %d answered %q", i, text)
		}
		if i%20 == 0 {
			if _, err := s.RefreshWorkspace(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
