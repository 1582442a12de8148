package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		{"version: 1\nreceivers:\n  - receiver: str\n    kinds: [KStr]\n    methods:\n      - name: trim\n        result: str\n", "lib.yaml:6:9: str.trim: impl must name the Go function implementing it"},
		{"version: 1\nreceivers:\n  - receiver: str\n    methods:\n      - name: trim\n        result: str\n        impl: strTrim\n", "lib.yaml:3:1: receiver str: kinds must list the eval.Kind constants"},
		{"version: 1\nreceivers:\n  - receiver: list[T]\n    kinds: [KList]\n    methods:\n      - name: pop\n        result: T\n        mutates: true\n        impl: listPop\n", "lib.yaml:6:9: list[T].pop: a method with mutates has no impl and its update must name"},
		{"version: 1\nbuiltins:\n  - name: len\n    result: int\n    impl: biLen\n    update: biLen\n", "builtins.len: only a method has an update"},
		{"version: 1\nnamespaces:\n  - name: process\n    denied:\n      - name: run\n", "lib.yaml:5:1: process: a denied entry needs a name and the reason"},
		{"version: 1\nbuiltins:\n  - name: len\n    reslt: int\n", "field reslt not found"},
	} {
		_, err := ParseLibrary("lib.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

// TestLibraryMethodRowWorkflow is the workflow docs/architecture.md
// describes for a method: a row added to the contract, go generate, and
// the build fails naming the function the row's impl names until it is
// written. The row is added to a copy of the contract; the build reads the
// generated files through an overlay, so the repository is not touched.
func TestLibraryMethodRowWorkflow(t *testing.T) {
	src, err := os.ReadFile("../" + libraryContract)
	if err != nil {
		t.Fatal(err)
	}
	const row = "    - receiver: str\n      kinds: [KStr]\n      methods:\n        - name: shout\n          result: str\n          impl: strShout\n"
	at := bytes.Index(src, []byte("    - receiver: str\n      kinds: [KStr]\n      methods:\n"))
	if at < 0 {
		t.Fatal("the contract has no str receiver to add a row to")
	}
	edited := append(append(slices.Clone(src[:at]), row...), src[at+len("    - receiver: str\n      kinds: [KStr]\n      methods:\n"):]...)
	root := t.TempDir()
	contract := filepath.Join(root, filepath.FromSlash(libraryContract))
	if err := os.MkdirAll(filepath.Dir(contract), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(contract, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateDirs(root, true, "internal/vox/libsig"); err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(evalLibFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Name: "shout",\s+Sig:\s+libsig.Receivers\(\)\[0\].Methods\[0\].Sig,\s+fn:\s+strShout,`).Match(gen) {
		t.Fatalf("the generated method table does not bind shout to strShout:\n%.2000s", gen)
	}

	// The build of package eval with the generated files names the
	// missing function.
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]map[string]string{"Replace": {}}
	for _, f := range []string{evalLibFile, libsigFile} {
		overlay["Replace"][filepath.Join(repo, filepath.FromSlash(f))] = filepath.Join(root, filepath.FromSlash(f))
	}
	js, err := json.Marshal(overlay)
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(root, "overlay.json")
	if err := os.WriteFile(overlayFile, js, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "./internal/vox/eval")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "undefined: strShout") {
		t.Fatalf("go build with the new row: err %v, want the error undefined: strShout; output:\n%s", err, out)
	}
}
