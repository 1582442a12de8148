package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
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
				op.SideEffects = []string{"writes_files", "network"}
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

// TestSchemaFragmentsMatchParsedSplit checks the scanning schemaFragments
// against the split it replaced, which parsed the literal and compacted
// every value again: same fragments for every schema of the synthetic,
// golden and hostile catalogs and for crafted canonical literals (the
// generator only writes canonical ones; a non-canonical literal, which the
// old split wrote whole, is split too: the same bytes either way).
func TestSchemaFragmentsMatchParsedSplit(t *testing.T) {
	var lits [][]byte
	addCatalog := func(src []byte) {
		cat, errs := ParseCatalog(registry.CatalogPath, src, CatalogOptions{})
		if len(errs) > 0 {
			return
		}
		for _, op := range cat.Operations {
			if op.MCP != nil {
				lits = append(lits, op.MCP.InputSchema)
				if op.MCP.OutputSchema != nil {
					lits = append(lits, op.MCP.OutputSchema)
				}
			}
		}
	}
	addCatalog(syntheticCatalog(20, false))
	addCatalog(syntheticCatalog(20, true))
	files, _ := filepath.Glob("testdata/catalog/*.txtar")
	files = append(files, "../e2e/attacks/testdata/catalog_hostile_text.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, "catalog.v1.yaml") {
				addCatalog(f.Data)
			}
		}
	}
	if src, err := os.ReadFile("../" + registry.CatalogPath); err == nil {
		addCatalog(src)
	}
	long := strings.Repeat("z", 70)
	for _, s := range []string{
		`{}`, `[]`, `{"a":1}`, `"x"`, `12`, `null`,
		`{"a":{"b":"` + long + `","c":[{"d":"` + long + `","e":1}]},"f":true}`,
		`{"q\"uo\\te":"` + long + `","n":{"x":{"y":{"z":"` + long + `"}}},"m":-1500}`,
		`[{"a":"` + long + `","b":"` + long + `"}]`,
		`{"a":"` + long + `"`, `{"a" "b"}`, `{"a":1,}`, `nope{`,
	} {
		lits = append(lits, []byte(s))
	}
	if len(lits) < 50 {
		t.Fatalf("only %d literals", len(lits))
	}
	for _, lit := range lits {
		got, want := schemaFragments(lit), parsedFragments(lit)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", lit, got, want)
		}
	}
}

// parsedFragments is the split schemaFragments replaced.
func parsedFragments(b []byte) []string {
	v, err := schemajson.Parse(b)
	if err != nil {
		return []string{string(b)}
	}
	var lines []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
		}
	}
	var value func(v schemajson.Value)
	value = func(v schemajson.Value) {
		compact := schemajson.Compact(v)
		if v.Kind != schemajson.Object || len(compact) <= schemaLineWidth {
			cur.Write(compact)
			return
		}
		cur.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				cur.WriteByte(',')
				flush()
			}
			cur.Write(schemajson.AppendString(nil, m.Key))
			cur.WriteByte(':')
			value(m.Value)
		}
		cur.WriteByte('}')
	}
	value(v)
	flush()
	if strings.Join(lines, "") != string(b) {
		return []string{string(b)}
	}
	return lines
}

// TestContractIsGofmtStable checks the claim of emit_code.go: the files
// of the handler contract (handlers.go, tools_NNN.go), written without
// go/format,
// are byte for byte what gofmt makes of them — for the synthetic, golden,
// hostile and repository catalogs and a catalog of the shapes the
// contract takes (defaults of every kind, a schema-literal default longer
// than a line, nullable, optional, nested and recursive results, enums,
// string maps, structs of one field and of none).
func TestContractIsGofmtStable(t *testing.T) {
	long := strings.Repeat("w", 60)
	shapes := `schema_version: 1
operations:
  - id: shapes.all
    title: Shapes
    description: Every shape.
    product_lane: app
    side_effect_class: none
    mcp:
      name: vox_shapes
      input_schema:
        type: object
        properties:
          s: {type: string, default: "a\tb"}
          i: {type: integer, default: -3, minimum: -5}
          f: {type: number, default: 0.0000001}
          b: {type: boolean, default: true}
          l: {type: array, items: {type: string}, default: [x, y]}
          m: {type: object, additionalProperties: {type: string}, default: {k: v, "q\"": w}}
          o: {type: object, default: {first: ` + long + `, second: ` + long + `, third: {nested: ` + long + `}}}
          e: {type: string, enum: [one, two]}
          n: {type: [string, "null"]}
          u: {type: [string, integer]}
      output_schema:
        type: object
        required: [rows, one]
        properties:
          rows: {type: array, items: {type: array, items: {type: object, properties: {v: {type: [number, "null"]}}, required: [v]}}}
          one: {type: object, properties: {only: {type: string}}, required: [only]}
          none: {type: object, properties: {}}
          opt: {type: [integer, "null"]}
          tags: {type: array, items: {type: string}}
          raw: {}
  - id: shapes.open
    title: Open
    description: An open schema.
    product_lane: app
    side_effect_class: none
    mcp:
      name: vox_open
      input_schema: {type: object, properties: {x: {type: string}}}
  - id: shapes.empty
    title: Empty
    description: No arguments.
    product_lane: app
    side_effect_class: none
    mcp:
      name: vox_empty
      input_schema: {type: object, additionalProperties: false}
  - id: shapes.long
    title: Long
    description: A name longer than forty bytes, whose Bind entry starts a new alignment section.
    product_lane: app
    side_effect_class: none
    mcp:
      name: vox_a_tool_name_well_past_forty_bytes_long_indeed
      input_schema: {type: object, additionalProperties: false}
  - id: shapes.zz
    title: After the long one
    description: Short again.
    product_lane: app
    side_effect_class: none
    mcp:
      name: vox_zz
      input_schema: {type: object, additionalProperties: false}
`
	srcs := [][]byte{syntheticCatalog(30, false), syntheticCatalog(30, true), []byte(shapes)}
	files, _ := filepath.Glob("testdata/catalog/*.txtar")
	files = append(files, "../e2e/attacks/testdata/catalog_hostile_text.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, "catalog.v1.yaml") {
				srcs = append(srcs, f.Data)
			}
		}
	}
	if src, err := os.ReadFile("../" + registry.CatalogPath); err == nil {
		srcs = append(srcs, src)
	}
	tools := 0
	for i, src := range srcs {
		cat, errs := ParseCatalog(registry.CatalogPath, src, CatalogOptions{})
		if len(errs) > 0 {
			if i == 2 {
				t.Fatalf("the shapes catalog: %v", errs)
			}
			continue
		}
		outs, err := renderCatalog(cat)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			tools++
			want, err := format.Source(o.data)
			if err != nil {
				t.Fatalf("%s of catalog %d does not parse: %v\n%s", o.path, i, err, o.data)
			}
			if !bytes.Equal(want, o.data) {
				t.Errorf("%s of catalog %d is not gofmt's layout:\n%s", o.path, i, lineDiff(o.data, want))
			}
		}
	}
	if tools < 5 {
		t.Fatalf("only %d tools files checked", tools)
	}
}
