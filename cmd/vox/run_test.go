package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const runSrc = `
@tool "Greets"
fn greet(name: str, times: int = 1) to str {
    print("greeting", name)
    "hi {name}".repeat(times)
}

fn spin() { loop { } }

fn read_notes() { fs.read("notes.md") }

fn fail() { Err("it broke") }

fn undefined_name() { db.query(1) }

fn deep(n: int = 0) { deep(n + 1) }

fn big() { "x".repeat(5000) }

fn levels() {
    log.debug("at debug")
    log.warn("careful", 1)
    log.error("broken")
    print("printed")
}
`

func TestRunCallsAFunction(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": runSrc, "notes.md": "# notes"})
	t.Chdir(root)
	code, out, errOut := vox(t, "run", "tools.vox", "greet", "--args", `{"name":"Ada","times":2}`)
	if code != 0 || out != "\"hi Adahi Ada\"\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "msg=\"greeting Ada\"") {
		t.Errorf("print goes to stderr: %q", errOut)
	}
	if code, out, _ := vox(t, "run", "--args", `{"name":"B"}`, "tools.vox", "greet"); code != 0 || out != "\"hi B\"\n" {
		t.Errorf("flags first: %d %q", code, out)
	}
	if code, out, _ := vox(t, "run", "tools.vox", "read_notes"); code != 0 || out != "\"# notes\"\n" {
		t.Errorf("fs under the current directory: %d %q", code, out)
	}
}

// noConfig is vox run's first line on stderr outside a repository with a
// scan config.
const noConfig = "vox run: no scan config in .; vox run's limits apply, and env.get reads no variable\n"

func TestRunErrors(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": runSrc, "bad.vox": "@tool \"x\"\nfn x() { 1 + }\n"})
	t.Chdir(root)
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"run", "tools.vox", "greet"}, 1, noConfig + "missing argument: name\n"},
		{[]string{"run", "tools.vox", "greet", "--args", `{"name":1}`}, 1, noConfig + "argument name: want str, got integer\n"},
		{[]string{"run", "tools.vox", "fail"}, 1, noConfig + "it broke\n"},
		{[]string{"run", "tools.vox", "undefined_name"}, 1, noConfig + "tools.vox:14:23: undefined: db\n"},
		// The advice names vox run's flags, never a file it did not read.
		{[]string{"run", "tools.vox", "spin", "--steps", "100"}, 1, noConfig + "tools.vox:8:13: steps limit of 100 exceeded; pass --steps to raise it\n  in spin at tools.vox:8:13\n"},
		{[]string{"run", "tools.vox", "spin", "--steps", "0", "--timeout", "50ms"}, 1, noConfig + "tools.vox:8:13: timeout_ms limit of 50 exceeded; pass --timeout to raise it\n  in spin at tools.vox:8:13\n"},
		{[]string{"run", "tools.vox", "deep", "--max-depth", "5"}, 1, noConfig + "tools.vox:16:23: max_depth limit of 5 exceeded; pass --max-depth to raise it\n  in deep at tools.vox:16:23 (5 calls)\n"},
		{[]string{"run", "tools.vox", "big", "--max-value-bytes", "1000"}, 1, noConfig + "tools.vox:18:12: max_value_bytes limit of 1000 exceeded; pass --max-value-bytes to raise it\n  in big at tools.vox:18:12\n"},
		{[]string{"run", "tools.vox", "big", "--max-output-bytes", "1000"}, 1, noConfig + "tools.vox:18:4: max_output_bytes limit of 1000 exceeded; pass --max-output-bytes to raise it\n  in big at tools.vox:18:4\n"},
		{[]string{"run", "tools.vox", "big", "--max-alloc-bytes", "1000"}, 1, noConfig + "tools.vox:18:12: max_alloc_bytes limit of 1000 exceeded; pass --max-alloc-bytes to raise it\n  in big at tools.vox:18:12\n"},
		{[]string{"run", "tools.vox", "big", "--max-depth", "0"}, 2, "vox run: --max-depth, --max-output-bytes and --max-value-bytes must be positive\n"},
		{[]string{"run", "bad.vox", "x"}, 1, "bad.vox:2:14: error: expected an expression, found '}' [vox/parse/syntax]\nvox run: bad.vox does not compile\n"},
		{[]string{"run", "missing.vox", "x"}, 1, "vox run: open missing.vox: no such file or directory\n"},
		{[]string{"run", "tools.vox"}, 1, noConfig + "vox run: tools.vox has no top-level statements and no fn main: name the function to call (vox run FILE FUNC)\n"},
		{[]string{"run", "tools.vox", "greet", "extra"}, 2, ""},
	} {
		code, out, errOut := vox(t, tc.args...)
		if code != tc.code || out != "" || (tc.err != "" && errOut != tc.err) {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, out, errOut)
		}
	}
}

// TestRunLogs: print and log.* write to stderr at their levels; stdout
// holds the result only.
func TestRunLogs(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": runSrc})
	t.Chdir(root)
	code, out, errOut := vox(t, "run", "tools.vox", "levels")
	if code != 0 || out != "null\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{`level=WARN msg="careful 1"`, `level=ERROR msg=broken`, `level=INFO msg=printed`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %s: %q", want, errOut)
		}
	}
	if strings.Contains(errOut, "at debug") {
		t.Errorf("debug is below the log's level: %q", errOut)
	}
}

// configRepo is a repository with a scan config that lowers the steps
// and output limits and allows one variable, and tools in a subfolder.
func configRepo(t *testing.T, config string) string {
	t.Helper()
	root := writeFiles(t, map[string]string{
		"contracts/mcp/workspace-mcp-surface.v1.yaml": config,
		"tools/t.vox": `fn spin() { loop { } }
fn env_of(name: str) { env.get(name) }
fn notes() { fs.read("notes.md") }
fn big() { "x".repeat(5000) }
`,
		"notes.md": "# notes at the root",
	})
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

const lowering = "scan_globs: [\"tools/*.vox\"]\nlimits:\n  steps: 100\n  max_output_bytes: 1000\n  timeout_ms: 0\n  max_depth: 100000\nenv_allow: [VOX_RUN_ALLOWED]\n"

// TestRunUsesTheScanConfig: vox run finds the scan config of the file's
// repository, says so on stderr, and calls as the server would: the
// config's limits lower vox run's (0 and larger values do not raise
// them), env.get reads env_allow only once vox trust granted it, fs.*
// reads below the config's root; a limit the config set names the config
// in its advice, and only then.
func TestRunUsesTheScanConfig(t *testing.T) {
	root := configRepo(t, lowering)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("VOX_RUN_ALLOWED", "yes")
	t.Setenv("VOX_RUN_DENIED", "secret")
	t.Chdir(filepath.Join(root, "tools"))
	if code, out, errOut := vox(t, "trust", root); code != 0 || !strings.HasPrefix(out, "trusted ") {
		t.Fatalf("vox trust: exit %d stdout %q stderr %q", code, out, errOut)
	}
	const said = "vox run: scan config ../contracts/mcp/workspace-mcp-surface.v1.yaml: its steps, max_output_bytes limits; env.get reads VOX_RUN_ALLOWED\n"
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"spin"}, 1, "", said + "t.vox:1:13: steps limit of 100 exceeded; raise limits.steps in ../contracts/mcp/workspace-mcp-surface.v1.yaml (a server on this repository stops there too)\n  in spin at t.vox:1:13\n"},
		// --steps 0 lifts vox run's limit, not the config's.
		{[]string{"spin", "--steps", "0"}, 1, "", said + "t.vox:1:13: steps limit of 100 exceeded; raise limits.steps in ../contracts/mcp/workspace-mcp-surface.v1.yaml (a server on this repository stops there too)\n  in spin at t.vox:1:13\n"},
		// A flag lower than the config wins, and its advice names the flag.
		{[]string{"spin", "--steps", "50"}, 1, "", "vox run: scan config ../contracts/mcp/workspace-mcp-surface.v1.yaml: its max_output_bytes limit; env.get reads VOX_RUN_ALLOWED\nt.vox:1:13: steps limit of 50 exceeded; pass --steps to raise it\n  in spin at t.vox:1:13\n"},
		{[]string{"big"}, 1, "", said + "t.vox:4:4: max_output_bytes limit of 1000 exceeded; raise limits.max_output_bytes in ../contracts/mcp/workspace-mcp-surface.v1.yaml (a server on this repository stops there too)\n  in big at t.vox:4:4\n"},
		{[]string{"env_of", "--args", `{"name":"VOX_RUN_ALLOWED"}`}, 0, "\"yes\"\n", said},
		{[]string{"env_of", "--args", `{"name":"VOX_RUN_DENIED"}`}, 0, "null\n", said},
		{[]string{"notes"}, 0, "\"# notes at the root\"\n", said},
	} {
		code, out, errOut := vox(t, append([]string{"run", "t.vox"}, tc.args...)...)
		if code != tc.code || out != tc.out || errOut != tc.err {
			t.Errorf("%v: exit %d stdout %q stderr\n%s", tc.args, code, out, errOut)
		}
	}
	// --root names the workspace: here one without a config.
	other := writeFiles(t, map[string]string{"notes.md": "other notes"})
	code, out, errOut := vox(t, "run", "t.vox", "notes", "--root", other)
	if code != 0 || out != "\"other notes\"\n" || !strings.HasPrefix(errOut, "vox run: no scan config in "+other+";") {
		t.Errorf("--root: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestRunWithholdsUntrustedPowers: vox run grants what the server
// withholds from an untrusted workspace no more than the server does —
// env.get gives None, with a warning naming vox trust — until vox trust
// records the workspace, or --allow-env grants the name; a change of what
// the config asks for withholds it again; --revoke withdraws it.
func TestRunWithholdsUntrustedPowers(t *testing.T) {
	root := configRepo(t, lowering)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("VOX_RUN_ALLOWED", "yes")
	t.Chdir(filepath.Join(root, "tools"))
	envOf := []string{"run", "t.vox", "env_of", "--args", `{"name":"VOX_RUN_ALLOWED"}`}
	check := func(what, want string, wantErr ...string) {
		t.Helper()
		code, out, errOut := vox(t, envOf...)
		if code != 0 || out != want {
			t.Errorf("%s: exit %d stdout %q stderr %q, want stdout %q", what, code, out, errOut, want)
		}
		for _, w := range wantErr {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", what, errOut, w)
			}
		}
	}
	check("untrusted", "null\n", "withheld: env_allow VOX_RUN_ALLOWED (this workspace is not trusted; run `vox trust "+root+"`",
		`env.get(\"VOX_RUN_ALLOWED\") returns None`)
	code, out, errOut := vox(t, append(envOf, "--allow-env", "VOX_RUN_ALLOWED")...)
	if code != 0 || out != "\"yes\"\n" || strings.Contains(errOut, "withheld") {
		t.Errorf("--allow-env: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if code, _, errOut := vox(t, "trust", root); code != 0 {
		t.Fatalf("vox trust: %s", errOut)
	}
	check("trusted", "\"yes\"\n")
	// An unrelated edit keeps the trust; asking for more withholds it all.
	cfgPath := filepath.Join(root, "contracts", "mcp", "workspace-mcp-surface.v1.yaml")
	writeTo(t, cfgPath, "# a comment\n"+lowering)
	check("unrelated edit", "\"yes\"\n")
	writeTo(t, cfgPath, lowering+"write_globs: [\"out/**\"]\n")
	check("powers changed", "null\n", "the scan config asks for other powers than when this workspace was trusted")
	code, out, _ = vox(t, "trust", "--list")
	if code != 0 || !strings.Contains(out, root+"\t") || !strings.Contains(out, "the scan config now asks for env_allow VOX_RUN_ALLOWED; write_globs out/**: withheld until vox trust again") {
		t.Errorf("vox trust --list: exit %d stdout %q", code, out)
	}
	if code, _, errOut := vox(t, "trust", root); code != 0 {
		t.Fatalf("vox trust: %s", errOut)
	}
	check("trusted again", "\"yes\"\n")
	if code, out, errOut := vox(t, "trust", "--revoke", root); code != 0 || !strings.HasPrefix(out, "revoked ") {
		t.Fatalf("vox trust --revoke: exit %d %q %q", code, out, errOut)
	}
	check("revoked", "null\n", "this workspace is not trusted")
	if code, _, errOut := vox(t, "trust", "--revoke", root); code != 1 || !strings.Contains(errOut, "is not trusted") {
		t.Errorf("revoking twice: exit %d stderr %q", code, errOut)
	}
}

// TestRunStopsAtTheRepository: a config above the repository's root
// belongs to another repository and is not used.
func TestRunStopsAtTheRepository(t *testing.T) {
	root := configRepo(t, lowering)
	inner := filepath.Join(root, "tools", "inner")
	writeTo(t, filepath.Join(inner, "x.vox"), "fn spin() { loop { } }\n")
	if err := os.Mkdir(filepath.Join(inner, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(inner)
	code, _, errOut := vox(t, "run", "x.vox", "spin", "--steps", "1000")
	if code != 1 || errOut != noConfig+"x.vox:1:13: steps limit of 1000 exceeded; pass --steps to raise it\n  in spin at x.vox:1:13\n" {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}

// TestRunRefusesABadConfig: a scan config the server would refuse stops
// vox run with its positioned errors.
func TestRunRefusesABadConfig(t *testing.T) {
	root := configRepo(t, "scan_globs: [\"tools/*.vox\"]\nlimits:\n  stepz: 5\n")
	t.Chdir(root)
	code, out, errOut := vox(t, "run", "tools/t.vox", "spin")
	if code != 1 || out != "" || !strings.Contains(errOut, "contracts/mcp/workspace-mcp-surface.v1.yaml:3:3:") ||
		!strings.HasSuffix(errOut, "vox run: the scan config is invalid; a server would refuse it too\n") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func writeTo(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunLibrary: the everyday library through vox run — std.fs, regex,
// format, log, round with digits, list min and max.
func TestRunLibrary(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"notes.txt": "a\nTODO one\nno\n TODO two\n",
		"lib.vox": `@tool "Counts the TODO lines of a file"
fn todos(path: str) to int {
    let text = std.fs.read(path)?
    let hits = text.lines().filter(l => regex.is_match(l, r"\bTODO\b"))
    log.info(format("{} has {:>4} TODOs", path, hits.len()))
    hits.len()
}

@tool "Summarises numbers"
fn stats(xs: list[float]) to str {
    let avg = round(sum(xs) / len(xs), 2)
    format("n={} min={} max={} avg={:.2}", len(xs), xs.min().unwrap(), xs.max().unwrap(), avg)
}

fn bad_pattern() { regex.find("x", "(?<=a)x") }
`,
	})
	t.Chdir(root)
	code, out, errOut := vox(t, "run", "lib.vox", "todos", "--args", `{"path":"notes.txt"}`)
	if code != 0 || out != "2\n" || !strings.Contains(errOut, `msg="notes.txt has    2 TODOs"`) {
		t.Errorf("todos: exit %d stdout %q stderr %q", code, out, errOut)
	}
	code, out, _ = vox(t, "run", "lib.vox", "stats", "--args", `{"xs":[1, 2.5, 4]}`)
	if code != 0 || out != "\"n=3 min=1.0 max=4.0 avg=2.50\"\n" {
		t.Errorf("stats: exit %d stdout %q", code, out)
	}
	code, _, errOut = vox(t, "run", "lib.vox", "bad_pattern")
	if code != 1 || errOut != noConfig+"lib.vox:15:47: regex.find: the pattern uses a lookbehind \"(?<=\" at byte 0, which RE2 (Go's regexp) cannot express; see docs/vox-language.md, Regular expressions\n" {
		t.Errorf("bad pattern: exit %d stderr %q", code, errOut)
	}
}

// TestRunReadOverTheValueLimit: fs.read of a file over max_value_bytes is
// an Err the tool matches, and the call goes on (issue: a huge file in a
// scan must not end the whole call).
func TestRunReadOverTheValueLimit(t *testing.T) {
	src := `fn first_readable(paths: list[str]) to str {
    for p in paths {
        match fs.read(p) {
            Ok(text) => return p + ": " + text,
            Err(e) => print("skipped", e),
        }
    }
    "none"
}
`
	root := writeFiles(t, map[string]string{"tools.vox": src, "big.txt": strings.Repeat("x", 5000), "small.txt": "abc"})
	t.Chdir(root)
	code, out, errOut := vox(t, "run", "tools.vox", "first_readable", "--args", `{"paths":["big.txt","small.txt"]}`, "--max-value-bytes", "1000")
	if code != 0 || out != "\"small.txt: abc\"\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "big.txt: 5000 bytes, over the limit of 1000 bytes for one value (max_value_bytes); fs.read reads files up to it") {
		t.Errorf("the Err names the file, its size and the limit: %q", errOut)
	}
}

// TestRunRaw: --raw prints a str result as its text; anything else stays
// JSON.
func TestRunRaw(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": `fn report() to str { "line 1\n\"quoted\"\n" }
fn count() to int { 3 }
fn word() to str { "done" }
`})
	t.Chdir(root)
	for _, tc := range []struct{ fn, want string }{
		{"report", "line 1\n\"quoted\"\n"},
		{"word", "done\n"},
		{"count", "3\n"},
	} {
		if code, out, errOut := vox(t, "run", "tools.vox", tc.fn, "--raw"); code != 0 || out != tc.want {
			t.Errorf("%s: exit %d stdout %q stderr %q", tc.fn, code, out, errOut)
		}
	}
}

// TestRunWalkLeavesOutWhatGitIgnores: fs.walk and fs.glob skip .git and
// what the repository's ignore files ignore, as git lists a tree; options
// add excludes or include everything.
func TestRunWalkLeavesOutWhatGitIgnores(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"tools.vox": `fn all() to list[str] { fs.walk()? }
fn sub() to list[str] { fs.walk("src")? }
fn logs() to list[str] { fs.glob("**/*.log")? }
fn excluding() to list[str] { fs.walk(".", {excludes: ["src/gen/**", "*.vox"]})? }
fn everything() to list[str] { fs.glob("**/*.log", {include_ignored: true})? }
fn bad() to list[str] { fs.walk(".", {exclude: ["x"]})? }
`,
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/info/exclude":    "local.txt\n",
		".gitignore":           "# build output\nbuild/\n*.log\n!keep.log\n",
		"build/out.txt":        "x",
		"app.log":              "x",
		"keep.log":             "x",
		"local.txt":            "x",
		"src/main.txt":         "x",
		"src/.gitignore":       "secret.txt\n",
		"src/secret.txt":       "x",
		"src/gen/code.txt":     "x",
		"src/deep/trace.log":   "x",
		"notes/build/plan.txt": "x",
	})
	t.Chdir(root)
	for _, tc := range []struct{ fn, want string }{
		{"all", `[".gitignore","keep.log","src/.gitignore","src/gen/code.txt","src/main.txt","tools.vox"]`},
		{"sub", `["src/.gitignore","src/gen/code.txt","src/main.txt"]`},
		{"logs", `["keep.log"]`},
		{"excluding", `[".gitignore","keep.log","src/.gitignore","src/main.txt"]`},
		{"everything", `["app.log","keep.log","src/deep/trace.log"]`},
	} {
		if code, out, errOut := vox(t, "run", "tools.vox", tc.fn); code != 0 || out != tc.want+"\n" {
			t.Errorf("%s: exit %d stdout %s stderr %q", tc.fn, code, out, errOut)
		}
	}
	if code, _, errOut := vox(t, "run", "tools.vox", "bad"); code != 1 || !strings.Contains(errOut, `fs.walk: unknown option "exclude"; the options are {excludes: list[str], include_ignored: bool}`) {
		t.Errorf("bad option: exit %d stderr %q", code, errOut)
	}
}
