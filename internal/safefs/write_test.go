package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
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
	wineshim.SkipSymlinks(t)
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

// dirWays runs a test with each way OpenDirNoFollow can take here, as
// writeWays does for ReplaceFile.
func dirWays(t *testing.T, test func(t *testing.T, open func(r *Root, rel string, create bool) (*Root, error))) {
	t.Run("default", func(t *testing.T) { test(t, (*Root).OpenDirNoFollow) })
	if useOpenat2() {
		t.Run("no-openat2", func(t *testing.T) {
			forceFallback = true
			defer func() { forceFallback = false }()
			test(t, (*Root).OpenDirNoFollow)
		})
	}
	t.Run("os.Root", func(t *testing.T) { test(t, (*Root).openDirRooted) })
}

func TestOpenDirNoFollow(t *testing.T) {
	wineshim.SkipSymlinks(t)
	dirWays(t, func(t *testing.T, open func(*Root, string, bool) (*Root, error)) {
		base, r := tree(t)
		root := filepath.Join(base, "root")
		if err := os.Mkdir(filepath.Join(base, "ssh"), 0o700); err != nil {
			t.Fatal(err)
		}
		// A repository's planted links: a folder inside reached through
		// a link, a link out of the root, the skill folder itself a link.
		for link, target := range map[string]string{
			"sublink": "sub", "skills": filepath.Join(base, "ssh"), "sub/x": "../../ssh",
		} {
			if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct{ rel, refused string }{
			{"sublink", "sublink"}, {"sublink/new", "sublink"}, {"skills", "skills"},
			{"skills/name", "skills"}, {"sub/x", "sub/x"}, {"up/root", "up"},
		} {
			for _, create := range []bool{false, true} {
				d, err := open(r, c.rel, create)
				var pe *fs.PathError
				if !errors.Is(err, ErrSymlink) || !errors.As(err, &pe) || pe.Path != c.refused {
					t.Errorf("open %s (create %v): got %v, want ErrSymlink at %s", c.rel, create, err, c.refused)
				}
				if d != nil {
					d.Close()
				}
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(base, "ssh")); len(entries) != 0 {
			t.Errorf("something was made through a link: %v", entries)
		}
		if _, err := open(r, "new/deep", false); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("open a missing folder without create: %v, want ErrNotExist", err)
		}
		d, err := open(r, "new/deep", true)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.WriteFile("f", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "new", "deep", "f")); err != nil || string(b) != "x" {
			t.Errorf("new/deep/f: %q %v", b, err)
		}
		if want := filepath.Join(root, "new", "deep"); d.Name() != want {
			t.Errorf("Name %q, want %q", d.Name(), want)
		}
		if _, err := open(r, "sub/a.txt", false); err == nil {
			t.Error("a file opened as a folder")
		}
		if _, err := open(r, "../root", true); !errors.Is(err, ErrEscapes) {
			t.Errorf("../root: %v, want ErrEscapes", err)
		}
	})
}
