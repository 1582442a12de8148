package gen

import (
	"os"
	"strings"
	"testing"
)

// TestLibraryContract: the repository's contract parses, and a bad row is
// reported at its line with what is allowed.
func TestLibraryContract(t *testing.T) {
	src, err := os.ReadFile("../" + libraryContract)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := ParseLibrary(libraryContract, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Builtins) == 0 || len(lib.Receivers) == 0 || len(lib.Namespaces) == 0 {
		t.Fatalf("contract parsed empty: %d builtins, %d receivers, %d namespaces", len(lib.Builtins), len(lib.Receivers), len(lib.Namespaces))
	}
	for _, c := range []struct{ src, want string }{
		{"version: 1\nbuiltins:\n  - name: len\n    result: int\n", "lib.yaml:3:5: builtins.len: impl must name the Go function implementing it"},
		{"version: 1\nbuiltins:\n  - name: len\n    result: int\n    impl: a\n  - name: len\n    result: int\n    impl: b\n", "lib.yaml:6:5: builtins: len is listed twice"},
		{"version: 1\nreceivers:\n  - receiver: str\n    methods:\n      - name: trim\n        result: str\n        impl: strTrim\n", "a method is bound by name"},
		{"version: 1\nnamespaces:\n  - name: process\n    denied:\n      - name: run\n", "lib.yaml:5:1: process: a denied entry needs a name and the reason"},
		{"version: 1\nbuiltins:\n  - name: len\n    reslt: int\n", "field reslt not found"},
	} {
		_, err := ParseLibrary("lib.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}
