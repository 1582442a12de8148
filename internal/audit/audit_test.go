package audit_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/audit"
)

// TestRotationLosesNoLine writes from many goroutines into a log that
// rotates every few lines, then reads FILE and every FILE.k: each line
// written is there exactly once, whole, and each file is 0600 and within
// the size limit.
func TestRotationLosesNoLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const writers, each, maxSize = 8, 50, 1024
	// Enough rotated files to keep every line: ~200 bytes a line.
	log, err := audit.Open(path, audit.Options{MaxSize: maxSize, Keep: writers * each})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				log.Write(audit.Record{Start: time.Now(), Principal: "stdio", Session: "stdio", Action: audit.ActionToolCall,
					What: fmt.Sprintf("tool_%d_%d", w, i), Args: json.RawMessage(`{"a":1}`), Outcome: audit.OutcomeOK})
			}
		}()
	}
	wg.Wait()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	files := 0
	for k := 0; ; k++ {
		name := path
		if k > 0 {
			name += "." + strconv.Itoa(k)
		}
		f, err := os.Open(name)
		if os.IsNotExist(err) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		files++
		info, _ := f.Stat()
		if info.Mode().Perm() != 0o600 || info.Size() > maxSize {
			t.Errorf("%s: mode %v, size %d (max %d)", name, info.Mode().Perm(), info.Size(), maxSize)
		}
		for sc := bufio.NewScanner(f); sc.Scan(); {
			var l struct{ What string }
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("%s: a line that is no JSON: %q", name, sc.Text())
			}
			seen[l.What]++
		}
		f.Close()
	}
	if files < 10 {
		t.Errorf("%d files: the log did not rotate", files)
	}
	for w := range writers {
		for i := range each {
			if n := seen[fmt.Sprintf("tool_%d_%d", w, i)]; n != 1 {
				t.Errorf("tool_%d_%d written %d times", w, i, n)
			}
		}
	}
}

// TestKeepDropsTheOldest checks that at most Keep rotated files stay.
func TestKeepDropsTheOldest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{MaxSize: 1, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		log.Write(audit.Record{Start: time.Now(), Action: audit.ActionToolCall, What: fmt.Sprint("t", i), Outcome: audit.OutcomeOK})
	}
	log.Close()
	for k, want := range []string{"t4", "t3", "t2"} {
		name := path
		if k > 0 {
			name += "." + strconv.Itoa(k)
		}
		b, err := os.ReadFile(name)
		if err != nil || !strings.Contains(string(b), `"what":"`+want+`"`) {
			t.Errorf("%s: %q %v, want the line of %s", name, b, err, want)
		}
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("%s.3 kept beyond Keep=2: %v", path, err)
	}
}

// TestOpenRefusesASymlink: a link at the path is refused and its target
// left as it was.
func TestOpenRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("untouched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := audit.Open(link, audit.Options{}); err == nil || !strings.Contains(err.Error(), "is a symbolic link; refused") {
		t.Fatalf("Open of a symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched\n" {
		t.Errorf("the link's target changed: %q", b)
	}
}

// TestCanonicalArgs: the digest does not depend on key order or white
// space, and absent arguments digest as {}.
func TestCanonicalArgs(t *testing.T) {
	a := audit.ArgsDigest(json.RawMessage(`{"b": [1, 2.50], "a": "<x>"}`))
	b := audit.ArgsDigest(json.RawMessage(`{"a":"<x>","b":[1,2.50]}`))
	if a != b {
		t.Errorf("digests differ: %s %s", a, b)
	}
	if got := string(audit.Canonical(json.RawMessage(`{"b": [1, 2.50], "a": "<x>"}`))); got != `{"a":"<x>","b":[1,2.50]}` {
		t.Errorf("canonical %s", got)
	}
	if audit.ArgsDigest(nil) != audit.ArgsDigest(json.RawMessage(`{}`)) || audit.ArgsDigest(json.RawMessage(`null`)) != audit.ArgsDigest(json.RawMessage(` { } `)) {
		t.Error("absent or null arguments do not digest as {}")
	}
}
