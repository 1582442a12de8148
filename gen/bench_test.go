package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/contractdoc"
)

// BenchmarkGenerate measures a whole Generate(root, write=false) run —
// load, validate, render, compare — on synthetic repositories: a catalog
// of ops rows and a workspace of vox one-tool .vox files (scanned,
// compiled and snapshotted into generated/workspace). The ratios between
// the sizes show how generation scales (target: 10× input ≤ 11× time).
// Beside the time it reports the CPU time per run (cpu-s/op, which a
// loaded machine inflates less than the time), the input's size
// (input-MB), the process's peak RSS during the runs (peak-RSS-MB, Linux
// only: the peak is reset before them) and their ratio (RSS/input, target
// under 8 at 50,000 rows); docs/benchmarks.md. The 50,000-row size (a
// 31 MB catalog, about 25 s a run) is part of make bench; -short skips it.
func BenchmarkGenerate(b *testing.B) {
	for _, size := range []struct{ ops, vox int }{{500, 100}, {5000, 1000}, {50000, 10000}} {
		ops := size.ops
		b.Run(fmt.Sprintf("ops=%d,vox=%d", size.ops, size.vox), func(b *testing.B) {
			if testing.Short() && ops > 5000 {
				b.Skip("-short: the 50,000-row size runs in make bench")
			}
			root := b.TempDir()
			p := filepath.Join(root, "contracts", "operations", "catalog.v1.yaml")
			os.MkdirAll(filepath.Dir(p), 0o755)
			src := syntheticCatalog(ops, false)
			if len(src) > contractdoc.RowsLimits.MaxBytes {
				b.Skipf("the catalog is %d bytes, over the contract limit of %d", len(src), contractdoc.RowsLimits.MaxBytes)
			}
			if err := os.WriteFile(p, src, 0o644); err != nil {
				b.Fatal(err)
			}
			writeSyntheticWorkspace(b, root, size.vox)
			input := treeSize(b, filepath.Join(root, "contracts")) + treeSize(b, filepath.Join(root, "tools"))
			if _, err := Generate(root, true); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			debug.FreeOSMemory()
			resetPeakRSS()
			cpu := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				res, err := Generate(root, false)
				if err != nil || len(res.Stale()) != 0 {
					b.Fatalf("err=%v stale=%d", err, len(res.Stale()))
				}
			}
			b.StopTimer()
			if used := cpuTime() - cpu; used > 0 {
				b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
			}
			b.ReportMetric(float64(input)/(1<<20), "input-MB")
			if peak := peakRSS(); peak > 0 {
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
				b.ReportMetric(float64(peak)/float64(input), "RSS/input")
			}
		})
	}
}

// treeSize is the size of the regular files under dir.
func treeSize(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// resetPeakRSS resets the process's peak RSS (VmHWM) to its current RSS,
// on Linux (proc(5), clear_refs); elsewhere it does nothing.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak RSS (VmHWM) in bytes, 0 when unknown.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
