package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The documentation test: every command shown in README.md and docs/*.md
// lives in a fenced sh block, and this test runs them all.
//
// Each file's sh blocks run in order as one shell session (bash -eu -o
// pipefail, standard input closed), the way a reader types them into one
// terminal, starting in an empty home folder, with vox and vox-mcp built
// from the working tree on PATH. A block preceded by
// <!-- not-run: reason --> must be a network install; the test runs its
// local equivalent instead (localEquivalent), and fails on any other
// not-run block. Two commands are narrowed because they cannot run in full
// inside a test, and the README says so:
//   - `make test` runs as `make -n test`: the real `make test` is what
//     runs this test, so running it here would recurse; the dry run checks
//     that the target and everything it invokes resolve, and the test
//     checks that .ci/run (CI's entry point) runs `make test` itself, so
//     every CI run executes the documented command in full;
//   - `make release` builds for linux/amd64 only (PLATFORMS in the
//     environment; the Makefile's default is the full matrix): the full
//     matrix is minutes of cross-compiling, and TestReproducibleRelease
//     checks the release recipe.
// The documented HTTP port, 8931, becomes a free port of the machine
// (docPort), so that test runs side by side do not reach each other's
// servers.
// Beyond the shell, every MCP client configuration (a json block with
// mcpServers or servers) is started as the client would start it, and
// every vox block of the README must pass vox check.

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file   string
	line   int // of the opening fence
	lang   string
	text   string
	notRun string // the reason of a <!-- not-run: ... --> marker, or ""
	marked bool   // a not-run marker precedes the block
}

var notRunMarker = regexp.MustCompile(`^<!--\s*not-run:\s*(.*?)\s*-->$`)

// parseBlocks returns the fenced blocks of a Markdown file.
func parseBlocks(file string, src []byte) ([]docBlock, error) {
	var blocks []docBlock
	sc := bufio.NewScanner(bytes.NewReader(src))
	lineNo, prev := 0, ""
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		fence, ok := strings.CutPrefix(line, "```")
		if !ok {
			if strings.TrimSpace(line) != "" {
				prev = strings.TrimSpace(line)
			}
			continue
		}
		b := docBlock{file: file, line: lineNo, lang: strings.TrimSpace(fence)}
		if m := notRunMarker.FindStringSubmatch(prev); m != nil {
			b.marked, b.notRun = true, m[1]
		}
		var text strings.Builder
		closed := false
		for sc.Scan() {
			lineNo++
			if strings.HasPrefix(sc.Text(), "```") {
				closed = true
				break
			}
			text.WriteString(sc.Text())
			text.WriteByte('\n')
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the fenced block is not closed", file, b.line)
		}
		b.text = text.String()
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks, sc.Err()
}

// docFiles are the documents whose commands the test runs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md")}
	more, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// localEquivalent is what the test runs for a not-run block: the network
// installs of the documentation, each with its local counterpart.
func localEquivalent(b docBlock) (string, error) {
	if b.notRun == "" {
		return "", fmt.Errorf("%s:%d: a not-run block must say why", b.file, b.line)
	}
	switch {
	case strings.Contains(b.text, "go install github.com/vox-lang/vox-mcp/cmd/"):
		// The test installed ./cmd/vox and ./cmd/vox-mcp from the working
		// tree into the GOBIN at the front of PATH.
		return "# local equivalent: go install ./cmd/vox ./cmd/vox-mcp, done by the test\n", nil
	case strings.Contains(b.text, "/releases/download/"):
		// The release assets of this host, built by make release.
		return `cp "$DOCTEST_DIST"/* .` + "\n", nil
	case strings.Contains(b.text, "git clone https://github.com/vox-lang/vox-mcp"):
		m := regexp.MustCompile(`git clone \S+ (\S+)`).FindStringSubmatch(b.text)
		if m == nil {
			return "", fmt.Errorf("%s:%d: the clone must name its target folder", b.file, b.line)
		}
		return fmt.Sprintf("cp -R \"$DOCTEST_CHECKOUT\" %s\n", m[1]), nil
	}
	return "", fmt.Errorf("%s:%d: not-run (%s) is only for network installs the test knows a local equivalent of; run the block or move it into text", b.file, b.line, b.notRun)
}

// docPort is the HTTP port the documentation uses.
const docPort = "8931"

// narrow rewrites the commands that cannot run in full inside a test
// (see the comment at the top of this file) and moves the documented port
// to port.
func narrow(text, port string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "make test" {
			lines[i] = "make -n test >/dev/null # narrowed by the documentation test: CI runs make test itself"
		}
		lines[i] = strings.ReplaceAll(lines[i], ":"+docPort, ":"+port)
	}
	return strings.Join(lines, "\n")
}

// freePort is a loopback port nothing listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// script turns a document's sh blocks into one shell script.
func script(blocks []docBlock, port string) (string, int, error) {
	var sb strings.Builder
	n := 0
	for _, b := range blocks {
		switch b.lang {
		case "sh":
		case "bash", "shell", "console", "zsh", "shell-session", "sh-session":
			return "", 0, fmt.Errorf("%s:%d: commands go in sh blocks (this is %s), so the documentation test runs them", b.file, b.line, b.lang)
		default:
			if b.marked {
				return "", 0, fmt.Errorf("%s:%d: a not-run marker before a %q block", b.file, b.line, b.lang)
			}
			continue
		}
		n++
		fmt.Fprintf(&sb, "printf '\\n### %s:%d\\n' >&2\n", filepath.Base(b.file), b.line)
		if b.marked {
			eq, err := localEquivalent(b)
			if err != nil {
				return "", 0, err
			}
			sb.WriteString(eq)
			continue
		}
		sb.WriteString(narrow(b.text, port))
	}
	return sb.String(), n, nil
}

// docEnv is the state shared by the documents' sessions: the binaries,
// the release assets and the checkout to copy.
type docEnv struct {
	gobin, dist, checkout, shims string
	goenv                        map[string]string
}

func setUpDocEnv(t *testing.T) *docEnv {
	t.Helper()
	base := t.TempDir()
	e := &docEnv{
		gobin:    filepath.Join(base, "gobin"),
		dist:     filepath.Join(base, "dist"),
		checkout: filepath.Join(base, "checkout"),
		shims:    filepath.Join(base, "shims"),
		goenv:    map[string]string{},
	}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		e.goenv[k] = vals[i]
	}
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "GOBIN="+e.gobin, "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("go", "install", "./cmd/vox", "./cmd/vox-mcp")
	run("make", "--no-print-directory", "release", "PLATFORMS=linux/amd64", "DIST="+e.dist, "VERSION=v0.0.0-docs")

	files, err := gitFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(repoRoot, f), filepath.Join(e.checkout, f)); err != nil {
			t.Fatal(err)
		}
	}
	// make release packs the MCP Bundles with mcpb from e2e/node_modules
	// (installed by make deps, not tracked): the checkout shares it.
	if _, err := os.Stat(filepath.Join(repoRoot, "e2e", "node_modules")); err == nil {
		if err := os.Symlink(filepath.Join(repoRoot, "e2e", "node_modules"), filepath.Join(e.checkout, "e2e", "node_modules")); err != nil {
			t.Fatal(err)
		}
	}

	// npx fetches the Inspector; its local equivalent is the Inspector
	// pinned in e2e/package.json, run with the pinned Node.js 22. Any other
	// npx use has none and fails.
	inspectorVersion := pinnedVersion(t, "@modelcontextprotocol/inspector")
	node, inspector := node22(t), filepath.Join(repoRoot, "e2e", "node_modules", ".bin", "inspector")
	shim := fmt.Sprintf(`#!/bin/sh
# The documentation test's npx: the pinned Inspector from e2e/node_modules.
[ "$1" = "-y" ] && shift
if [ "$1" = "@modelcontextprotocol/inspector@%s" ]; then
	shift
	exec %q %q "$@"
fi
echo "documentation test: npx $* has no local equivalent (only @modelcontextprotocol/inspector@%s, as pinned in e2e/package.json)" >&2
exit 127
`, inspectorVersion, node, inspector, inspectorVersion)
	if err := os.MkdirAll(e.shims, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.shims, "npx"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// pinnedVersion is a dependency's version in e2e/package.json.
func pinnedVersion(t *testing.T, pkg string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "e2e", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	v := p.Dependencies[pkg]
	if v == "" {
		t.Fatalf("e2e/package.json does not pin %s", pkg)
	}
	return v
}

// env is the environment of a document's session: a fresh home, the
// machine's Go caches (so nothing is downloaded or rebuilt needlessly), and
// none of the VOX_* settings of the machine.
func (e *docEnv) env(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "VOX_") || k == "HOME" || k == "PATH" || k == "GOBIN" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range e.goenv {
		env = append(env, k+"="+v)
	}
	return append(env,
		"HOME="+home,
		"PATH="+strings.Join([]string{e.gobin, filepath.Join(home, ".local", "bin"), e.shims, os.Getenv("PATH")}, string(os.PathListSeparator)),
		"GOTOOLCHAIN=local",
		"PLATFORMS=linux/amd64",
		"DOCTEST_DIST="+e.dist,
		"DOCTEST_CHECKOUT="+e.checkout,
	)
}

// runSession runs a document's script in home and returns its output.
func (e *docEnv) runSession(t *testing.T, file, src, home string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.sh")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-eu", "-o", "pipefail", path)
	cmd.Dir = home
	cmd.Env = e.env(home)
	// Its own process group, so that servers a failing script left in the
	// background are stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("%s: a command failed (%v); the session's output, each block headed by its file and line:\n%s", file, err, out.String())
	}
	t.Logf("%s: the session's output:\n%s", file, out.String())
}

func TestDocumentation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binaries and runs every documented command; run without -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the documented release steps install the linux/amd64 binaries")
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil || !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
		t.Fatalf(".ci/run must run `make test`, which the documentation narrows to `make -n test` (%v)", err)
	}
	e := setUpDocEnv(t)
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(repoRoot, file)
		blocks, err := parseBlocks(name, src)
		if err != nil {
			t.Fatal(err)
		}
		sh, n, err := script(blocks, freePort(t))
		if err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		if n > 0 {
			e.runSession(t, name, sh, home)
		}
		if name == "README.md" {
			checkClientConfigs(t, e, blocks, home)
			checkVoxBlocks(t, e, blocks)
		}
	}
}

// desktopHome is the home folder of the README's desktop app
// configuration, whose command is desktopCommand: vox-mcp installed in
// ~/.local/bin as the quick start does.
const (
	desktopHome    = "/home/you"
	desktopCommand = desktopHome + "/.local/bin/vox-mcp"
	// windowsHome and windowsCommand are the same configuration on
	// Windows (README "Claude Desktop"); the test runs it with the Linux
	// binary, the project path translated, so its arguments stay checked.
	windowsHome    = `C:\Users\you`
	windowsCommand = windowsHome + `\AppData\Local\Programs\vox-mcp\vox-mcp.exe`
)

// checkClientConfigs starts the server of every MCP client configuration
// shown, in the quick start's project, as the client would, and checks
// that the project's workspace tools are listed.
func checkClientConfigs(t *testing.T, e *docEnv, blocks []docBlock, home string) {
	project := filepath.Join(home, "hello")
	configs := 0
	for _, b := range blocks {
		if b.lang != "json" {
			continue
		}
		var cfg map[string]map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if err := json.Unmarshal([]byte(b.text), &cfg); err != nil {
			t.Errorf("%s:%d: %v", b.file, b.line, err)
			continue
		}
		for _, key := range []string{"mcpServers", "servers"} {
			for name, srv := range cfg[key] {
				configs++
				// Claude Code starts project servers in the project; a
				// desktop app's configuration (an absolute command, the
				// project named with --root in the reader's home
				// /home/you) is started in /, as those apps do.
				dir := project
				switch {
				case srv.Command == "vox-mcp":
				case srv.Command == desktopCommand, srv.Command == windowsCommand:
					dir = "/"
				default:
					t.Errorf("%s:%d: server %s runs %q, not vox-mcp, %s or %s", b.file, b.line, name, srv.Command, desktopCommand, windowsCommand)
					continue
				}
				args := slices.Clone(srv.Args)
				for i := range args {
					args[i] = strings.ReplaceAll(args[i], "${workspaceFolder}", project)
					args[i] = strings.ReplaceAll(args[i], desktopHome+"/hello", project)
					args[i] = strings.ReplaceAll(args[i], windowsHome+`\hello`, project)
				}
				cmd := exec.Command(filepath.Join(e.gobin, "vox-mcp"), args...)
				cmd.Dir = dir
				cmd.Env = e.env(home)
				s := startStdioCmd(t, cmd)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := s.client.ListTools(ctx, mcp.ListToolsRequest{})
				cancel()
				if err != nil {
					t.Errorf("%s:%d: tools/list: %v", b.file, b.line, err)
				} else {
					var names []string
					for _, tool := range res.Tools {
						names = append(names, tool.Name)
					}
					for _, want := range []string{"greet", "farewell", "vox_tool_search", "vox_skill_search"} {
						if !slices.Contains(names, want) {
							t.Errorf("%s:%d: the server of this configuration does not list %s: %v", b.file, b.line, want, names)
						}
					}
				}
				if err := s.stop(); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if configs < 4 {
		t.Errorf("README.md shows %d MCP client configurations; want Claude Code, Cursor, VS Code and Claude Desktop", configs)
	}
}

// checkVoxBlocks runs vox check on every vox block of the README: examples
// must compile without errors.
func checkVoxBlocks(t *testing.T, e *docEnv, blocks []docBlock) {
	dir := t.TempDir()
	n := 0
	for _, b := range blocks {
		if b.lang != "vox" {
			continue
		}
		n++
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("line%d.vox", b.line)), []byte(b.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		return
	}
	out, err := exec.Command(filepath.Join(e.gobin, "vox"), "check", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 0 error(s)") {
		t.Errorf("the vox examples of README.md do not check (the file names give the block's line): %v\n%s", err, out)
	}
}

// gitFiles lists the files of a working tree that git tracks or would
// track (untracked but not ignored).
func gitFiles(dir string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		if info, err := os.Lstat(filepath.Join(dir, f)); err == nil && info.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	return files, nil
}

func copyFile(from, to string) error {
	info, err := os.Stat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
