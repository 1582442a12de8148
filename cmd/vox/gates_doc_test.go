package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the derived sections of docs/")

const (
	gatesBegin = "<!-- gates:begin (derived from cmd/vox's gateTable; go test ./cmd/vox -run TestGateDocs -update-docs) -->\n"
	gatesEnd   = "<!-- gates:end -->\n"
)

// gateDocTable is the gate table of docs/ci-gates.md, written from
// gateTable.
func gateDocTable() string {
	ordered := slices.Clone(gateTable)
	slices.SortFunc(ordered, func(a, b gate) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	b.WriteString("| command | checks | arguments |\n|---|---|---|\n")
	for _, g := range ordered {
		args := "none"
		if g.takesArgs {
			args = "folders (or `*.skill.md`, `Plugin.toml` files) to check besides the roots"
		}
		fmt.Fprintf(&b, "| `vox ci %s` | %s | %s |\n", g.name, g.checks, args)
	}
	b.WriteString("| `vox ci all` | every gate above, in this order; exit 1 if and only if a gate that ran found a problem | none |\n")
	return b.String()
}

// TestGateDocs keeps the gate table of docs/ci-gates.md what gateTable
// says, and every gate's command in vox's command table.
func TestGateDocs(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "ci-gates.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, gatesBegin), strings.Index(doc, gatesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no section between %q and %q", path, gatesBegin, gatesEnd)
	}
	want := doc[:i+len(gatesBegin)] + gateDocTable() + doc[j:]
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("the gate table of docs/ci-gates.md is stale: run go test ./cmd/vox -run TestGateDocs -update-docs\nwant:\n%s", gateDocTable())
	}
	paths := commandPaths()
	for _, g := range gateTable {
		if !slices.ContainsFunc(paths, func(p []string) bool { return slices.Equal(p, []string{"ci", g.name}) }) {
			t.Errorf("gate %s has no vox ci command", g.name)
		}
	}
}
