package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkRefresh refreshes workspaces of 200, 2,000 and 20,000 files of
// ~2 KB (20,000 only without -short) as a server does — the previous
// surface held while the next one loads, ReturnMemory after it — where
// nothing changed, where one file was edited and where every file was
// renamed (each one compiled anew). Besides the time it reports, after
// the runs and a collection, the live heap (HeapAlloc) and the process's
// resident memory (VmRSS) in MB, and their ratio (docs/benchmarks.md,
// Refresh: targets one edit under 10 ms at every size, rss/heap ≤ 1.5 after
// twelve full refreshes of 20,000 files: -benchtime 12x).
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{200, 2000, 20000} {
		if n > 2000 && testing.Short() {
			continue
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := workspaceTree(b, cfgExamples, nil)
			synthetic(b, root, n)
			l := &Loader{Root: root}
			cur, err := l.Load()
			if err != nil {
				b.Fatal(err)
			}
			// As the server does after its first scan (refreshWith).
			ReturnMemory(cur)
			refresh := func(b *testing.B) {
				next, err := l.Load()
				if err != nil || next.Result.ToolCount != 8*n {
					b.Fatalf("%v %+v", err, next.Result)
				}
				cur = next
				ReturnMemory(cur)
			}
			b.Run("nothing-changed", func(b *testing.B) {
				for b.Loop() {
					refresh(b)
				}
				reportMemory(b)
			})
			b.Run("one-edited", func(b *testing.B) {
				p := filepath.Join(root, "tools", fmt.Sprintf("f%04d.vox", n/2))
				base, err := os.ReadFile(p)
				if err != nil {
					b.Fatal(err)
				}
				i := 0
				for b.Loop() {
					b.StopTimer()
					i++
					os.WriteFile(p, append(bytes.Clone(base), fmt.Sprintf("// edit %d\n", i)...), 0o644)
					mt := time.Now().Add(time.Duration(i) * time.Second)
					os.Chtimes(p, mt, mt)
					b.StartTimer()
					refresh(b)
				}
				reportMemory(b)
			})
			b.Run("one-added-or-removed", func(b *testing.B) {
				p := filepath.Join(root, "tools", fmt.Sprintf("f%04d_new.vox", n/2))
				base, err := os.ReadFile(filepath.Join(root, "tools", fmt.Sprintf("f%04d.vox", n/2)))
				if err != nil {
					b.Fatal(err)
				}
				src := bytes.ReplaceAll(base, []byte("fn t"), []byte("fn new_t"))
				i := 0
				for b.Loop() {
					b.StopTimer()
					if i++; i%2 == 1 {
						os.WriteFile(p, src, 0o644)
					} else {
						os.Remove(p)
					}
					b.StartTimer()
					next, err := l.Load()
					if want := 8*n + 8*(i%2); err != nil || next.Result.ToolCount != want {
						b.Fatalf("%v %+v, want %d tools", err, next.Result, want)
					}
					cur = next
					ReturnMemory(cur)
				}
				b.StopTimer()
				reportMemory(b)
				os.Remove(p)
				if _, err := l.Load(); err != nil {
					b.Fatal(err)
				}
			})
			b.Run("all-renamed", func(b *testing.B) {
				prefix := []string{"f", "g"}
				i := 0
				for b.Loop() {
					b.StopTimer()
					for k := range n {
						from := filepath.Join(root, "tools", fmt.Sprintf("%s%04d.vox", prefix[i%2], k))
						to := filepath.Join(root, "tools", fmt.Sprintf("%s%04d.vox", prefix[(i+1)%2], k))
						if err := os.Rename(from, to); err != nil {
							b.Fatal(err)
						}
					}
					i++
					b.StartTimer()
					refresh(b)
				}
				b.StopTimer()
				reportMemory(b)
				if i%2 == 1 { // the files keep their names for the next run
					for k := range n {
						os.Rename(filepath.Join(root, "tools", fmt.Sprintf("g%04d.vox", k)), filepath.Join(root, "tools", fmt.Sprintf("f%04d.vox", k)))
					}
				}
			})
			runtime.KeepAlive(cur)
		})
	}
}

// reportMemory reports the live heap after a collection, the heap's spans
// in use, the resident memory and the ratio of resident memory to live
// heap.
func reportMemory(b *testing.B) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap := float64(ms.HeapAlloc) / (1 << 20)
	rss := float64(vmRSS()) / (1 << 20)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(heap, "heap-MB")
	// The spans holding the live heap: above it by the free room between
	// live objects, which the runtime cannot return.
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "inuse-MB")
	if rss > 0 {
		b.ReportMetric(rss, "rss-MB")
		b.ReportMetric(rss/heap, "rss/heap")
	}
}

// vmRSS is the process's resident memory from /proc/self/status; 0 where
// there is none.
func vmRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return kb << 10
		}
	}
	return 0
}
