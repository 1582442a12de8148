package safefs

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

// bothWays runs a test with openat2 (where the kernel has it) and with the
// os.Root fallback.
func bothWays(t *testing.T, test func(t *testing.T)) {
	t.Run("default", test)
	if useOpenat2() {
		t.Run("fallback", func(t *testing.T) {
			forceFallback = true
			defer func() { forceFallback = false }()
			test(t)
		})
	}
}

// tree makes a root folder with a file, a folder, an in-root symlink, a
// FIFO, a socket and symlinks that escape, next to an outside secret.
func tree(t *testing.T) (base string, r *Root) {
	base = t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(base, "root")
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(base, "secret"), []byte("TOP-SECRET"), 0o644))
	must(os.Symlink("sub/a.txt", filepath.Join(root, "inside")))
	must(os.Symlink("../secret", filepath.Join(root, "relative-out")))
	must(os.Symlink(filepath.Join(base, "secret"), filepath.Join(root, "absolute-out")))
	must(os.Symlink("..", filepath.Join(root, "up")))
	if runtime.GOOS != "windows" {
		must(mkfifo(filepath.Join(root, "fifo"), 0o644))
		must(os.Symlink("fifo", filepath.Join(root, "to-fifo")))
		l, err := net.Listen("unix", filepath.Join(root, "sock"))
		must(err)
		t.Cleanup(func() { l.Close() })
	}
	r, err := OpenRoot(root)
	must(err)
	t.Cleanup(func() { r.Close() })
	return base, r
}

func TestReadStaysBeneathAndNeverBlocks(t *testing.T) {
	wineshim.SkipSymlinks(t)
	bothWays(t, func(t *testing.T) {
		_, r := tree(t)
		for _, rel := range []string{"sub/a.txt", "inside", "sub/../sub/a.txt"} {
			if data, err := r.ReadFile(rel, 100); err != nil || string(data) != "hello" {
				t.Errorf("ReadFile(%s) = %q, %v", rel, data, err)
			}
		}
		for _, rel := range []string{"relative-out", "absolute-out", "up/secret", "../secret", "/etc/passwd", "sub/../../secret"} {
			data, err := r.ReadFile(rel, 100)
			if !errors.Is(err, ErrEscapes) {
				t.Errorf("ReadFile(%s) = %q, %v; want ErrEscapes", rel, data, err)
			}
			if _, err := r.Stat(rel); !errors.Is(err, ErrEscapes) {
				t.Errorf("Stat(%s): %v; want ErrEscapes", rel, err)
			}
		}
		if runtime.GOOS == "windows" {
			return
		}
		// Nobody writes to the FIFO: a blocking open would hang here.
		for _, rel := range []string{"fifo", "to-fifo", "sock"} {
			_, err := r.ReadFile(rel, 100)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadFile(%s): %v; want ErrNotRegular", rel, err)
			}
			if _, _, err := r.Open(rel); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Open(%s): %v; want ErrNotRegular", rel, err)
			}
			if _, err := r.ReadDir(rel); err == nil {
				t.Errorf("ReadDir(%s) succeeded", rel)
			}
		}
		if _, err := r.ReadFile("fifo", 100); !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file or folder: refused") {
			t.Errorf("FIFO error = %v", err)
		}
		if info, err := r.Stat("to-fifo"); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("Stat(to-fifo) = %v, %v", info, err)
		}
	})
}

func TestDevicesAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev")
	}
	bothWays(t, func(t *testing.T) {
		r, err := OpenRoot("/dev")
		if err != nil {
			t.Skip(err)
		}
		defer r.Close()
		if _, err := r.ReadFile("null", 10); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("ReadFile(/dev/null): %v", err)
		}
	})
}

func TestOpenRootRefusesSpecialFilesWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRoot(fifo); err == nil {
		t.Error("OpenRoot(FIFO) succeeded")
	}
	_, r := tree(t)
	if _, err := r.OpenRoot("fifo"); err == nil {
		t.Error("OpenRoot(fifo) beneath succeeded")
	}
	if _, err := r.OpenRoot("up"); !errors.Is(err, ErrEscapes) {
		t.Errorf("OpenRoot(up): %v, want ErrEscapes", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	_, r := tree(t)
	var tl *TooLargeError
	if _, err := r.ReadFile("sub/a.txt", 4); !errors.As(err, &tl) || tl.Max != 4 {
		t.Errorf("ReadFile over the limit: %v", err)
	}
	if _, err := r.ReadFile("sub", 4); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("ReadFile(folder): %v", err)
	}
}

func TestReadDir(t *testing.T) {
	wineshim.SkipSymlinks(t)
	bothWays(t, func(t *testing.T) {
		_, r := tree(t)
		entries, err := r.ReadDir(".")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		want := "absolute-out inside relative-out sub up"
		if runtime.GOOS != "windows" {
			want = "absolute-out fifo inside relative-out sock sub to-fifo up"
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("ReadDir = %s, want %s", got, want)
		}
		if _, err := r.ReadDir("up"); !errors.Is(err, ErrEscapes) {
			t.Errorf("ReadDir(up): %v", err)
		}
	})
}

func TestWritesStayBeneath(t *testing.T) {
	wineshim.SkipSymlinks(t)
	base, r := tree(t)
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.Name(), "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := r.MkdirAll("link-out/skills", 0o755); !errors.Is(err, ErrEscapes) {
		t.Errorf("MkdirAll through a symlink out: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(r.Name(), "dot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.Name(), "dot", "skills")); err != nil {
		t.Fatal(err)
	}
	if err := r.MkdirAll("dot/skills", 0o755); !errors.Is(err, ErrEscapes) {
		t.Errorf("MkdirAll ending in a symlink out: %v", err)
	}
	if _, err := r.OpenRoot("dot/skills"); !errors.Is(err, ErrEscapes) {
		t.Errorf("OpenRoot of a symlink out: %v", err)
	}
	if err := r.WriteFile("link-out/x", []byte("x"), 0o644); !errors.Is(err, ErrEscapes) {
		t.Errorf("WriteFile through a symlink out: %v", err)
	}
	if err := r.WriteFile("inside", []byte("x"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteFile over a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	if err := r.MkdirAll("new/deep", 0o755); err != nil {
		t.Fatal(err)
	}
	name, err := r.MkdirTemp(".tmp-")
	if err != nil || !strings.HasPrefix(name, ".tmp-") {
		t.Fatalf("MkdirTemp = %q, %v", name, err)
	}
	sub, err := r.OpenRoot(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.WriteFile("f", []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub.Close()
	if err := r.Rename(name, "new"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Rename over an existing folder: %v", err)
	}
	if err := r.Rename(name, "placed"); err != nil {
		t.Fatal(err)
	}
	if data, err := r.ReadFile("placed/f", 10); err != nil || string(data) != "data" {
		t.Errorf("placed/f = %q, %v", data, err)
	}
	if err := r.Rename("placed", "../x"); !errors.Is(err, ErrEscapes) {
		t.Errorf("Rename out: %v", err)
	}
	if err := r.RemoveAll("placed"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveAll("link-out"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("RemoveAll of a symlink removed its target: %v", err)
	}
}

func TestReadNamedFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a.vox")
	if err := os.WriteFile(file, []byte("fn f() to int { 1 }"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.vox")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.vox")
	if err := mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A path the user named may be a symlink: it is followed.
	if got, err := ReadNamedFile(link, 100); err != nil || string(got) != "fn f() to int { 1 }" {
		t.Errorf("ReadNamedFile(symlink) = %q, %v", got, err)
	}
	if _, err := ReadNamedFile(fifo, 100); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadNamedFile(FIFO): %v, want a refusal naming the pipe", err)
	}
	if _, err := ReadNamedFile("/dev/null", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadNamedFile(/dev/null): %v, want ErrNotRegular", err)
	}
	var tl *TooLargeError
	if _, err := ReadNamedFile(file, 4); !errors.As(err, &tl) || tl.Max != 4 {
		t.Errorf("ReadNamedFile over the limit: %v", err)
	}
	if _, err := ReadNamedFile(dir, 100); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("ReadNamedFile(folder): %v", err)
	}
}
