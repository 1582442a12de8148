package skills

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gitEnv runs the test's own git commands without the machine's
// configuration.
func gitEnv(home string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com"}
}

func runGit(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// gitRepo commits the fixtures (set/name → path in the repository) into a
// new repository base/repo.
func gitRepo(t *testing.T, base, repo string, files map[string][2]string, extra func(dir string)) {
	t.Helper()
	dir := filepath.Join(base, repo)
	env := gitEnv(t.TempDir())
	runGit(t, base, env, "init", "-q", "-b", "main", dir)
	for path, fixture := range files {
		copyFixture(t, fixture[0], fixture[1], dir, path)
	}
	if extra != nil {
		extra(dir)
	}
	runGit(t, dir, env, "add", "-A")
	runGit(t, dir, env, "commit", "-q", "-m", "skills")
}

// gitDaemon serves the repositories under base on 127.0.0.1 and returns
// the URL prefix git://127.0.0.1:<port>/. The daemon is this test's own
// process, killed (with its per-connection children) at cleanup.
func gitDaemon(t *testing.T, base string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		noGit(t)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port="+strconv.Itoa(port),
		"--base-path="+base, "--export-all", "--informative-errors", base)
	cmd.Env = gitEnv(t.TempDir())
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("git daemon: %v (install Debian's git package)", err)
	}
	t.Cleanup(func() {
		_ = killGroup(cmd)
		_ = cmd.Wait()
	})
	url := "git://127.0.0.1:" + strconv.Itoa(port) + "/"
	// Wait until the daemon accepts connections (bounded: it normally takes
	// a few milliseconds).
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
			return url
		}
		if i == 200 {
			t.Fatalf("git daemon did not start: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestAddFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		noGit(t)
	}
	base := t.TempDir()
	gitRepo(t, base, "multi", map[string][2]string{
		"skills/commit-message": {"skills", "commit-message"},
		"skills/release-notes":  {"skills", "release-notes"},
	}, func(dir string) { writeFile(t, filepath.Join(dir, "README.md"), "# Our skills\n") })
	gitRepo(t, base, "single", map[string][2]string{".": {"skills", "go-bench"}}, nil)
	gitRepo(t, base, "linked", map[string][2]string{"api-docs": {"skills", "api-docs"}}, func(dir string) {
		must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "api-docs/references/passwd")))
	})
	url := gitDaemon(t, base)

	// A trap: a global git configuration whose hooks write a marker. A plain
	// clone with this HOME runs the hook; Add must not.
	trapHome := t.TempDir()
	marker := filepath.Join(t.TempDir(), "hook-ran")
	writeFile(t, filepath.Join(trapHome, "hooks/post-checkout"), "#!/bin/sh\ntouch "+marker+"\n")
	must(t, os.Chmod(filepath.Join(trapHome, "hooks/post-checkout"), 0o755))
	writeFile(t, filepath.Join(trapHome, ".gitconfig"), "[core]\n\thooksPath = "+filepath.Join(trapHome, "hooks")+"\n")
	plain := exec.Command("git", "clone", "-q", url+"single", filepath.Join(t.TempDir(), "plain"))
	plain.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + trapHome}
	if out, err := plain.CombinedOutput(); err != nil {
		t.Fatalf("plain clone: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trap did not fire on a plain clone: the test proves nothing")
	}
	must(t, os.Remove(marker))
	t.Setenv("HOME", trapHome)

	ctx := context.Background()
	target := t.TempDir()
	r := New(testConfig(t, target))
	ins, _, err := r.Add(ctx, url+"multi", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 || ins[0].ID != "commit-message" || ins[1].ID != "release-notes" {
		t.Fatalf("added %+v", ins)
	}
	if !reflect.DeepEqual(ins[1].FilePaths(), []string{"SKILL.md", "assets/template.md", "references/style-guide.md", "scripts/collect.sh"}) {
		t.Errorf("files %q", ins[1].FilePaths())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a hook ran during the clone")
	}
	ins, _, err = r.Add(ctx, url+"single", false, "")
	if err != nil || len(ins) != 1 || ins[0].Path != filepath.Join(target, "go-bench") {
		t.Fatalf("single: %v %+v", err, ins)
	}
	if _, err := os.Stat(filepath.Join(target, "go-bench/.git")); err == nil {
		t.Error(".git was copied")
	}

	// skill picks one skill of a multi-skill repository.
	r2 := New(testConfig(t, t.TempDir()))
	ins, _, err = r2.Add(ctx, url+"multi", false, "release-notes")
	if err != nil || len(ins) != 1 || ins[0].ID != "release-notes" || r2.Snapshot().Len() != 1 {
		t.Fatalf("skill release-notes: %v %+v", err, ins)
	}
	// Symlinks in the repository are refused.
	if _, _, err := r2.Add(ctx, url+"linked", false, ""); err == nil || !strings.Contains(err.Error(), "references/passwd is a symlink: symlinks are refused") {
		t.Errorf("linked: %v", err)
	}
	// A repository that does not exist.
	_, _, err = r2.Add(ctx, url+"missing", false, "")
	if err == nil || !strings.HasPrefix(err.Error(), "git clone "+url+"missing failed: ") || !strings.HasSuffix(err.Error(), ": check the URL and that the repository is reachable") {
		t.Errorf("missing: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a hook ran")
	}
}
