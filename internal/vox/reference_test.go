package vox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
)

const (
	languageDoc    = "../../docs/vox-language.md"
	referenceBegin = "<!-- BEGIN reference: generated from contracts/library/library.v1.yaml by `go test ./internal/vox -run TestLanguageReference -update`; edit the contract, not this section -->\n"
	referenceEnd   = "<!-- END reference -->\n"
)

// TestLanguageReference keeps the reference tables of docs/vox-language.md
// equal to the tables the interpreter runs: it fails when the doc is
// stale, and -update rewrites the section between the markers.
func TestLanguageReference(t *testing.T) {
	src, err := os.ReadFile(languageDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	i, j := strings.Index(doc, referenceBegin), strings.Index(doc, referenceEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no section between %q and %q", languageDoc, referenceBegin, referenceEnd)
	}
	want := doc[:i] + referenceBegin + reference() + doc[j:]
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(languageDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the reference section is stale; run go test ./internal/vox -run TestLanguageReference -update", languageDoc)
}

// reference renders the tables as Markdown: one row per form of each
// builtin, method and capability function (a function whose result type
// depends on its arguments has a row per form).
func reference() string {
	var b strings.Builder
	row := func(name, sig, result, notes string) {
		b.WriteString("| " + name + " | " + sig + " | " + result + " | " + cell(notes) + " |\n")
	}
	forms := func(name, qualified string, sig libsig.Signature) {
		for i, f := range sig.Forms() {
			n := code(name)
			if i > 0 {
				n = ""
			}
			row(n, code(params(qualified, f)), code(f.Result), f.Notes)
		}
	}
	header := func(title string) {
		b.WriteString("\n#### " + title + "\n\n| name | signature | result | notes |\n|---|---|---|---|\n")
	}
	header("Builtins")
	for _, bi := range libsig.Builtins() {
		if bi.Value {
			row(code(bi.Name), "value", code(bi.Sig.Result), bi.Sig.Notes)
			continue
		}
		forms(bi.Name, bi.Name, bi.Sig)
	}
	for _, mt := range libsig.Receivers() {
		header("Methods of `" + strings.ReplaceAll(mt.Type, "|", `\|`) + "`")
		for _, m := range mt.Methods {
			forms(m.Name, "."+m.Name, m.Sig)
		}
	}
	header("Capability functions")
	for _, ns := range libsig.Namespaces() {
		if ns.Denies() {
			row(code(ns.Name+".*"), "—", "—", "every call fails with `capability denied: "+ns.Name+".<method>`")
		}
		if ns.Notes != "" {
			row(code(ns.Name), "namespace", "—", ns.Notes)
		}
		for _, f := range ns.Funcs {
			q := ns.Name + "." + f.Name
			forms(q, q, f.Sig)
		}
		for _, d := range ns.Denied {
			row(code(ns.Name+"."+d.Name), "—", "—", "denied by design (`capability denied: "+ns.Name+"."+d.Name+"`): "+d.Reason)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// params is one form's signature without its result.
func params(name string, sig libsig.Signature) string {
	sig.Overloads = nil
	s := sig.Format(name)
	return s[:strings.LastIndex(s, " to ")]
}

func code(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestEveryBuiltinIsTested requires each builtin, method and capability
// function to appear in the run tests (testdata/run and
// capability/testdata), so that adding one
// without a test fails here.
func TestEveryBuiltinIsTested(t *testing.T) {
	files, err := filepath.Glob("testdata/run/*.vox")
	more, _ := filepath.Glob("capability/testdata/*.vox")
	files = append(files, more...)
	if err != nil || len(more) == 0 {
		t.Fatalf("no run tests: %v", err)
	}
	var all strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(src)
	}
	src := all.String()
	used := func(pattern string) bool { return regexp.MustCompile(pattern).MatchString(src) }
	for _, bi := range libsig.Builtins() {
		if !used(`\b` + regexp.QuoteMeta(bi.Name) + `\b`) {
			t.Errorf("builtin %s appears in no test of testdata/run", bi.Name)
		}
	}
	for _, mt := range libsig.Receivers() {
		for _, m := range mt.Methods {
			if !used(`\.` + regexp.QuoteMeta(m.Name) + `\(`) {
				t.Errorf("method %s.%s appears in no test of testdata/run", mt.Type, m.Name)
			}
		}
	}
	for _, ns := range libsig.Namespaces() {
		for _, f := range ns.Funcs {
			if !used(`\b` + ns.Name + `\.` + regexp.QuoteMeta(f.Name) + `\(`) {
				t.Errorf("capability function %s.%s appears in no test of capability/testdata", ns.Name, f.Name)
			}
		}
	}
}
