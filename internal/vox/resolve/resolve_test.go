package resolve_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/internal/chunkedfile"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// universe is a small fixed universe, so that these tests do not depend
// on eval's table of builtins.
var universe = resolve.Universe{Builtins: []string{"len", "print", "Unit"}, Namespaces: []string{"fs", "json"}}

// TestResolve resolves every chunk of testdata/*.vox and compares what it
// reports with the chunk's ### markers. Besides diagnostics, a line with
// a "bind" marker reports how each name on it is bound, as
// "name:scope" in column order:
//
//	let y = x + len(x)   ### bind "^y:local x:free len:builtin x:free$"
func TestResolve(t *testing.T) {
	files, err := filepath.Glob("testdata/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		chunks, err := chunkedfile.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			path := filepath.ToSlash(file)
			f, diags := syntax.Parse(path, []byte(c.Source))
			resolve.File(f, universe, &diags)
			var reports []chunkedfile.Report
			for _, d := range diags {
				reports = append(reports, chunkedfile.Report{Line: d.Line, Col: d.Col, Code: d.Code, Message: d.Message})
			}
			bindLines := map[int]bool{}
			for _, m := range c.Expect {
				if m.Code == "bind" {
					bindLines[m.Line] = true
				}
			}
			byLine := map[int][]*syntax.Ident{}
			collectIdents(reflect.ValueOf(f), func(id *syntax.Ident) {
				if l := int(id.NamePos.Line); bindLines[l] {
					byLine[l] = append(byLine[l], id)
				}
			})
			for line, ids := range byLine {
				slices.SortStableFunc(ids, func(a, b *syntax.Ident) int { return int(a.NamePos.Col) - int(b.NamePos.Col) })
				var parts []string
				for _, id := range ids {
					scope := "unresolved"
					if b, ok := id.Binding.(*resolve.Binding); ok {
						scope = b.Scope.String()
					}
					parts = append(parts, id.Name+":"+scope)
				}
				reports = append(reports, chunkedfile.Report{Line: line, Code: "bind", Message: strings.Join(slices.Compact(parts), " ")})
			}
			for _, p := range c.Match(reports) {
				t.Error(p)
			}
		}
	}
}

// collectIdents calls f for every identifier of the tree, each node once
// (a parameter's identifier is also reachable through its Ident field).
func collectIdents(x reflect.Value, f func(*syntax.Ident)) {
	seen := map[*syntax.Ident]bool{}
	var walk func(x reflect.Value)
	walk = func(x reflect.Value) {
		switch x.Kind() {
		case reflect.Interface, reflect.Pointer:
			if x.IsNil() {
				return
			}
			if id, ok := x.Interface().(*syntax.Ident); ok {
				if !seen[id] {
					seen[id] = true
					f(id)
				}
				return
			}
			if _, ok := x.Interface().(*resolve.Function); ok {
				return // the resolver's annotations lead back into the tree
			}
			walk(x.Elem())
		case reflect.Struct:
			for i := 0; i < x.NumField(); i++ {
				if x.Type().Field(i).IsExported() {
					walk(x.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < x.Len(); i++ {
				walk(x.Index(i))
			}
		}
	}
	walk(x)
}

// TestReaches: a tool reaches the builtins it names and those of the
// functions and constants it uses, at any depth; a user function shadows
// the builtin of its name.
func TestReaches(t *testing.T) {
	src := `
let GREETING = format("{}", "hi")

fn deep() { print("x") }
fn middle() { deep() }
fn len(x) { 0 }

@tool "a"
fn a() to str {
    middle()
    "a"
}

@tool "b"
fn b() to str { GREETING }

@tool "c"
fn c() to int { len("abc") }
`
	f, diags := syntax.Parse("reach.vox", []byte(src))
	uni := resolve.Universe{Builtins: []string{"len", "print", "format"}}
	res := resolve.File(f, uni, &diags)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, c := range []struct {
		fn, builtin string
		want        bool
	}{
		{"a", "print", true},
		{"a", "format", false},
		{"b", "format", true},
		{"b", "print", false},
		{"c", "len", false},
		{"middle", "print", false}, // plain functions are not answered
	} {
		if got := res.Reaches(res.FuncIndex[c.fn], c.builtin); got != c.want {
			t.Errorf("Reaches(%s, %s) = %v, want %v", c.fn, c.builtin, got, c.want)
		}
	}
}
