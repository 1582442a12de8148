package capability_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
)

// TestPathSeparatorRule: Vox paths are separated by / on every system and
// a backslash is refused on every system, with an error that gives the
// path to write (docs/security.md, "Path rules"). It runs on Linux and,
// built for Windows, under Wine (make test-windows): the same tool gives
// the same answers on both.
func TestPathSeparatorRule(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{"data/x.csv": "a,b\n", "data/sub/y.csv": "c\n", "top.txt": "t"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := vox.Compile("paths.vox", []byte(`fn read(p: str) { fs.read(p).unwrap() }
fn exists(p: str) { fs.exists(p) }
fn list(p: str) { fs.list_dir(p).unwrap() }
fn walk(p: str) { fs.walk(p).unwrap() }
fn glob(p: str) { fs.glob(p) }
fn write(p: str) { fs.write(p, "w").unwrap() }
`))
	if m.HasErrors() {
		t.Fatal(m.Diagnostics())
	}
	env := &vox.Env{Root: root, Powers: &capability.Powers{Write: []string{"out/**"}}, Limits: vox.DefaultLimits()}
	call := func(fn, p string) (string, error) {
		args, _ := json.Marshal(map[string]string{"p": p})
		res, err := m.Call(context.Background(), fn, args, env)
		return string(res.JSON), err
	}
	for _, tc := range []struct{ fn, path, want string }{
		{"read", "data/x.csv", `"a,b\n"`},
		{"read", "./data/sub/../x.csv", `"a,b\n"`},
		{"list", "data", `["sub/","x.csv"]`},
		{"walk", "data", `["data/sub/y.csv","data/x.csv"]`},
		{"walk", ".", `["data/sub/y.csv","data/x.csv","top.txt"]`},
		{"glob", "data/**/*.csv", `["data/sub/y.csv","data/x.csv"]`},
		{"glob", "data/[*].csv", `[]`},
		{"write", "out/w.txt", `1`},
	} {
		got, err := call(tc.fn, tc.path)
		if err != nil || got != tc.want {
			t.Errorf("%s(%q) = %s, %v; want %s", tc.fn, tc.path, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ fn, path, fix string }{
		{"read", `data\x.csv`, `write "data/x.csv"`},
		{"exists", `data\x.csv`, `write "data/x.csv"`},
		{"list", `data\`, `write "data/"`},
		{"walk", `data\sub`, `write "data/sub"`},
		{"write", `out\v.txt`, `write "out/v.txt"`},
	} {
		_, err := call(tc.fn, tc.path)
		var e *vox.Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, "a backslash is not allowed in a path: Vox paths are separated by / on every system") || !strings.Contains(e.Message, tc.fix) {
			t.Errorf("%s(%q): %v; want the backslash refused, naming %s", tc.fn, tc.path, err, tc.fix)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "out", "v.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused write wrote: %v", err)
	}
	got, err := call("glob", `data\*.csv`)
	if err == nil || !strings.Contains(err.Error(), `a backslash is not allowed: separate folders with / on every system (write "data/*.csv")`) {
		t.Errorf(`glob("data\\*.csv") = %s, %v; want an error naming data/*.csv`, got, err)
	}
	// Absolute and drive paths stay outside the workspace on every system.
	for _, p := range []string{`\data\x.csv`, `C:\x`, `C:/x`, `\\server\share\x`, "/etc/passwd"} {
		if _, err := call("read", p); err == nil || !strings.Contains(err.Error(), "capability denied: fs.read outside the workspace") {
			t.Errorf("read(%q): %v; want capability denied", p, err)
		}
	}
	if runtime.GOOS != "windows" {
		// Here a backslash may be part of a name: the file called
		// data\x.csv is not read as data/x.csv (the conversion this rule
		// replaced did), nor at all: the error says what to write.
		if err := os.WriteFile(filepath.Join(root, `data\x.csv`), []byte("other"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := call("read", `data\x.csv`); err == nil {
			t.Errorf(`read("data\\x.csv") = %s; want the backslash refused`, got)
		}
	}
}
