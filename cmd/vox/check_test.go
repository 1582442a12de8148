package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCheckCorpusPasses(t *testing.T) {
	code, out, errOut := vox(t, "check", "../../internal/vox/testdata/corpus")
	if code != 0 || !regexp.MustCompile(`^checked \d+ file\(s\): 0 error\(s\), \d+ warning\(s\)\n$`).MatchString(out) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "../../internal/vox/testdata/corpus/legacy.vox:3:1: warning: `@mcp.tool` is deprecated; use `@tool` [vox/decorator/mcp-tool-deprecated]") {
		t.Errorf("warnings on stderr, relative paths as given:\n%s", errOut)
	}
}

func TestCheckReportsErrorsAndExitsOne(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"a/good.vox":      "@tool \"ok\"\nfn ok() to int { 1 }\n",
		"a/b/bad.vox":     "@tool \"bad\"\nfn bad() to str {\n    \"unterminated\n}\n",
		"a/.hidden/x.vox": "garbage here\n",
		"a/notes.txt":     "not vox\n",
	})
	t.Chdir(root)
	code, out, errOut := vox(t, "check", "a")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	if out != "checked 2 file(s): 1 error(s), 0 warning(s)\n" {
		t.Errorf("stdout %q", out)
	}
	if errOut != "a/b/bad.vox:3:5: error: unterminated string [vox/lexer/unterminated-string]\n  |\n3 |     \"unterminated\n  |     ^\n" {
		t.Errorf("stderr %q", errOut)
	}

	code, out, _ = vox(t, "check", "--format", "json", "a/b/bad.vox", "a/good.vox")
	var report struct {
		OK          bool             `json:"ok"`
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &report) != nil || report.OK || len(report.Diagnostics) != 1 {
		t.Fatalf("json: exit %d %s", code, out)
	}
	want := `{"code":"vox/lexer/unterminated-string","col":5,"fixes":[],"help":[],"line":3,"message":"unterminated string","path":"a/b/bad.vox","severity":"error"}`
	if got, _ := json.Marshal(report.Diagnostics[0]); string(got) != want {
		t.Errorf("diagnostic\n got %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(out, `{"ok":false,"diagnostics":[{"path":"a/b/bad.vox","line":3,"col":5,"severity":"error","code":`) {
		t.Errorf("key order: %s", out)
	}

	code, out, _ = vox(t, "check", "a/good.vox", "--format=json")
	if code != 0 || out != "{\"ok\":true,\"diagnostics\":[]}\n" {
		t.Errorf("clean json: exit %d %q", code, out)
	}
}

func TestCheckUsage(t *testing.T) {
	if code, _, _ := vox(t, "check", "--format", "xml", "x.vox"); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	if code, _, errOut := vox(t, "check", "does-not-exist.vox"); code != 1 || !strings.Contains(errOut, "does-not-exist.vox") {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
}

// The mistakes, checked as a new user would: each is an error at
// its line, printed as rustc does with a suggestion where one exists.
func TestCheckReportsTypeProblems(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"tools/mistakes.vox": `@tool "Total"
fn total_of(xs: list[int]) to int {
    let mut total = 0
    for x in xs { total += x }
    totl
}

@tol "Greet"
fn greet(name: str) to str { "Hello, " + name }

@tool "Length"
fn length(name: str) to int { name.lenght() }
`,
	})
	t.Chdir(root)
	code, out, errOut := vox(t, "check", "tools")
	if code != 1 || out != "checked 1 file(s): 3 error(s), 0 warning(s)\n" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	want := `tools/mistakes.vox:5:5: error: undefined: totl [vox/name/undefined]
  |
5 |     totl
  |     ^^^^
  = help: did you mean total?
tools/mistakes.vox:8:1: error: unknown decorator @tol [vox/decorator/unknown]
  |
8 | @tol "Greet"
  | ^^^^
  = help: did you mean @tool?
tools/mistakes.vox:12:36: error: no method lenght on str [vox/method/unknown]
   |
12 | fn length(name: str) to int { name.lenght() }
   |                                    ^^^^^^
   = help: did you mean length?
`
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
}

// Without paths, vox check checks the project's scanned surface: the
// files the scan config's globs find, not the others; --format json
// carries each diagnostic's help lines and fixes.
func TestCheckSurfaceAndFixes(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"contracts/mcp/workspace-mcp-surface.v1.yaml": "scan_globs: [\"tools/*.vox\"]\n",
		"tools/a.vox": "@tool \"Typo\"\nfn typo(xs: list[int]) to int {\n    let total = xs.len()\n    totl\n}\n",
		"other/b.vox": "garbage here\n",
		".git/HEAD":   "ref: refs/heads/main\n",
	})
	t.Chdir(root)
	code, out, errOut := vox(t, "check")
	if code != 1 || out != "checked 1 file(s): 1 error(s), 1 warning(s)\n" || !strings.Contains(errOut, "tools/a.vox:4:5: error: undefined: totl") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, _ = vox(t, "check", "--format", "json")
	var report struct {
		Diagnostics []struct {
			Code  string   `json:"code"`
			Help  []string `json:"help"`
			Fixes []struct {
				Line    int    `json:"line"`
				Col     int    `json:"col"`
				EndLine int    `json:"end_line"`
				EndCol  int    `json:"end_col"`
				NewText string `json:"new_text"`
			} `json:"fixes"`
		} `json:"diagnostics"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &report) != nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	var found bool
	for _, d := range report.Diagnostics {
		if d.Code == "vox/name/undefined" {
			found = true
			if len(d.Help) != 1 || d.Help[0] != "did you mean total?" || len(d.Fixes) != 1 ||
				d.Fixes[0].Line != 4 || d.Fixes[0].Col != 5 || d.Fixes[0].EndLine != 4 || d.Fixes[0].EndCol != 9 || d.Fixes[0].NewText != "total" {
				t.Errorf("help and fixes: %s", out)
			}
		}
	}
	if !found {
		t.Errorf("no undefined name: %s", out)
	}
}

// --compat adds the vox/compat/... warnings; without it they stay quiet.
func TestCheckCompat(t *testing.T) {
	root := writeFiles(t, map[string]string{"t.vox": "@tool \"T\"\nfn t() to int { 1 }\n"})
	t.Chdir(root)
	if code, out, errOut := vox(t, "check", "t.vox"); code != 0 || strings.Contains(errOut, "vox/compat/") || out != "checked 1 file(s): 0 error(s), 0 warning(s)\n" {
		t.Errorf("without --compat: exit %d %s %s", code, out, errOut)
	}
	code, out, errOut := vox(t, "check", "--compat", "t.vox")
	if code != 0 || out != "checked 1 file(s): 0 error(s), 1 warning(s)\n" || !strings.Contains(errOut, "t.vox:1:1: warning: the reference retired @tool") {
		t.Errorf("--compat: exit %d %s %s", code, out, errOut)
	}
}
