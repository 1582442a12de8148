package vox

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/vox-lang/vox-mcp/internal/vox/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/schema and the reference tables of docs/vox-language.md")

// TestSchemaGolden compiles input.vox of every testdata/schema/*.txtar and
// compares the tools, resources and diagnostics with the archive's "want"
// file; -update rewrites it.
func TestSchemaGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/schema/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var input []byte
			wantIdx := -1
			for i, f := range ar.Files {
				switch f.Name {
				case "input.vox":
					input = f.Data
				case "want":
					wantIdx = i
				}
			}
			if input == nil {
				t.Fatal("no input.vox")
			}
			got := describeModule(Compile("input.vox", input))
			if *update {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatal("no want file: run go test -run TestSchemaGolden -update")
			}
			if want := ar.Files[wantIdx].Data; !bytes.Equal(got, want) {
				t.Errorf("mismatch (run go test -run TestSchemaGolden -update to accept)\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// describeModule writes what a module declares, one fact per line.
func describeModule(m *Module) []byte {
	var b bytes.Buffer
	for _, tl := range m.Tools() {
		fmt.Fprintf(&b, "tool %s at %d:%d\n  description: %s\n  signature: %s\n  schema: %s\n",
			tl.Name, tl.Line, tl.Col, tl.Description, tl.Signature, tl.InputSchema)
		if tl.Shape != schema.Plain {
			fmt.Fprintf(&b, "  result: %s\n", tl.Shape)
		}
		if tl.OutputSchema != nil {
			fmt.Fprintf(&b, "  output: %s\n", tl.OutputSchema)
		}
		if tl.LongRunning {
			b.WriteString("  long running: a client may call it as a task\n")
		}
	}
	for _, r := range m.Resources() {
		fmt.Fprintf(&b, "resource %s at %d:%d\n  description: %s\n  func: %s\n  mime: %s\n",
			r.URI, r.Line, r.Col, r.Description, r.Func, r.MIMEType)
	}
	for _, p := range m.Prompts() {
		fmt.Fprintf(&b, "prompt %s at %d:%d\n", p.Name, p.Line, p.Col)
		for _, a := range p.Arguments {
			fmt.Fprintf(&b, "  argument %s required=%t: %s\n", a.Name, a.Required, a.Description)
		}
	}
	for _, d := range m.Diagnostics() {
		fmt.Fprintf(&b, "%s\n", d)
	}
	return b.Bytes()
}
