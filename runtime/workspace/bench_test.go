package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchWorkspace is a workspace of 2,000 .vox files of about 2 KB.
func benchWorkspace(b *testing.B) string {
	root := workspaceTree(b, cfgExamples, nil)
	synthetic(b, root, 2000)
	return root
}

// BenchmarkRefreshFull2000 is a refresh of 2,000 files of ~2 KB that
// compiles and checks everything (a fresh loader: nothing to reuse).
// Target < 250 ms.
func BenchmarkRefreshFull2000(b *testing.B) {
	root := benchWorkspace(b)
	refreshFull(b, root)
}

// BenchmarkRefreshFull2000NoCheck is BenchmarkRefreshFull2000 without the
// checker: the pair gives what checking costs a refresh (target: within
// 1.3x).
func BenchmarkRefreshFull2000NoCheck(b *testing.B) {
	root := benchWorkspace(b)
	compileOptions.Skip = true
	defer func() { compileOptions.Skip = false }()
	refreshFull(b, root)
}

// BenchmarkRefreshOneChanged2000NoCheck is BenchmarkRefreshOneChanged2000
// without the checker.
func BenchmarkRefreshOneChanged2000NoCheck(b *testing.B) {
	compileOptions.Skip = true
	defer func() { compileOptions.Skip = false }()
	BenchmarkRefreshOneChanged2000(b)
}

func refreshFull(b *testing.B, root string) {
	start := processCPU()
	for b.Loop() {
		s, err := (&Loader{Root: root}).Load()
		if err != nil || s.Result.ToolCount != 16000 {
			b.Fatalf("%v %+v", err, s.Result)
		}
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRefreshOneChanged2000 is a refresh of the same workspace where
// one file changed since the previous refresh: the others are reused by
// size and modification time, the changed one recompiled. Target < 10 ms.
func BenchmarkRefreshOneChanged2000(b *testing.B) {
	root := benchWorkspace(b)
	l := &Loader{Root: root}
	if _, err := l.Load(); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(root, "tools", "f0999.vox")
	base, _ := os.ReadFile(p)
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		src := append(append([]byte(nil), base...), fmt.Sprintf("// edit %d\n", i)...)
		os.WriteFile(p, src, 0o644)
		mt := time.Now().Add(time.Duration(i) * time.Second)
		os.Chtimes(p, mt, mt)
		b.StartTimer()
		s, err := l.Load()
		if err != nil || s.Result.ToolCount != 16000 {
			b.Fatalf("%v %+v", err, s.Result)
		}
	}
}

// BenchmarkCallSmallTool is one call of add(a, b) through the surface:
// the check that the file is current, the interpreter and its JSON bridge,
// the limits — the per-call cost a workspace tool adds to the server's.
func BenchmarkCallSmallTool(b *testing.B) {
	root := workspaceTree(b, cfgExamples, map[string]string{"tools/add.vox": "@tool \"Add\"\nfn add(a: int, b: int) to int { a + b }\n"})
	s, err := (&Loader{Root: root}).Load()
	if err != nil {
		b.Fatal(err)
	}
	tool, ok := s.Tool("add")
	if !ok {
		b.Fatal("add not loaded")
	}
	ctx, args := context.Background(), json.RawMessage(`{"a":1,"b":7}`)
	b.ReportAllocs()
	for b.Loop() {
		if res, err := s.CallTool(ctx, tool, args, nil); err != nil || string(res.JSON) != "8" {
			b.Fatal(res, err)
		}
	}
}
