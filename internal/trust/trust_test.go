package trust

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDigestCoversPowersOnly(t *testing.T) {
	a := Powers{Env: []string{"B", "A", "A"}, Write: []string{"out/**"}}
	b := Powers{Env: []string{"A", "B"}, Write: []string{"out/**", "out/**"}}
	if a.Digest() != b.Digest() {
		t.Error("order and repeats change the digest")
	}
	for _, c := range []Powers{{Env: []string{"A"}, Write: []string{"out/**"}}, {Env: []string{"A", "B"}}, {Env: []string{"A", "B"}, Write: []string{"**"}}, {}} {
		if c.Digest() == a.Digest() {
			t.Errorf("%v has the digest of %v", c, a)
		}
	}
	// An env name and a glob of the same text are different powers.
	if (Powers{Env: []string{"x"}}).Digest() == (Powers{Write: []string{"x"}}).Digest() {
		t.Error("env_allow x and write_globs x have one digest")
	}
}

func TestDecide(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	store := &Store{Path: filepath.Join(dir, "cfg", "vox-mcp", FileName)}
	req := Powers{Env: []string{"TOKEN", "HOME"}, Write: []string{"out/**"}}
	op := Operator{Env: []string{"HOME"}, Write: []string{"gen/*.vox"}}

	g := Decide(root, req, op, store)
	if g.State != Untrusted || strings.Join(g.Env, ",") != "HOME" || len(g.Write) != 0 || strings.Join(g.Withheld.Env, ",") != "TOKEN" ||
		strings.Join(g.Withheld.Write, ",") != "out/**" || strings.Join(g.OperatorWrite, ",") != "gen/*.vox" {
		t.Errorf("untrusted: %+v", g)
	}
	if !strings.Contains(g.Hint(), "vox trust "+g.Root) || g.Reason() != "this workspace is not trusted" {
		t.Errorf("untrusted: reason %q hint %q", g.Reason(), g.Hint())
	}
	// Trusted through another name of the folder.
	if _, err := store.Trust(link, req, time.Now()); err != nil {
		t.Fatal(err)
	}
	g = Decide(root, req, op, store)
	if g.State != Trusted || strings.Join(g.Env, ",") != "HOME,TOKEN" || strings.Join(g.Write, ",") != "out/**" || !g.Withheld.Empty() {
		t.Errorf("trusted: %+v", g)
	}
	g = Decide(root, Powers{Env: []string{"TOKEN", "AWS_KEY"}}, Operator{}, store)
	if g.State != Changed || len(g.Env) != 0 || !strings.Contains(g.Reason(), "other powers") {
		t.Errorf("changed: %+v", g)
	}
	if g := Decide(root, Powers{}, Operator{}, store); g.State != NothingAsked || !g.Withheld.Empty() {
		t.Errorf("nothing asked: %+v", g)
	}
	if g := Decide(root, req, Operator{}, nil); g.State != Untrusted || len(g.Env) != 0 {
		t.Errorf("no store: %+v", g)
	}
	if found, err := store.Revoke(link); err != nil || !found {
		t.Fatalf("revoke: %v %v", found, err)
	}
	if g := Decide(root, req, Operator{}, store); g.State != Untrusted {
		t.Errorf("revoked: %+v", g)
	}
	info, err := os.Stat(store.Path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("the records' mode is %v, want 0600", info.Mode().Perm())
	}
}

func TestRecordsOthersCanWriteGrantNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ACLs, not modes")
	}
	dir := t.TempDir()
	store := &Store{Path: filepath.Join(dir, FileName)}
	req := Powers{Env: []string{"TOKEN"}}
	if _, err := store.Trust(dir, req, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store.Path, 0o666); err != nil {
		t.Fatal(err)
	}
	g := Decide(dir, req, Operator{}, store)
	if g.State != Unreadable || len(g.Env) != 0 || !strings.Contains(g.Reason(), "writable by other users") {
		t.Errorf("group-writable records: %+v (%s)", g, g.Reason())
	}
	if err := os.WriteFile(store.Path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := Decide(dir, req, Operator{}, store); g.State != Unreadable || len(g.Env) != 0 {
		t.Errorf("broken records: %+v", g)
	}
	if _, err := store.Trust(dir, req, time.Now()); err == nil {
		t.Error("vox trust rewrote records it cannot read")
	}
}
