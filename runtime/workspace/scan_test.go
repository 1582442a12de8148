package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

// tree writes files (relative path -> content) under a new temporary root.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func config(t *testing.T, src string) *Config {
	t.Helper()
	cfg, errs := ParseConfig(ConfigPath, []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return cfg
}

func scanPaths(t *testing.T, root string, cfg *Config) (string, []FileError) {
	t.Helper()
	files, errs, err := Scan(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
		if f.Size == 0 || f.ModTime.IsZero() || !filepath.IsAbs(f.Abs) {
			t.Errorf("%s: incomplete %+v", f.Path, f)
		}
	}
	return strings.Join(out, " "), errs
}

func TestScanOrderExcludesAndOnce(t *testing.T) {
	root := tree(t, map[string]string{
		"b/z.vox":                 "x",
		"b/a.vox":                 "x",
		"b/a/deep.vox":            "x",
		"a/first.vox":             "x",
		"a/node_modules/m.vox":    "x",
		"a/testdata/t.vox":        "x",
		"a/skip/s.vox":            "x",
		"a/notes.txt":             "x",
		".git/hooks/h.vox":        "x",
		"target/t.vox":            "x",
		"lib/.vox/cache.vox":      "x",
		"node_modules/top.vox":    "x",
		"top.vox":                 "x",
		"a/keep/node_modules.vox": "x",
	})
	cfg := config(t, `scan_globs: ["b/**/*.vox", "**/*.vox", "b/a.vox"]
exclude_globs: ["a/skip/**"]
`)
	got, errs := scanPaths(t, root, cfg)
	// Glob order first; lexical path order within a glob (b/a.vox sorts
	// before b/a/deep.vox); each file once at its first position.
	want := "b/a.vox b/a/deep.vox b/z.vox a/first.vox a/keep/node_modules.vox top.vox"
	if got != want || len(errs) > 0 {
		t.Errorf("scan =\n  %s\nwant\n  %s\nerrors %v", got, want, errs)
	}
}

func TestScanMissingBaseAndLiteral(t *testing.T) {
	root := tree(t, map[string]string{"tools/one.vox": "x"})
	cfg := config(t, `scan_globs: ["absent/**/*.vox", "tools/one.vox", "tools/none.vox"]`)
	got, errs := scanPaths(t, root, cfg)
	if got != "tools/one.vox" || len(errs) > 0 {
		t.Errorf("scan = %q, %v", got, errs)
	}
}

func TestScanSymlinks(t *testing.T) {
	wineshim.SkipSymlinks(t)
	outside := tree(t, map[string]string{"evil.vox": "x", "dir/in.vox": "x"})
	root := tree(t, map[string]string{"w/real.vox": "x", "other/target.vox": "x"})
	mustSymlink(t, "../other/target.vox", filepath.Join(root, "w", "inside.vox"))
	mustSymlink(t, filepath.Join(root, "other", "target.vox"), filepath.Join(root, "w", "absolute.vox"))
	mustSymlink(t, filepath.Join(outside, "evil.vox"), filepath.Join(root, "w", "escape.vox"))
	mustSymlink(t, "../../"+filepath.Base(outside)+"/evil.vox", filepath.Join(root, "w", "escape2.vox"))
	mustSymlink(t, filepath.Join(outside, "dir"), filepath.Join(root, "w", "linkdir"))
	mustSymlink(t, "../other", filepath.Join(root, "w", "innerdir"))
	mustSymlink(t, "../gone.vox", filepath.Join(root, "w", "broken.vox"))
	cfg := config(t, `scan_globs: ["w/**/*.vox"]`)
	got, errs := scanPaths(t, root, cfg)
	if got != "w/inside.vox w/real.vox" {
		t.Errorf("scan = %q: want the real file and the symlinked file inside the root, no symlinked directory", got)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Path+": "+e.Message)
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{
		"w/absolute.vox: is an absolute symlink: only relative symlinks that stay inside the workspace root are followed",
		"w/broken.vox: broken symlink",
		"w/escape.vox: symlink leads outside the workspace root",
		"w/escape2.vox: symlink leads outside the workspace root",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors = %s\nwant one containing %q", joined, want)
		}
	}
	if strings.Contains(joined, "inside.vox") {
		t.Errorf("errors = %s", joined)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
}

func TestScanInvalidGlobIsFatal(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ScanGlobs = append(cfg.ScanGlobs, Glob{Pattern: "a/{b"})
	_, _, err := Scan(t.TempDir(), cfg)
	if _, ok := err.(*ScanError); !ok || !strings.Contains(err.Error(), `invalid glob "a/{b"`) {
		t.Errorf("err = %v", err)
	}
}

func TestStaticDirs(t *testing.T) {
	cfg := config(t, `scan_globs: ["examples/**/*.vox", "tools/*.vox", "examples/x/*.vox", "**/*.vox", "vendor/node_modules/*.vox"]`)
	if got := strings.Join(StaticDirs(cfg), " "); got != "examples tools examples/x ." {
		t.Errorf("static dirs = %q", got)
	}
}

// TestScanStatsLikeLstat: the size and modification time a scan records
// (stat_linux.go stats relative to the directory) are os.Lstat's.
func TestScanStatsLikeLstat(t *testing.T) {
	root := workspaceTree(t, cfgExamples, map[string]string{
		"tools/a.vox":       "@tool \"A\"\nfn a() to int { 1 }\n",
		"tools/sub/b.vox":   "x",
		"tools/sub/c/d.vox": "",
		"tools/e.vox":       strings.Repeat("y", 5000),
	})
	mt := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	os.Chtimes(filepath.Join(root, "tools", "sub", "b.vox"), mt, mt)
	files, errs, err := Scan(root, &Config{ScanGlobs: []Glob{{Pattern: "tools/**/*.vox"}}})
	if err != nil || len(errs) != 0 || len(files) != 4 {
		t.Fatalf("%v %v %v", files, errs, err)
	}
	for _, f := range files {
		info, err := os.Lstat(f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size != info.Size() || !f.ModTime.Equal(info.ModTime()) || f.ModTime.Location() != info.ModTime().Location() {
			t.Errorf("%s: scan %d %v, lstat %d %v", f.Path, f.Size, f.ModTime, info.Size(), info.ModTime())
		}
	}
}
