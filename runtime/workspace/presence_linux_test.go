package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestPathPresenceChecksOnlyAfterChanges: while nothing changes above the
// paths, First answers from its last check; a change, even in a folder
// that did not exist at the last check, makes the next First check again.
func TestPathPresenceChecksOnlyAfterChanges(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "x", "y", "a"), filepath.Join(dir, "b")
	p := NewPathPresence([]string{a, b})
	if _, ok := p.First(); ok {
		t.Fatal("found a path in an empty folder")
	}
	c := p.checked.Load()
	if c.trust == 0 {
		t.Fatal("the first check is not trusted")
	}
	for i := range 3 {
		if _, ok := p.First(); ok || p.checked.Load() != c {
			t.Fatal("checked again although nothing changed")
		}
		// Other entries of the watched folders are no concern.
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint("other", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(a), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.First(); ok || p.checked.Load() == c {
		t.Fatal("not checked again after a change")
	}
	if err := os.Mkdir(a, 0o755); err != nil { // in x/y, which the first check could not watch
		t.Fatal(err)
	}
	if got, ok := p.First(); !ok || got != a {
		t.Fatalf("First = %q, %v after %s was created", got, ok, a)
	}
	if err := os.WriteFile(b, nil, 0o644); err != nil { // a file is no folder
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	if got, ok := p.First(); ok {
		t.Fatalf("First = %q after the folders were removed", got)
	}
}

// TestPathPresenceOfASymlinkAlwaysChecks: a path through a symlink is
// checked on every call (the target's folders are not watched).
func TestPathPresenceOfASymlinkAlwaysChecks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	p := NewPathPresence([]string{filepath.Join(link, "skills")})
	if _, ok := p.First(); ok {
		t.Fatal("found a missing path")
	}
	if p.checked.Load().trust != 0 {
		t.Fatal("a path through a symlink is trusted")
	}
	if err := os.Mkdir(filepath.Join(target, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.First(); !ok {
		t.Fatal("not found after creation through the symlink's target")
	}
}
