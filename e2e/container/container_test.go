// Package container builds vox-mcp's container image the way `make
// release` does (internal/release: from scratch, no daemon, no base
// image), loads it into Debian's podman and asks the server in it for
// tools/list over streamable HTTP (docs/platforms.md, "Install routes").
// Without podman the test is skipped, unless VOX_TEST_REQUIRE_PODMAN=1
// (make test sets it, and make deps installs podman), where it fails.
package container

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/release"
)

func TestImageAnswersToolsList(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vox-mcp and runs it in podman")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("the image is linux; this host cannot run it")
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		if os.Getenv("VOX_TEST_REQUIRE_PODMAN") == "1" {
			t.Fatal("podman is not on PATH; make deps installs it (apt-get install podman runc)")
		}
		t.Skip("podman is not on PATH (make deps installs it)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vox-mcp")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/vox-mcp")
	build.Dir = "../.."
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	img, err := release.Image(release.ImageInput{Arch: runtime.GOARCH, Binary: bin, Version: "v0.0.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	const ref = "localhost/vox-mcp-test:0.0.0"
	archive := filepath.Join(dir, "image.tar")
	if err := release.WriteImage(archive, ref, img); err != nil {
		t.Fatal(err)
	}

	// A private store (vfs: no overlay mounts to undo) keeps the test off
	// the machine's images and lets t.TempDir remove everything.
	store := []string{"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs"}
	pm := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(podman, append(append([]string{}, store...), args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	pm("load", "-i", archive)
	var cfg struct {
		Entrypoint []string
		Cmd        []string
		User       string
		Labels     map[string]string
	}
	if err := json.Unmarshal([]byte(pm("image", "inspect", "--format", "{{json .Config}}", ref)), &cfg); err != nil {
		t.Fatal(err)
	}
	if got := cfg.Labels[release.ImageLabel]; got != release.ServerName {
		t.Errorf("label %s = %q, want %q", release.ImageLabel, got, release.ServerName)
	}
	if want := "/vox-mcp --http 0.0.0.0:8080 --root /workspace"; strings.Join(append(cfg.Entrypoint, cfg.Cmd...), " ") != want {
		t.Errorf("entrypoint and cmd = %q %q, want %q", cfg.Entrypoint, cfg.Cmd, want)
	}
	if cfg.User == "" || strings.HasPrefix(cfg.User, "0") {
		t.Errorf("user = %q, want an unprivileged uid", cfg.User)
	}

	port := freePort(t)
	const token = "container-test-token-0123456789"
	// runc: Debian 12's crun refuses a host with cgroup v1 and v2 mounted
	// at once ("cgroups in hybrid mode not supported"), as containers that
	// run CI often are. The ulimits: podman's default asks for more open
	// files and processes than a non-initial namespace may set. Host
	// networking: the server listens on the host's loopback only
	// (docs/platforms.md).
	name := fmt.Sprintf("vox-mcp-test-%d", os.Getpid())
	runArgs := []string{"run", "-d", "--name", name, "--pull=never",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "--network=host",
		"-e", "VOX_MCP_TOKEN=" + token, ref, "--http", fmt.Sprintf("127.0.0.1:%d", port), "--root", "/workspace"}
	if _, err := exec.LookPath("runc"); err == nil {
		runArgs = append([]string{"--runtime", "runc"}, runArgs...)
	}
	pm(runArgs...)
	t.Cleanup(func() {
		exec.Command(podman, append(append([]string{}, store...), "rm", "-f", "-t", "0", name)...).Run()
	})

	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var session string
	post := func(body string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp, b.Bytes()
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"container-test","version":"1"}}}`
	var resp *http.Response
	// The container starts in the background: poll, bounded by count.
	for i := 0; i < 150 && resp == nil; i++ {
		if resp, _ = post(initialize); resp == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if resp == nil {
		t.Fatalf("no answer from %s; container log:\n%s", url, pm("logs", name))
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	session = resp.Header.Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %v %s", resp, body)
	}
	var list struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("tools/list: %v: %s", err, body)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " vox_tool_search ") {
		t.Errorf("tools/list from the container = %v, want vox_tool_search among them", names)
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
