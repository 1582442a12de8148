package gen

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProfile(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	n := 50000
	root := t.TempDir()
	p := filepath.Join(root, "contracts", "operations", "catalog.v1.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, syntheticCatalog(n, false), 0o644)
	writeSyntheticWorkspace(t, root, n/5)
	if _, err := Generate(root, true); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"generated/catalog", "generated/workspace"} {
		t.Log(f, treeSize(t, filepath.Join(root, f)))
	}
	runtime.GC()
	done := make(chan bool)
	var maxHeap uint64
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > maxHeap+(20<<20) {
				maxHeap = ms.HeapAlloc
				f, _ := os.Create("/tmp/gsx/heap.pprof")
				pprof.WriteHeapProfile(f)
				f.Close()
				t.Logf("heap %d MB at %v", ms.HeapAlloc>>20, time.Now().Format("15:04:05.000"))
			}
		}
	}()
	t.Logf("start %v", time.Now().Format("15:04:05.000"))
	if _, err := Generate(root, false); err != nil {
		t.Fatal(err)
	}
	close(done)
	t.Logf("end %v peak %d MB", time.Now().Format("15:04:05.000"), peakRSS()>>20)
}
