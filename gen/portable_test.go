package gen

import (
	"testing"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// TestCatalogUnionsArePortable keeps every schema of this repository's
// catalog free of type arrays ("type": ["string", "null"]), which some
// clients reject: a union is written anyOf (docs/tool-results.md §2).
func TestCatalogUnionsArePortable(t *testing.T) {
	cat, err := LoadCatalog("..")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(tool, at string, v schemajson.Value)
	walk = func(tool, at string, v schemajson.Value) {
		switch v.Kind {
		case schemajson.Object:
			for _, m := range v.Members {
				if m.Key == "type" && m.Value.Kind == schemajson.Array {
					t.Errorf("%s: %s/type is a type array; write the union as anyOf", tool, at)
				}
				walk(tool, at+"/"+m.Key, m.Value)
			}
		case schemajson.Array:
			for _, it := range v.Items {
				walk(tool, at+"/[]", it)
			}
		}
	}
	n := 0
	for _, op := range cat.MCPTools() {
		for _, lit := range [][]byte{op.MCP.InputSchema, op.MCP.OutputSchema} {
			if lit == nil {
				continue
			}
			v, err := schemajson.Parse(lit)
			if err != nil {
				t.Fatalf("%s: %v", op.MCP.Name, err)
			}
			walk(op.MCP.Name, "", v)
			n++
		}
	}
	if n < 10 {
		t.Fatalf("walked %d schemas; the catalog did not load", n)
	}
}
