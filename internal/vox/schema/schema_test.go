package schema

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// checkSame compares InputJSON with the canonical writing of Input for
// every function of src: the same bytes and the same diagnostics.
func checkSame(t *testing.T, name string, src []byte) int {
	t.Helper()
	f, _ := syntax.Parse(name, src)
	n := 0
	for _, d := range f.Decls {
		fn, ok := d.(*syntax.FnDecl)
		if !ok {
			continue
		}
		var d1, d2 diag.List
		sc := ScopeOf(fn, Records(f))
		sc.Descriptions = DocDescriptions(f, fn)
		want := schemajson.Schema(Input(name, fn.Params, sc, &d1))
		got := InputJSON(name, fn.Params, sc, &d2)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %s: InputJSON differs from Schema(Input)\n got: %s\nwant: %s", name, fn.Name, got, want)
		}
		if !reflect.DeepEqual(d1, d2) {
			t.Errorf("%s: %s: diagnostics differ\n got: %v\nwant: %v", name, fn.Name, d2, d1)
		}
		n++
	}
	return n
}

func TestInputJSONMatchesInputOnTestdata(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*/*.vox")
	txtars, _ := filepath.Glob("../testdata/schema/*.txtar")
	files = append(files, txtars...)
	n := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n += checkSame(t, file, src)
	}
	if n < 100 {
		t.Fatalf("only %d functions checked", n)
	}
}

// TestInputJSONMatchesInputOnRandomTypes checks random parameter lists:
// every type form (records, recursive ones included, function types and
// integer type arguments), unknown names, type parameters, deep nesting
// past the depth bound, and literal defaults of every kind.
func TestInputJSONMatchesInputOnRandomTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"str", "String", "int", "i64", "Int", "float", "f64", "Float", "bool", "Bool", "Unit",
		"list", "List", "map", "Map", "Option", "T", "Widget", "any", "dec", "Point", "Node", "Pair"}
	var typ func(depth int) string
	typ = func(depth int) string {
		if depth > 70 || r.IntN(3) == 0 && depth > 2 {
			return names[r.IntN(11)]
		}
		switch r.IntN(10) {
		case 6:
			return "fn(" + typ(depth+1) + ") to " + typ(depth+1)
		case 7:
			return "Tensor[2, " + typ(depth+1) + "]"
		case 0:
			var parts []string
			for range r.IntN(4) {
				parts = append(parts, typ(depth+1))
			}
			return "(" + strings.Join(parts, ", ") + ")"
		case 1, 2:
			return "list[" + typ(depth+1) + "]"
		case 3:
			return "map[str, " + typ(depth+1) + "]"
		case 4:
			return "Option[" + typ(depth+1) + "]"
		case 5:
			return "Option[" + typ(depth+1) + ", " + typ(depth+1) + "]"
		}
		return names[r.IntN(len(names))]
	}
	defaults := []string{"1", "-7", "2.5", "1.0", "1e400", `"x\ty\u{1}"`, `"é\u2028"`, "true", "false",
		"[]", "[1, [2, 3]]", `{b: 1, a: [true], "c d": {z: 1, y: 2}}`, "(1, 2)", "()", "None", "f(1)", "[1, x]", "{a: 1, a: 2}"}
	deep := strings.Repeat("list[", 80) + "int" + strings.Repeat("]", 80)
	records := "type Point { x: int, y: Option[str] }\ntype Node { value: dec, children: list[Node], parent: Option[Node] }\ntype Pair { a: Point, b: list[Pair] }\n"
	for i := range 3000 {
		var b strings.Builder
		b.WriteString(records)
		fmt.Fprintf(&b, "fn f%d<T>(", i)
		for j := range r.IntN(5) {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "p%d", j)
			switch r.IntN(6) {
			case 0:
			case 1:
				b.WriteString(": " + deep)
			default:
				b.WriteString(": " + typ(0))
			}
			if r.IntN(3) == 0 {
				b.WriteString(" = " + defaults[r.IntN(len(defaults))])
			}
		}
		b.WriteString(") { 1 }\n")
		if checkSame(t, "random.vox", []byte(b.String())) != 1 {
			t.Fatalf("does not parse: %s", b.String())
		}
		if t.Failed() {
			t.Fatalf("source: %s", b.String())
		}
	}
}
