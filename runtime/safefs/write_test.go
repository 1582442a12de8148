package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeWays runs a test with each way ReplaceFile can take here: openat2
// (where the kernel has it), the O_NOFOLLOW component walk, and the
// os.Root walk that Windows uses.
func writeWays(t *testing.T, test func(t *testing.T, write func(r *Root, rel string, data []byte) error)) {
	t.Run("default", func(t *testing.T) {
		test(t, func(r *Root, rel string, data []byte) error { return r.ReplaceFile(rel, data, 0o644) })
	})
	if useOpenat2() {
		t.Run("no-openat2", func(t *testing.T) {
			forceFallback = true
			defer func() { forceFallback = false }()
			test(t, func(r *Root, rel string, data []byte) error { return r.ReplaceFile(rel, data, 0o644) })
		})
	}
	t.Run("os.Root", func(t *testing.T) {
		test(t, func(r *Root, rel string, data []byte) error {
			if err := checkRel(rel); err != nil {
				return pathError("write", rel, err)
			}
			return r.replaceRooted(filepath.ToSlash(filepath.Clean(rel)), data, 0o644)
		})
	})
}

func TestReplaceFileFollowsNoLink(t *testing.T) {
	writeWays(t, func(t *testing.T, write func(*Root, string, []byte) error) {
		base, r := tree(t)
		root := filepath.Join(base, "root")
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		// A folder inside the root reached through a link that stays
		// inside, as out/g -> ../.git in a repository.
		must(os.MkdirAll(filepath.Join(root, ".git"), 0o755))
		must(os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644))
		must(os.MkdirAll(filepath.Join(root, "out"), 0o755))
		must(os.Symlink("../.git", filepath.Join(root, "out", "g")))
		must(os.Symlink("sub", filepath.Join(root, "sublink")))

		for _, c := range []struct{ rel, refused string }{
			{"out/g/config", "out/g"},
			{"out/g/hooks/pre-commit", "out/g"},
			{"sublink/a.txt", "sublink"},
			{"up/secret", "up"},
			{"inside", "inside"},
			{"relative-out", "relative-out"},
			{"absolute-out", "absolute-out"},
		} {
			err := write(r, c.rel, []byte("owned"))
			var pe *fs.PathError
			if !errors.Is(err, ErrSymlink) || !errors.As(err, &pe) || pe.Path != c.refused {
				t.Errorf("write %s: got %v, want ErrSymlink at %s", c.rel, err, c.refused)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(b) != "[core]\n" {
			t.Errorf(".git/config was rewritten: %q", b)
		}
		if _, err := os.Stat(filepath.Join(root, ".git", "hooks")); err == nil {
			t.Error(".git/hooks was created through the link")
		}
		if b, _ := os.ReadFile(filepath.Join(base, "secret")); string(b) != "TOP-SECRET" {
			t.Errorf("the secret outside was rewritten: %q", b)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "sub", "a.txt")); string(b) != "hello" {
			t.Errorf("sub/a.txt was rewritten through a link: %q", b)
		}
		if l, err := os.Readlink(filepath.Join(root, "inside")); err != nil || l != "sub/a.txt" {
			t.Errorf("the link inside was replaced: %q %v", l, err)
		}
	})
}

func TestReplaceFileWritesWhole(t *testing.T) {
	writeWays(t, func(t *testing.T, write func(*Root, string, []byte) error) {
		base, r := tree(t)
		root := filepath.Join(base, "root")
		if err := write(r, "new/deep/x.txt", []byte("one")); err != nil {
			t.Fatal(err)
		}
		if err := write(r, "new/deep/x.txt", []byte("two")); err != nil {
			t.Fatal(err)
		}
		if err := write(r, "sub/a.txt", []byte("replaced")); err != nil {
			t.Fatal(err)
		}
		for rel, want := range map[string]string{"new/deep/x.txt": "two", "sub/a.txt": "replaced"} {
			if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err != nil || string(b) != want {
				t.Errorf("%s: %q %v, want %q", rel, b, err, want)
			}
		}
		entries, _ := os.ReadDir(filepath.Join(root, "new", "deep"))
		for _, e := range entries {
			if strings.Contains(e.Name(), ".vox-write-") {
				t.Errorf("a temporary file was left: %s", e.Name())
			}
		}
		// Not a regular file, not a folder, outside: refused, nothing made.
		if runtime.GOOS != "windows" {
			if err := write(r, "fifo", []byte("x")); !errors.Is(err, ErrNotRegular) {
				t.Errorf("write fifo: %v, want ErrNotRegular", err)
			}
		}
		if err := write(r, "sub/a.txt/x", []byte("x")); err == nil {
			t.Error("write below a file succeeded")
		}
		if err := write(r, "sub", []byte("x")); err == nil {
			t.Error("write over a folder succeeded")
		}
		for _, rel := range []string{"../escape", "/abs", ".", "a\\b"} {
			if err := write(r, rel, []byte("x")); err == nil {
				t.Errorf("write %q succeeded", rel)
			}
		}
		if _, err := os.Stat(filepath.Join(base, "escape")); err == nil {
			t.Error("../escape was written")
		}
	})
}
