//go:build unix

package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// The tests of this file put FIFOs and symlinks where skills are read and
// written; nobody ever writes to a FIFO, so a read that blocked would hang
// the test instead of failing it.

func mkfifo(t *testing.T, p string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoveryNeverBlocksOnFIFOs(t *testing.T) {
	root := t.TempDir()
	mkfifo(t, filepath.Join(root, "fifo-skill", "SKILL.md"))
	writeFile(t, filepath.Join(root, "good", "SKILL.md"), skillMD("good", "d"))
	mkfifo(t, filepath.Join(root, "good", "references", "pipe.md"))
	os.Symlink("references/pipe.md", filepath.Join(root, "good", "to-pipe.md"))
	// A search root that is itself a FIFO.
	fifoRoot := filepath.Join(t.TempDir(), "skills")
	mkfifo(t, fifoRoot)
	found, warnings := Scan([]string{fifoRoot, root})
	if len(found) != 1 || found[0].ID != "good" {
		t.Fatalf("found %v", found)
	}
	if got := found[0].FilePaths(); len(got) != 1 || got[0] != "SKILL.md" {
		t.Errorf("files %q", got)
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{
		fifoRoot + ": open " + fifoRoot + ": not a directory: skipped",
		filepath.Join(root, "fifo-skill", "SKILL.md") + ": skill fifo-skill: open SKILL.md: is a named pipe (FIFO), not a regular file or folder: refused",
		"references/pipe.md is a named pipe (FIFO): not served",
		"to-pipe.md leads to a named pipe (FIFO): not served",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings:\n%s\nwant one containing %q", joined, want)
		}
	}
}

func TestReadResourceRefusesAFileSwappedForAFIFO(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "demo", "SKILL.md"), skillMD("demo", "d"))
	writeFile(t, filepath.Join(root, "demo", "ref.txt"), "reference")
	r := New(testConfig(t, root))
	r.Hydrate()
	os.Remove(filepath.Join(root, "demo", "ref.txt"))
	mkfifo(t, filepath.Join(root, "demo", "ref.txt"))
	_, err := r.Snapshot().ReadResource("skill://demo/ref.txt")
	if !errors.Is(err, safefs.ErrNotRegular) || err.Error() != "skill demo: open ref.txt: is a named pipe (FIFO), not a regular file or folder: refused (reading it could block or have effects)" {
		t.Errorf("err = %v", err)
	}
	// Swapped for a symlink out of the folder: refused, not followed.
	writeFile(t, filepath.Join(t.TempDir(), "x"), "")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "TOP-SECRET")
	os.Remove(filepath.Join(root, "demo", "ref.txt"))
	os.Symlink(secret, filepath.Join(root, "demo", "ref.txt"))
	if c, err := r.Snapshot().ReadResource("skill://demo/ref.txt"); !errors.Is(err, safefs.ErrEscapes) {
		t.Errorf("read through a symlink out: %q, %v", c.Text, err)
	}
}

func TestFrontMatterBombIsSkippedWithItsPosition(t *testing.T) {
	root := t.TempDir()
	bomb := "---\nname: bomb\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n"
	writeFile(t, filepath.Join(root, "bomb", "SKILL.md"), bomb)
	found, warnings := Scan([]string{root})
	want := filepath.Join(root, "bomb", "SKILL.md") + ":7:36: alias *c repeats 1111 values, and aliases may repeat at most 10000 values in one file: write the repeated part out or use fewer aliases: skipped"
	if len(found) != 0 || len(warnings) != 1 || warnings[0] != want {
		t.Errorf("found %v\nwarnings %q\nwant %q", found, warnings, want)
	}
}

// TestInstallRefusesRedirectedTargets: a .vox or .vox/skills that is a
// symlink leading out of the workspace (or home) would redirect the
// write; install and add refuse it and write nothing anywhere.
func TestInstallRefusesRedirectedTargets(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "added", "SKILL.md"), skillMD("added", "d"))
	for _, tt := range []struct {
		name   string
		setup  func(ws, home, outside string)
		global bool
	}{
		{"symlinked .vox", func(ws, _, outside string) { os.Symlink(outside, filepath.Join(ws, ".vox")) }, false},
		{"symlinked .vox/skills", func(ws, _, outside string) {
			os.Mkdir(filepath.Join(ws, ".vox"), 0o755)
			os.Symlink(outside, filepath.Join(ws, ".vox", "skills"))
		}, false},
		{"relative symlink out", func(ws, _, outside string) {
			rel, _ := filepath.Rel(ws, outside)
			os.Symlink(rel, filepath.Join(ws, ".vox"))
		}, false},
		{"symlinked home .vox", func(_, home, outside string) { os.Symlink(outside, filepath.Join(home, ".vox")) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
			tt.setup(ws, home, outside)
			r := New(Config{Workspace: ws, Home: home})
			r.Hydrate()
			_, _, err := r.Install([]byte(skillMD("evil", "d")), map[string]string{"x.txt": "x"}, tt.global)
			if err == nil || !strings.Contains(err.Error(), "leads outside") || !strings.Contains(err.Error(), "refused") {
				t.Errorf("install: %v", err)
			}
			_, _, err = r.Add(context.Background(), filepath.Join(src, "added"), tt.global, "")
			if err == nil || !strings.Contains(err.Error(), "leads outside") {
				t.Errorf("add: %v", err)
			}
			filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
				if p != outside {
					t.Errorf("written outside: %s", p)
				}
				return nil
			})
			if r.Snapshot().Len() != 0 {
				t.Error("a refused install installed a skill")
			}
		})
	}
	// A .vox that is a symlink to a folder inside the workspace is fine.
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "config", "vox"), 0o755)
	os.Symlink("config/vox", filepath.Join(ws, ".vox"))
	r := New(Config{Workspace: ws, Home: t.TempDir()})
	r.Hydrate()
	if _, _, err := r.Install([]byte(skillMD("fine", "d")), nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "config", "vox", "skills", "fine", "SKILL.md")); err != nil {
		t.Error(err)
	}
	if _, err := r.Remove("fine"); err != nil {
		t.Fatal(err)
	}
}

func TestAddRefusesSpecialFiles(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "piped", "SKILL.md"), skillMD("piped", "d"))
	mkfifo(t, filepath.Join(src, "piped", "references", "pipe.md"))
	r := New(testConfig(t, t.TempDir()))
	_, _, err := r.Add(context.Background(), filepath.Join(src, "piped"), false, "")
	if err == nil || !strings.Contains(err.Error(), "references/pipe.md is a named pipe (FIFO), not a regular file: remove it") {
		t.Errorf("add: %v", err)
	}
	// A SKILL.md that is a FIFO is no skill.
	mkfifo(t, filepath.Join(src, "fifo-md", "SKILL.md"))
	if _, _, err := r.Add(context.Background(), filepath.Join(src, "fifo-md"), false, ""); err == nil {
		t.Error("added a skill whose SKILL.md is a FIFO")
	}
}

// TestRemoveDeletesThroughTheTarget: a skill folder whose target was
// redirected since the install is not deleted through the new path.
func TestRemoveRefusesARedirectedTarget(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	r := New(Config{Workspace: ws, Home: home})
	r.Hydrate()
	in, _, err := r.Install([]byte(skillMD("victim", "d")), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// .vox moves away and a symlink to another folder holding a
	// "victim" takes its place.
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "skills", "victim", "keep.txt"), "precious")
	os.Rename(filepath.Join(ws, ".vox"), filepath.Join(ws, ".vox-old"))
	os.Symlink(elsewhere, filepath.Join(ws, ".vox"))
	if _, err := r.Remove(in.ID); err == nil {
		t.Error("removed through a redirected target")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "skills", "victim", "keep.txt")); err != nil {
		t.Errorf("the other folder was deleted: %v", err)
	}
}
