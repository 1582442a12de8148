package vox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/check"
)

// BenchmarkCompileCorpus compiles the realistic corpus (32 files of tools
// mixed with the wider language): the per-file cost of a workspace refresh.
func BenchmarkCompileCorpus(b *testing.B) { benchCompile(b, check.Options{}) }

// BenchmarkCompileCorpusNoCheck is BenchmarkCompileCorpus without the
// checker: the pair gives what checking costs a compile.
func BenchmarkCompileCorpusNoCheck(b *testing.B) { benchCompile(b, check.Options{Skip: true}) }

func benchCompile(b *testing.B, opts check.Options) {
	files, _ := filepath.Glob("testdata/corpus/*.vox")
	var srcs [][]byte
	var total int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, data)
		total += int64(len(data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if m := CompileWith(files[i], src, opts); m.HasErrors() {
				b.Fatal(m.Diagnostics())
			}
		}
	}
}

// shapesSrc returns the same object three ways: undeclared (the plain
// shape), as a record (a structured result, checked against the type) and
// as content blocks (checked blocks), for BenchmarkResultShapes.
const shapesSrc = `type Row { name: str, count: int, tags: list[str] }
type Table { rows: list[Row] }

fn rows() { let mut out = []
    for i in range(50) { out.push({name: "row " + str(i), count: i, tags: ["a", "b"]}) }
    {rows: out} }

@tool "plain"
fn plain() { rows() }

@tool "structured"
fn structured() to Table { rows() }

@tool "blocks"
fn blocks() to list[Content] { [content.text(json.stringify(rows())), content.image("iVBORw0KGgo=", "image/png")] }
`

// BenchmarkResultShapes measures what the result shapes of
// docs/tool-results.md §2 add to a call: the structured result is decoded
// again and checked against its type; content blocks are read and
// checked.
func BenchmarkResultShapes(b *testing.B) {
	m := Compile("shapes.vox", []byte(shapesSrc))
	if m.HasErrors() {
		b.Fatal(m.Diagnostics())
	}
	for _, fn := range []string{"plain", "structured", "blocks"} {
		b.Run(fn, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Call(b.Context(), fn, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
