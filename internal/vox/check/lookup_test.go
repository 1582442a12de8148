package check_test

import (
	"os"
	"path/filepath"
	"testing"

	voxlang "github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
)

// TestLookupIsAt: at every byte of a file, Lookup answers what At does,
// for a file of every kind of name and for the repository's test files.
func TestLookupIsAt(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("the test files: %v %v", files, err)
	}
	total := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += lookupIsAt(t, f, string(src))
	}
	if total < 1000 {
		t.Errorf("only %d positions have a name in %d files", total, len(files))
	}
	src := "type P { x: int }\nlet K = 2\n@tool \"t\"\nfn t(n: int, p: P) to str {\n    let xs = [n, K, p.x]\n    let f = fn (v) { v + n }\n" +
		"    for i, x in xs {\n        print(i, x, f(x))\n    }\n    match Some(n) {\n        Some(m) => str(m),\n        None => \"{n}\",\n    }\n}\n"
	if found := lookupIsAt(t, "t.vox", src); found < 40 {
		t.Errorf("only %d positions have a name: the record is not what the test expects", found)
	}
}

// lookupIsAt compares Lookup with At at every byte of src and returns
// at how many positions At found a name.
func lookupIsAt(t *testing.T, path, src string) int {
	t.Helper()
	r := voxlang.CompileWith(path, []byte(src), check.Options{Record: true}).Check()
	if r == nil {
		return 0
	}
	line, col, found := 1, 1, 0
	for i := 0; i <= len(src); i++ {
		want, wok := r.At(line, col)
		got, gok := r.Lookup(line, col)
		if got != want || gok != wok {
			t.Errorf("%s:%d:%d: Lookup %+v %v, At %+v %v", path, line, col, got, gok, want, wok)
		}
		if wok {
			found++
		}
		if i < len(src) && src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	if _, ok := r.Lookup(0, 0); ok {
		t.Errorf("%s: a name before the first line", path)
	}
	return found
}
