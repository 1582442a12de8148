package main

import (
	"strings"
	"testing"
)

// The rules of docs/vox-language.md that once gave silent wrong answers,
// each through vox run: for binds the element then the position, a map
// yields (key, value) pairs, a string one-character strings, for is Unit;
// only a string with {name} is a template, {{ }} escape only there, every
// other brace is literal, descriptions and URIs are never templates;
// lists and maps are values, a method call on a variable as a statement
// writes back, push returns the list and pop the element.
const langSrc = `
fn for_order() {
    let mut out = []
    for x, i in ["a", "b"] { out.push("{x}{i}") }
    for e, i in {k: 1} { out.push((e, i)) }
    for (k, v) in {m: 2} { out.push(k + str(v)) }
    for c, i in "hé" { out.push("{i}{c}") }
    out
}

fn for_value() { let u = for x in [1] { x }
    u }

fn braces(name: str) {
    ["}}", "{{x}}", "{ x }", "{{name}} is {name}", "{" + "\"a\": 1" + "}"]
}

@mcp.resource("notes://{id}", "The note {id}")
fn note(id: str) to str { "a note " + id }

fn values() {
    let mut a = [1, 2]
    let b = a
    a.push(3)
    let mut m = {k: [1]}
    let n = m
    m.k.push(2)
    {a: a, b: b, m: m, n: n}
}

fn write_back() {
    let mut xs = [3, 1, 2]
    xs.push(4)
    xs.reverse()
    let last = xs.pop()
    xs = xs.push(9)
    let mut s = "  pad  "
    s.trim()
    {xs: xs, last: last, s: s}
}
`

func TestRunLanguageRules(t *testing.T) {
	root := writeFiles(t, map[string]string{"lang.vox": langSrc})
	t.Chdir(root)
	for _, tc := range []struct{ fn, args, want string }{
		{"for_order", "{}", `["a0","b1",[["k",1],0],"m2","0h","1é"]` + "\n"},
		{"for_value", "{}", "null\n"},
		{"braces", `{"name":"Ada"}`, `["}}","{{x}}","{ x }","{name} is Ada","{\"a\": 1}"]` + "\n"},
		{"note", `{"id": "x"}`, `"a note x"` + "\n"},
		{"values", "{}", `{"a":[1,2,3],"b":[1,2],"m":{"k":[1,2]},"n":{"k":[1]}}` + "\n"},
		{"write_back", "{}", `{"xs":[4,2,1,9],"last":3,"s":"pad"}` + "\n"},
	} {
		code, out, errOut := vox(t, "run", "lang.vox", tc.fn, "--args", tc.args)
		if code != 0 || out != tc.want {
			t.Errorf("%s: exit %d stdout %q stderr %q, want %q", tc.fn, code, out, errOut, tc.want)
		}
	}
	// The resource's URI is not a template: vox check finds nothing.
	if code, out, errOut := vox(t, "check", "lang.vox"); code != 0 {
		t.Errorf("check: exit %d %q %q", code, out, errOut)
	}
}

// TestRunScript runs files without naming a function: the top-level
// statements (a let among them) run in order, print writes lines to
// stdout, and a result that is not Unit is printed; a file without
// statements runs its fn main.
func TestRunScript(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"hello.vox": "let who = \"world\"\nfn greet(n: str) to str { \"hello \" + n }\nprint(greet(who))\nlet mut n = 0\nfor x, i in [5, 6] { n += x * i }\nprint(\"n is {n}\")\n",
		"value.vox": "let xs = [1, 2]\nxs.push(3)\nxs\n",
		"main.vox":  "fn main() { print(\"from main\")\n42 }\n",
		"none.vox":  "fn helper() { 1 }\n",
		"both.vox":  "fn main() { 1 }\nprint(2)\n",
		"bad.vox":   "print(1)\nlet = 2\n",
		"fail.vox":  "let xs = [1]\nxs[3]\n",
	})
	t.Chdir(root)
	for _, tc := range []struct {
		file            string
		code            int
		stdout, stderr  string
		stderrSubstring bool
	}{
		{"hello.vox", 0, "hello world\nn is 6\n", "", false},
		{"value.vox", 0, "[1,2,3]\n", "", false},
		{"main.vox", 0, "from main\n42\n", "", false},
		{"none.vox", 1, "", "vox run: none.vox has no top-level statements and no fn main: name the function to call (vox run FILE FUNC)\n", false},
		{"both.vox", 1, "", "both.vox:1:4: error: a script with top-level statements (the first at line 2) cannot also declare fn main: its statements are main's body [vox/parse/script-main]\n", true},
		{"bad.vox", 1, "", "bad.vox:2:5: error: expected a pattern, found '='", true},
		{"fail.vox", 1, "", "fail.vox:2:3: index 3 out of range (length 1)\n", false},
	} {
		code, out, errOut := vox(t, "run", tc.file)
		errOut = strings.TrimPrefix(errOut, noConfig)
		okErr := errOut == tc.stderr
		if tc.stderrSubstring {
			okErr = strings.Contains(errOut, tc.stderr)
		}
		if code != tc.code || out != tc.stdout || !okErr {
			t.Errorf("%s: exit %d stdout %q stderr %q", tc.file, code, out, errOut)
		}
	}
	// A module keeps rejecting top-level statements when a function is
	// named.
	if code, _, errOut := vox(t, "run", "hello.vox", "greet", "--args", `{"n":"x"}`); code != 1 || !strings.Contains(errOut, "vox/parse/unexpected-top-level") {
		t.Errorf("module mode: exit %d stderr %q", code, errOut)
	}
}
