package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// TestTablesAreGofmtStable checks the claim of emit_table.go: the table
// files, written without go/format, are byte for byte what gofmt makes of
// them, for every shape they take — both synthetic catalog shapes, the
// golden catalogs, the hostile catalog of the attack suite, rows whose
// values are longer than go/printer's single-line limit, keys whose sizes
// break alignment, workspace snapshots with and without tools, resources
// and errors, and text with tabs in a comment.
func TestTablesAreGofmtStable(t *testing.T) {
	check := func(t *testing.T, name string, data []byte) {
		t.Helper()
		want, err := format.Source(data)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", name, err, data)
		}
		if !bytes.Equal(want, data) {
			t.Errorf("%s is not gofmt's layout:\n%s", name, lineDiff(data, want))
		}
	}
	checkCatalog := func(t *testing.T, cat *registry.Catalog) {
		t.Helper()
		outs, err := renderCatalog(cat)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			check(t, o.path, o.data)
		}
	}
	parse := func(t *testing.T, src []byte) *registry.Catalog {
		t.Helper()
		cat, errs := ParseCatalog(registry.CatalogPath, src, CatalogOptions{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return cat
	}

	t.Run("synthetic", func(t *testing.T) {
		checkCatalog(t, parse(t, syntheticCatalog(120, false)))
		checkCatalog(t, parse(t, syntheticCatalog(120, true)))
	})
	t.Run("golden", func(t *testing.T) {
		files, _ := filepath.Glob("testdata/catalog/*.txtar")
		for _, file := range files {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if cat, errs := ParseCatalog(registry.CatalogPath, ar.Files[0].Data, CatalogOptions{}); len(errs) == 0 {
				checkCatalog(t, cat)
			}
		}
	})
	t.Run("hostile", func(t *testing.T) {
		ar, err := txtar.ParseFile("../e2e/attacks/testdata/catalog_hostile_text.txtar")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == registry.CatalogPath {
				checkCatalog(t, parse(t, f.Data))
			}
		}
	})
	t.Run("limits", func(t *testing.T) {
		// A value over go/printer's one-line limit (10^6 bytes), keys of
		// very different sizes (alignment sections), long variable names
		// in the Operations list, a single-field CLI literal.
		cat := &registry.Catalog{Source: "contracts/operations/catalog.v1.yaml", SchemaVersion: 1}
		long := strings.Repeat("x", 1_000_001)
		for i, id := range []string{"a", strings.Repeat("b", 60) + ".c", "d.e", strings.Repeat("f", 45)} {
			op := registry.Operation{ID: id, Title: "T", Description: "D", ProductLane: "app"}
			if i == 1 {
				op.Description = long
			}
			if i == 2 {
				op.MCP = &registry.MCP{Name: "vox_d", InputSchema: []byte(`{"type":"object"}`)}
				op.IntentTags = []string{"x"}
			}
			op.CLI = &registry.CLI{Path: []string{"p", fmt.Sprint(i)}}
			cat.Operations = append(cat.Operations, op)
		}
		checkCatalog(t, cat)
	})
	t.Run("workspace", func(t *testing.T) {
		snap := &workspace.Snapshot{Module: "example.com/m"}
		data, _ := renderWorkspace(snap)
		check(t, "empty snapshot", data)

		snap = &workspace.Snapshot{
			Module: "example.com/m", ConfigSHA256: "00",
			Tools: []workspace.SnapshotTool{
				{Name: "a", Description: "A", InputSchema: []byte(`{"type":"object"}`), Signature: "a()", Path: "a.vox", Line: 1, Hash: "h"},
				{Name: "b", Description: strings.Repeat("long ", 20), InputSchema: []byte(`{"additionalProperties":false,"properties":{"x":{"description":"` + strings.Repeat("y", 80) + `","type":"string"}},"required":["x"],"type":"object"}`), Signature: "b(x: str)", Path: "b.vox", Line: 2},
			},
			Resources: []workspace.SnapshotResource{{URI: "vox://r", Func: "r", Path: "r.vox", Line: 3}},
			Result: workspace.Result{
				ToolCount: 2, ResourceCount: 1, Shadowed: []string{"s"},
				Errors: []workspace.FileError{{Path: "c.vox", Message: "c.vox:1:1: bad `x`\t\"y\""}, {Path: "d.vox", Message: "e"}},
			},
		}
		data, _ = renderWorkspace(snap)
		check(t, "snapshot", data)

		f := &tableFile{pkg: "main", command: "vox gen app", source: "vox/a\tb.vox tables.go", formatCheck: "vox gen app in this directory"}
		f.addSnapshot("tables are the app's tools.", "tables", snap)
		check(t, "app tables", f.render())
	})
}

// lineDiff shows the first differing line of got and want.
func lineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
