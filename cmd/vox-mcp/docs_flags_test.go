package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/doccmd"
)

// TestDocumentedFlagsExist keeps the vox-mcp flags the README and docs/
// write out true to the binary: every flag of a documented vox-mcp command
// line is one vox-mcp --help lists, so a renamed flag fails here at the
// line of the page that still says the old one.
func TestDocumentedFlagsExist(t *testing.T) {
	var usage bytes.Buffer
	if code := run([]string{"--help"}, strings.NewReader(""), &usage, &usage); code != 0 {
		t.Fatalf("vox-mcp --help: exit %d\n%s", code, usage.String())
	}
	docs, err := doccmd.Find("../..", "vox-mcp")
	if err != nil {
		t.Fatal(err)
	}
	flags := 0
	for _, d := range docs {
		for _, f := range doccmd.Flags(d.Words) {
			flags++
			if !doccmd.Listed(usage.String(), f) {
				t.Errorf("%s: `%s` passes --%s, which vox-mcp --help does not list", d.At, d.Text("vox-mcp"), f)
			}
		}
	}
	if flags < 20 {
		t.Fatalf("found %d documented vox-mcp flags; the scan is broken", flags)
	}
}
