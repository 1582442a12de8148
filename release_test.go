package voxmcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReproducibleRelease builds vox-mcp for linux/amd64 twice with `make
// release-binaries` (the binaries of `make release`, without the bundles
// and images that need e2e/node_modules), from two copies of the working tree at different paths and
// with two empty build caches (the module cache is shared: it holds
// downloaded sources, not build results), and requires identical bytes,
// a matching SHA256SUMS line and the stamped --version. `make release`
// builds the full platform matrix the same way.
func TestReproducibleRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles vox-mcp twice from empty build caches (about two minutes on 2 cores); run without -short")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not on PATH")
	}
	files := trackedFiles(t)
	const version, commit = "v0.0.0-repro", "0123456789abcdef0123456789abcdef01234567"
	base := t.TempDir()
	var sums []string
	for i, dir := range []string{filepath.Join(base, "one"), filepath.Join(base, "two", "a", "longer", "checkout", "path")} {
		copyFiles(t, files, dir)
		dist := filepath.Join(base, fmt.Sprintf("dist%d", i))
		cmd := exec.Command("make", "--no-print-directory", "release-binaries",
			"PLATFORMS=linux/amd64", "BINARIES=vox-mcp", "DIST="+dist,
			"VERSION="+version, "COMMIT="+commit)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(base, fmt.Sprintf("gocache%d", i)), "GOTOOLCHAIN=local")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make release-binaries in %s: %v\n%s", dir, err, out)
		}
		t.Logf("build %d in %s took %v", i+1, dir, time.Since(start).Round(time.Second))
		bin := filepath.Join(dist, "vox-mcp-linux-amd64")
		sum := fileSHA256(t, bin)
		sums = append(sums, sum)
		listed, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		if want := sum + "  vox-mcp-linux-amd64\n"; string(listed) != want {
			t.Errorf("SHA256SUMS = %q, want %q", listed, want)
		}
		if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			v, err := exec.Command(bin, "--version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if want := "vox-mcp " + version + " " + commit + "\n"; string(v) != want {
				t.Errorf("--version printed %q, want %q", v, want)
			}
		}
	}
	if sums[0] != sums[1] {
		t.Fatalf("two builds of the same tree differ: %s vs %s", sums[0], sums[1])
	}
	t.Logf("both builds: sha256 %s", sums[0])
}

// trackedFiles lists the working tree's files that git tracks or would
// track (untracked but not ignored), relative to the repository root.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		if info, err := os.Lstat(f); err == nil && info.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("git ls-files listed nothing")
	}
	return files
}

func copyFiles(t *testing.T, files []string, dst string) {
	t.Helper()
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
