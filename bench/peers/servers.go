package peers

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The servers, in the order each round runs them.
const (
	Floor  = "floor"   // bare mcp-go
	VoxMCP = "vox-mcp" // the product, telemetry off (the default)
	// VoxOTel is the same vox-mcp binary with its telemetry on: OTLP/HTTP
	// export to the run's own sink and a Prometheus listener
	// (docs/benchmarks.md, "Telemetry on and off").
	VoxOTel = "vox-mcp-otel"
	GoSDK   = "gosdk" // github.com/modelcontextprotocol/go-sdk
	TSSDK   = "tssdk" // @modelcontextprotocol/sdk on Node.js
)

// AllServers are the servers of a full run.
var AllServers = []string{Floor, VoxMCP, VoxOTel, GoSDK, TSSDK}

// Subjects are the columns of the report: a server and the tool its calls
// measure. vox-mcp has two: its workspace tool add and its catalog tool.
const (
	SubjectFloor      = "floor"
	SubjectWorkspace  = "vox-mcp"
	SubjectCatalog    = "vox-mcp-catalog"
	SubjectOTel       = "vox-mcp-otel"
	SubjectOTelCat    = "vox-mcp-otel-catalog"
	SubjectGoSDK      = "gosdk"
	SubjectTSSDK      = "tssdk"
	catalogToolName   = "vox_skill_list"
	serverDescription = "Add two integers"
)

// tool is what a subject's tools/call measures.
type tool struct {
	subject string
	name    string
	// args are the arguments of the i-th call; want checks its result.
	args func(i int) json.RawMessage
	want func(i int, r callResult) error
}

// addTool calls add(i, 7) and wants i+7, as text and as structured content.
func addTool(subject string) tool {
	return tool{
		subject: subject,
		name:    "add",
		args: func(i int) json.RawMessage {
			return fmt.Appendf(nil, `{"a":%d,"b":7}`, i)
		},
		want: func(i int, r callResult) error {
			want := strconv.Itoa(i + 7)
			if r.IsError || r.text() != want || !jsonEqual(r.StructuredContent, `{"result":`+want+`}`) {
				return fmt.Errorf("add(%d, 7) answered %s %s (error %v), want %s", i, r.text(), r.StructuredContent, r.IsError, want)
			}
			return nil
		},
	}
}

// catalogTool calls vox_skill_list with an empty skills root: a catalog
// tool whose own work is next to nothing, so its figures are the catalog
// dispatch path (argument decoding, the middleware chain, the result's
// encoding) — what every catalog tool pays before doing anything.
func catalogTool(subject string) tool {
	return tool{
		subject: subject,
		name:    catalogToolName,
		args:    func(int) json.RawMessage { return json.RawMessage(`{}`) },
		want: func(_ int, r callResult) error {
			if r.IsError || !jsonEqual(r.StructuredContent, `{"skills":[]}`) {
				return fmt.Errorf("%s answered %s %s (error %v), want no skills", catalogToolName, r.text(), r.StructuredContent, r.IsError)
			}
			return nil
		},
	}
}

func jsonEqual(got json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// server is one server under test.
type server struct {
	id    string
	label string
	tools []tool
	// command starts the server with n add tools, over stdio when addr is
	// empty, else over streamable HTTP on addr.
	command func(n int, addr string) *exec.Cmd
}

// toolName is the name of the i-th add tool, as every server names it:
// add, then add_001, add_002, …
func toolName(i int) string {
	if i == 0 {
		return "add"
	}
	return fmt.Sprintf("add_%03d", i)
}

// toolNames are the names of n add tools.
func toolNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = toolName(i)
	}
	return names
}

//go:embed tssdk/server.mjs
var tsServer []byte

// setup builds the Go servers and lays out the scratch folder: the
// binaries, vox-mcp's workspaces and the TypeScript server.
type setup struct {
	root, work string
	node       string
	bin        map[string]string
	voxEnv     []string
	// otlp is the sink's URL, the OTLP endpoint of the telemetry-on
	// vox-mcp (empty when it is not measured).
	otlp string
}

// buildServers builds what the chosen servers need into cfg.Work.
func buildServers(cfg *Config) (*setup, error) {
	s := &setup{root: cfg.Root, work: cfg.Work, bin: map[string]string{}}
	// Every Go server is built the same way (as `make release` builds
	// vox-mcp, but keeping symbols for profilers): the main module's in one
	// go build, the Go SDK peer in its own module.
	builds := []struct {
		dir  string
		pkgs map[string]string // server → package
	}{
		{cfg.Root, map[string]string{VoxMCP: "./cmd/vox-mcp", VoxOTel: "./cmd/vox-mcp", Floor: "./bench/peers/floor"}},
		{filepath.Join(cfg.Root, "bench", "peers", "gosdk"), map[string]string{GoSDK: "."}},
	}
	for _, b := range builds {
		dir := filepath.Join(cfg.Work, "bin", filepath.Base(b.dir))
		args := []string{"build", "-trimpath", "-o", dir + string(filepath.Separator)}
		for _, id := range cfg.Servers {
			if pkg, ok := b.pkgs[id]; ok {
				if !slices.Contains(args, pkg) { // both vox-mcp servers run one binary
					args = append(args, pkg)
				}
				name := filepath.Base(pkg)
				if pkg == "." {
					name = filepath.Base(b.dir)
				}
				s.bin[id] = filepath.Join(dir, name)
			}
		}
		if len(args) == 4 {
			continue
		}
		cmd := exec.Command(cfg.goCommand(), args...)
		cmd.Dir = b.dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), b.dir, err, msg)
		}
	}
	home := filepath.Join(cfg.Work, "home")
	skills := filepath.Join(cfg.Work, "skills")
	for _, dir := range []string{home, skills} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	// An empty home and an empty skills root: no skill of the machine's
	// user reaches the measured server, and vox_skill_list lists nothing.
	// No OTEL_ variable of the caller's either: the vox-mcp column is
	// telemetry off, and the telemetry-on one sets its own.
	s.voxEnv = append(environWithout("HOME", "VOX_", "OTEL_"), "HOME="+home, "VOX_SKILL_ROOTS="+skills)
	s.voxEnv = append(s.voxEnv, cfg.VoxEnv...)
	for _, n := range []int{1, cfg.ManyTools} {
		if err := writeWorkspace(s.workspace(n), n); err != nil {
			return nil, err
		}
	}
	if slices.Contains(cfg.Servers, TSSDK) {
		node, err := cfg.nodeBinary()
		if err != nil {
			return nil, err
		}
		s.node = node
		if err := s.installTSServer(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// workspace is vox-mcp's workspace root with n add tools.
func (s *setup) workspace(n int) string {
	return filepath.Join(s.work, "workspace-"+strconv.Itoa(n))
}

// toolsPerFile is how many tools each generated .vox file declares: a
// workspace of 500 tools is 50 files, as a repository would spread them.
const toolsPerFile = 10

// writeWorkspace writes a workspace root whose .vox files declare n add
// tools, each `fn NAME(a: int, b: int) to int { a + b }`.
func writeWorkspace(dir string, n int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for first := 0; first < n; first += toolsPerFile {
		var b strings.Builder
		for i := first; i < min(first+toolsPerFile, n); i++ {
			fmt.Fprintf(&b, "@tool %q\nfn %s(a: int, b: int) to int {\n    a + b\n}\n\n", serverDescription, toolName(i))
		}
		name := filepath.Join(dir, fmt.Sprintf("tools_%03d.vox", first/toolsPerFile))
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// installTSServer writes the TypeScript server into the scratch folder,
// beside a node_modules link to e2e/node_modules, where the SDK pinned in
// e2e/package.json is installed.
func (s *setup) installTSServer() error {
	modules := filepath.Join(s.root, "e2e", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		return fmt.Errorf("the TypeScript SDK is not installed in e2e/node_modules (run: cd e2e && npm ci): %w", err)
	}
	dir := filepath.Join(s.work, "tssdk")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	link := filepath.Join(dir, "node_modules")
	_ = os.Remove(link)
	if err := os.Symlink(modules, link); err != nil {
		return err
	}
	// The package.json makes server.mjs an ES module whatever the folder.
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module","private":true}`+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "server.mjs"), tsServer, 0o644)
}

// servers are the chosen servers, ready to start.
func (s *setup) servers(ids []string) []*server {
	var out []*server
	for _, id := range ids {
		switch id {
		case Floor:
			out = append(out, &server{id: Floor, label: "floor (bare mcp-go)", tools: []tool{addTool(SubjectFloor)},
				command: s.goPeer(Floor)})
		case GoSDK:
			out = append(out, &server{id: GoSDK, label: "Go SDK", tools: []tool{addTool(SubjectGoSDK)},
				command: s.goPeer(GoSDK)})
		case TSSDK:
			out = append(out, &server{id: TSSDK, label: "TS SDK", tools: []tool{addTool(SubjectTSSDK)},
				command: func(n int, addr string) *exec.Cmd {
					args := []string{filepath.Join(s.work, "tssdk", "server.mjs"), "--tools", strconv.Itoa(n)}
					if addr != "" {
						args = append(args, "--http", addr)
					}
					cmd := exec.Command(s.node, args...)
					cmd.Dir = filepath.Join(s.work, "tssdk")
					return cmd
				}})
		case VoxMCP:
			out = append(out, &server{id: VoxMCP, label: "vox-mcp", tools: []tool{addTool(SubjectWorkspace), catalogTool(SubjectCatalog)},
				command: s.voxMCP(VoxMCP)})
		case VoxOTel:
			out = append(out, &server{id: VoxOTel, label: "vox-mcp, telemetry on", tools: []tool{addTool(SubjectOTel), catalogTool(SubjectOTelCat)},
				command: s.voxMCP(VoxOTel)})
		}
	}
	return out
}

// voxMCP starts vox-mcp; as VoxOTel with its telemetry on.
func (s *setup) voxMCP(id string) func(n int, addr string) *exec.Cmd {
	return func(n int, addr string) *exec.Cmd {
		// --workspace-tools: tools/list advertises the workspace tools,
		// as the peers advertise theirs.
		args := []string{"--root", s.workspace(n), "--workspace-tools"}
		if addr != "" {
			args = append(args, "--http", addr)
		}
		env := slices.Clone(s.voxEnv)
		if id == VoxOTel {
			// Both of docs/metrics.md §1's ways on at once: OTLP/HTTP
			// export of spans and metrics to the sink, with the SDK's
			// default batching and export interval (OTEL_BSP_*,
			// OTEL_METRIC_EXPORT_INTERVAL unset), and the Prometheus
			// listener on a free loopback port, which nothing scrapes.
			args = append(args, "--metrics", "127.0.0.1:0")
			env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+s.otlp, "OTEL_SERVICE_NAME="+VoxOTel)
		}
		cmd := exec.Command(s.bin[id], args...)
		cmd.Env = env
		return cmd
	}
}

// goPeer starts a Go peer binary.
func (s *setup) goPeer(id string) func(n int, addr string) *exec.Cmd {
	return func(n int, addr string) *exec.Cmd {
		args := []string{"-tools", strconv.Itoa(n)}
		if addr != "" {
			args = append(args, "-http", addr)
		}
		return exec.Command(s.bin[id], args...)
	}
}

// environWithout is the environment less the variables named exactly or,
// for a name ending in _, starting so.
func environWithout(names ...string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if k == n || (strings.HasSuffix(n, "_") && strings.HasPrefix(k, n)) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}

// nodeBinary is the Node.js that runs the TypeScript peer: cfg.Node, else
// the one pinned in e2e/ (e2e/node_modules/.bin/node), else node on PATH.
func (cfg *Config) nodeBinary() (string, error) {
	if cfg.Node != "" {
		return cfg.Node, nil
	}
	pinned := filepath.Join(cfg.Root, "e2e", "node_modules", ".bin", "node")
	if _, err := os.Stat(pinned); err == nil {
		return pinned, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("no Node.js for the TypeScript peer: run cd e2e && npm ci, or put node on PATH")
	}
	return node, nil
}

// goCommand is the go command that builds the Go servers.
func (cfg *Config) goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}
