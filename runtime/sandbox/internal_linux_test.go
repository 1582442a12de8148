package sandbox

import "testing"

func TestRecoverError(t *testing.T) {
	f := func() (err error) {
		defer recoverError(&err)
		var m map[string]int
		m["x"] = 1 // panics
		return nil
	}
	if err := f(); err == nil || err.Error() != "sandbox: internal error: assignment to entry in nil map" {
		t.Errorf("got %v", err)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/plain`:          "/plain",
		`/with\040space`:  "/with space",
		`/tab\011and\134`: "/tab\tand\\",
		`/short\04`:       `/short\04`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}
