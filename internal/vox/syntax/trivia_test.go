package syntax

import "testing"

// TestCommentsKept: every comment of the code is in File.Comments, in
// order, grouped as go/ast groups them; a comment inside a skipped unit
// belongs to the unit's text.
func TestCommentsKept(t *testing.T) {
	src := "// head one\n// head two\n\n@tool \"t\" # after the decorator\nfn f(a: int, // a param\n  b: int) to int {\n    a + b // sum\n}\ncomponent C() { // inside a skipped unit\n}\n# tail\n"
	f, diags := Parse("c.vox", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diags)
	}
	var got [][]string
	for _, g := range f.Comments {
		var texts []string
		for _, c := range g.List {
			if src[c.Off:c.End()] != c.Text {
				t.Errorf("comment %q is not at its offset", c.Text)
			}
			texts = append(texts, c.Text)
		}
		got = append(got, texts)
	}
	want := [][]string{{"// head one", "// head two"}, {"# after the decorator"}, {"// a param"}, {"// sum"}, {"# tail"}}
	if len(got) != len(want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("group %d: %q, want %q", i, got[i], want[i])
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("group %d comment %d: %q, want %q", i, j, got[i][j], want[i][j])
			}
		}
	}
	if p := f.Comments[3].Span(); p.Line != 7 || p.Col != 11 {
		t.Errorf("// sum at %v, want 7:11", p)
	}
}
