package suggest

import "testing"

func TestName(t *testing.T) {
	candidates := []string{"total", "length", "tool", "y", "scan_globs"}
	for _, c := range []struct{ name, want string }{
		{"totl", "total"},    // a dropped letter wins a tie over a substitution (tool)
		{"lenght", "length"}, // a transposition is one edit
		{"tools", "tool"},
		{"lenn", "length"}, // the first three letters shared: up to 3 edits
		{"scan_glob", "scan_globs"},
		{"x", ""}, // too short to guess
		{"zzzz", ""},
	} {
		if got := Name(c.name, candidates); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
