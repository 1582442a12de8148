package vox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
)

// Declaration heads as a reader would count them: a tool or resource head
// at the start of a line. The corpus is written so that every head starts
// its line, which gives an oracle independent of the parser.
var (
	toolHeadRE     = regexp.MustCompile(`(?m)^(@tool\b|@mcp\.tool\b|tool ")`)
	resourceHeadRE = regexp.MustCompile(`(?m)^(@resource\b|@mcp\.resource\b|resource ")`)
)

// TestCorpus compiles the realistic corpus (testdata/corpus: tools mixed
// with components, tables, workflows, routes and markup) and checks that
// every file compiles without errors, that every tool and resource head is
// found, and that the names match testdata/corpus/manifest.txt (-update
// rewrites it).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.vox")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("the corpus has %d files, want at least 30", len(files))
	}
	var manifest bytes.Buffer
	tools, resources := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := Compile(filepath.ToSlash(file), src)
		for _, d := range m.Diagnostics() {
			if d.Severity == diag.Error {
				t.Errorf("%s", d)
			}
		}
		if want := len(toolHeadRE.FindAll(src, -1)); len(m.Tools()) != want {
			t.Errorf("%s: found %d tools, the file has %d tool heads", file, len(m.Tools()), want)
		}
		if want := len(resourceHeadRE.FindAll(src, -1)); len(m.Resources()) != want {
			t.Errorf("%s: found %d resources, the file has %d resource heads", file, len(m.Resources()), want)
		}
		fmt.Fprintf(&manifest, "%s\n", filepath.Base(file))
		for _, tl := range m.Tools() {
			fmt.Fprintf(&manifest, "  tool %s %d:%d\n", tl.Name, tl.Line, tl.Col)
			tools++
		}
		for _, r := range m.Resources() {
			fmt.Fprintf(&manifest, "  resource %s %s %d:%d\n", r.URI, r.Func, r.Line, r.Col)
			resources++
		}
	}
	fmt.Fprintf(&manifest, "%d tools, %d resources\n", tools, resources)
	const manifestFile = "testdata/corpus/manifest.txt"
	if *update {
		if err := os.WriteFile(manifestFile, manifest.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(manifestFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCorpus -update)", err)
	}
	if !bytes.Equal(manifest.Bytes(), want) {
		t.Errorf("tools and resources differ from %s (run go test -run TestCorpus -update to accept):\n%s", manifestFile, manifest.Bytes())
	}
}
