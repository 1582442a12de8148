package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// The native peer of the workspace tool "slugify" in the call benchmark:
// a catalog handler doing the same work in Go, through the same untyped
// table and toolcall decoding that generated handlers use.
func benchNativeSlugify(_ *toolcall.Call, raw json.RawMessage) ([]byte, error) {
	a, err := toolcall.DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	title, sep := "", "-"
	if v, ok := a.Get("title"); ok {
		if title, err = v.String(); err != nil {
			return nil, err
		}
	}
	if v, ok := a.Get("sep"); ok {
		if sep, err = v.String(); err != nil {
			return nil, err
		}
	}
	var words []string
	for _, w := range strings.Split(strings.ToLower(title), " ") {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	var e toolcall.Encoder
	e.Open()
	e.Key(`"result"`)
	e.String(strings.Join(words, sep))
	e.Close()
	return e.Bytes()
}

const benchSlugifyVox = `@tool "Turn a title into a URL slug: lowercase words joined by a separator"
fn slugify(title: str, sep: str = "-") to str {
    let words = []
    for word in title.to_lower().split(" ") {
        let w = word.trim()
        if not w.is_empty() {
            words.push(w)
        }
    }
    words.join(sep)
}
`

// stdioBench is one server serving stdio over in-process pipes; mcp-go
// allows one stdio listener per process, so both sides of the comparison
// share it.
type stdioBench struct {
	in  io.Writer
	out *bufio.Scanner
	mu  sync.Mutex
	id  int
}

var stdioBenchOnce = sync.OnceValues(func() (*stdioBench, error) {
	root, err := os.MkdirTemp("", "vox-bench-stdio-")
	if err != nil {
		return nil, err
	}
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	os.MkdirAll(filepath.Join(root, "contracts", "mcp"), 0o755)
	os.WriteFile(filepath.Join(root, filepath.FromSlash(workspace.ConfigPath)), []byte(testScanConfig), 0o644)
	os.WriteFile(filepath.Join(root, "tools", "slugify.vox"), []byte(benchSlugifyVox), 0o644)
	cat := &registry.Catalog{Source: "bench", SchemaVersion: 1, Operations: []registry.Operation{{
		ID: "bench.native-slugify", Title: "Slugify", Description: "Turn a title into a URL slug.", ProductLane: "platform",
		MCP: &registry.MCP{Name: "bench_native_slugify", Exposure: "core",
			InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"title":{"type":"string"},"sep":{"default":"-","type":"string"}},"required":["title"],"type":"object"}`)},
	}}}
	table := func(*Services) map[string]toolcall.Handler {
		return map[string]toolcall.Handler{"bench_native_slugify": benchNativeSlugify}
	}
	s, err := New(Options{Root: root, Catalog: cat, Handlers: table, Skills: &skills.Config{Workspace: root, Roots: []string{filepath.Join(root, "no-skills")}}})
	if err != nil {
		return nil, err
	}
	if err := s.WaitWorkspace(context.Background()); err != nil {
		return nil, err
	}
	// Operating system pipes, as a server process's stdin and stdout.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go s.ServeStdio(context.Background(), inR, outW)
	sb := &stdioBench{in: inW, out: bufio.NewScanner(outR)}
	sb.out.Buffer(make([]byte, 1<<20), 1<<20)
	if _, err := sb.roundTrip(`"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`); err != nil {
		return nil, err
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sb, nil
})

// roundTrip sends one request and reads lines until its response.
func (sb *stdioBench) roundTrip(body string) (string, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.id++
	if _, err := fmt.Fprintf(sb.in, `{"jsonrpc":"2.0","id":%d,%s}`+"\n", sb.id, body); err != nil {
		return "", err
	}
	want := fmt.Sprintf(`"id":%d,`, sb.id)
	for sb.out.Scan() {
		if line := sb.out.Text(); strings.Contains(line, want) {
			return line, nil
		}
	}
	return "", fmt.Errorf("stdio closed: %v", sb.out.Err())
}

// BenchmarkStdioCall compares one tools/call round trip over stdio of the
// workspace tool slugify (Vox, through the interpreter) with the catalog
// tool bench_native_slugify doing the same work in Go. Target: workspace
// ≤ 1.3× native.
func BenchmarkStdioCall(b *testing.B) {
	sb, err := stdioBenchOnce()
	if err != nil {
		b.Fatal(err)
	}
	args := `{"title":"  The Quick Brown Fox Jumps Over The Lazy Dog  ","sep":"-"}`
	for _, c := range []struct{ name, tool string }{{"native", "bench_native_slugify"}, {"workspace", "slugify"}} {
		b.Run(c.name, func(b *testing.B) {
			body := fmt.Sprintf(`"method":"tools/call","params":{"name":%q,"arguments":%s}`, c.tool, args)
			for b.Loop() {
				line, err := sb.roundTrip(body)
				if err != nil || !strings.Contains(line, "the-quick-brown-fox-jumps-over-the-lazy-dog") {
					b.Fatalf("%v %s", err, line)
				}
			}
		})
	}
}

// BenchmarkStartup builds a server from synthetic tables — 500 catalog
// tools (served without handlers: the untyped table is empty),
// a snapshot of 1,000 workspace tools describing the root, 100 skills on
// disk — and answers the first tools/list. Target < 50 ms.
func BenchmarkStartup(b *testing.B) {
	root := b.TempDir()
	writeBenchFile(b, root, "go.mod", "module example.com/startup\n\ngo 1.26\n")
	writeBenchFile(b, root, workspace.ConfigPath, testScanConfig)
	// The snapshot is generated from 100 files of 10 tools each, as go
	// generate would, so the background rescan finds it current.
	for f := range 100 {
		var src strings.Builder
		for j := range 10 {
			fmt.Fprintf(&src, "@tool \"Workspace tool %d of file %d: scales its numbers\"\nfn ws_tool_%03d_%d(values: list[int], factor: float = 2.0) to list[float] {\n    values.map(fn(v) v * factor)\n}\n\n", j, f, f, j)
		}
		writeBenchFile(b, root, fmt.Sprintf("tools/f%03d.vox", f), src.String())
	}
	fresh, err := (&workspace.Loader{Root: root}).Load()
	if err != nil || fresh.Result.ToolCount != 1000 {
		b.Fatalf("%v %+v", err, fresh.Result)
	}
	snap := fresh.Snapshot("example.com/startup")
	skillRoot := filepath.Join(root, "skills")
	for i := range 100 {
		name := fmt.Sprintf("skill-%03d", i)
		writeBenchFile(b, skillRoot, name+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: Synthetic skill %d for the start-up benchmark. Use when testing.\nmetadata:\n  vox-tools: vox_op_0001, ws_tool_%03d_0\n---\n# Skill %d\n\nDo the thing.\n", name, i, i, i))
	}
	cat := syntheticCatalog(500)
	opts := Options{Root: root, Catalog: cat, Snapshot: snap, Skills: &skills.Config{Workspace: root, Roots: []string{skillRoot}}}
	init := json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		s.MCP().HandleMessage(ctx, init)
		resp := s.MCP().HandleMessage(ctx, listRequest)
		out, err := json.Marshal(resp)
		if err != nil || len(out) < 100_000 {
			b.Fatalf("%v %d bytes", err, len(out))
		}
		b.StopTimer()
		s.WaitWorkspace(ctx) // let the background scan finish before the next round
		b.StartTimer()
	}
}

func writeBenchFile(b *testing.B, root, rel, body string) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRefreshServer is vox_workspace_mcp_refresh's work on a server
// serving 2,000 and 20,000 files of 8 tools each (20,000 only without
// -short) — the loader's refresh, the sync of the published tool set and
// mcp-go's registration — when one file's body changed (nothing is
// registered), when one file was added or removed in turn (its 8 tools
// registered or deleted), and when one file's descriptions changed (8
// definitions registered again) (docs/benchmarks.md, Refresh).
func BenchmarkRefreshServer(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		if n > 2000 && testing.Short() {
			continue
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := b.TempDir()
			writeBenchFile(b, root, workspace.ConfigPath, testScanConfig)
			file := func(i int, desc string) string {
				var src strings.Builder
				for j := range 8 {
					fmt.Fprintf(&src, "@tool \"Tool %d of file %d%s\"\nfn t%d_%d(a: int, b: int = 2) to int { a + b }\n\n", j, i, desc, i, j)
				}
				return src.String()
			}
			for i := range n {
				writeBenchFile(b, root, fmt.Sprintf("tools/f%05d.vox", i), file(i, ""))
			}
			s, err := New(Options{Root: root, Catalog: testCatalog(), Handlers: testTable})
			if err != nil {
				b.Fatal(err)
			}
			s.WaitWorkspace(context.Background())
			refresh := func(b *testing.B, want int) {
				res, err := s.RefreshWorkspace()
				if err != nil || res.ToolCount != want {
					b.Fatalf("%v %d tools, want %d", err, res.ToolCount, want)
				}
			}
			p := filepath.Join(root, "tools", fmt.Sprintf("f%05d.vox", n/2))
			edit := func(b *testing.B, i int, src string) {
				b.StopTimer()
				os.WriteFile(p, []byte(src), 0o644)
				mt := time.Now().Add(time.Duration(i) * time.Second)
				os.Chtimes(p, mt, mt)
				b.StartTimer()
			}
			b.Run("one-edited", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					edit(b, i, file(n/2, "")+fmt.Sprintf("// %d\n", i))
					refresh(b, 8*n)
				}
			})
			b.Run("one-added-or-removed", func(b *testing.B) {
				added := filepath.Join(root, "tools", fmt.Sprintf("f%05d_new.vox", n/2))
				i := 0
				for b.Loop() {
					b.StopTimer()
					if i++; i%2 == 1 {
						os.WriteFile(added, []byte(file(n, "")), 0o644)
					} else {
						os.Remove(added)
					}
					b.StartTimer()
					refresh(b, 8*n+8*(i%2))
				}
				b.StopTimer()
				os.Remove(added)
				refresh(b, 8*n)
			})
			b.Run("one-described", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					edit(b, i, file(n/2, fmt.Sprintf(", version %d", i)))
					refresh(b, 8*n)
				}
			})
		})
	}
}
