package format

import (
	"bytes"
	"os"
	"path"
	"strings"
	"testing"
)

// TestLayout checks the golden layouts of testdata/layout.txtar, and that
// each output is a fixed point.
func TestLayout(t *testing.T) {
	data, err := os.ReadFile("testdata/layout.txtar")
	if err != nil {
		t.Fatal(err)
	}
	secs := txtarSections(data)
	n := 0
	for name, in := range secs {
		if path.Base(name) != "in.vox" {
			continue
		}
		n++
		dir := path.Dir(name)
		want, ok := secs[dir+"/out.vox"]
		if !ok {
			t.Fatalf("%s: no out.vox", dir)
		}
		got, err := Source(dir, in)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", dir, got, want)
		}
		again, err := Source(dir, want)
		if err != nil || !bytes.Equal(again, want) {
			t.Errorf("%s: the golden output is not a fixed point (%v):\n%s", dir, err, again)
		}
	}
	if n < 5 {
		t.Fatalf("only %d golden cases found", n)
	}
}

// TestRefusesBrokenFile: a file with a syntax error is an error that
// says where, and nothing is formatted.
func TestRefusesBrokenFile(t *testing.T) {
	out, err := Source("bad.vox", []byte("@tool \"t\"\nfn f() to int {\n    let = 1\n}\n"))
	if err == nil {
		t.Fatalf("formatted a file with a syntax error:\n%s", out)
	}
	if !strings.HasPrefix(err.Error(), "bad.vox:3:9: ") {
		t.Errorf("error %q does not start with bad.vox:3:9:", err)
	}
}

// TestScriptFile: a script (top-level statements, vox run FILE) formats
// as a script.
func TestScriptFile(t *testing.T) {
	got, err := Source("s.vox", []byte("let  x=1\nprint( x )\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "let x = 1\nprint(x)\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRepositoryFormatted is the gate that the repository's own .vox
// files are in the canonical layout (vox fmt -w fixes them). Files that
// do not parse (diagnostic fixtures, files of several --- sections) are
// not formatted and not gated.
func TestRepositoryFormatted(t *testing.T) {
	for name, src := range repoVoxFiles(t) {
		if strings.Contains(name, "#") {
			continue // .vox inside txtar test data is input to tests, kept as the test needs it
		}
		if _, _, _, err := parse(name, src); err != nil {
			continue
		}
		out, err := Source(name, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if !bytes.Equal(out, src) {
			t.Errorf("%s is not formatted (run vox fmt -w %s):\n%s", name, name, firstDiff(src, out))
		}
	}
}
