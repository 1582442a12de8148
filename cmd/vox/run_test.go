package main

import (
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

func TestRunErrors(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": runSrc, "bad.vox": "@tool \"x\"\nfn x() { 1 + }\n"})
	t.Chdir(root)
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"run", "tools.vox", "greet"}, 1, "missing argument: name\n"},
		{[]string{"run", "tools.vox", "greet", "--args", `{"name":1}`}, 1, "argument name: want str, got integer\n"},
		{[]string{"run", "tools.vox", "fail"}, 1, "it broke\n"},
		{[]string{"run", "tools.vox", "undefined_name"}, 1, "tools.vox:14:23: undefined: db\n"},
		{[]string{"run", "tools.vox", "spin", "--steps", "100"}, 1, "steps limit of 100 exceeded; raise limits.steps in contracts/mcp/workspace-mcp-surface.v1.yaml or pass --steps/--timeout\n"},
		{[]string{"run", "tools.vox", "spin", "--steps", "0", "--timeout", "50ms"}, 1, "timeout_ms limit of 50 exceeded; raise limits.timeout_ms in contracts/mcp/workspace-mcp-surface.v1.yaml or pass --steps/--timeout\n"},
		{[]string{"run", "bad.vox", "x"}, 1, "bad.vox:2:14: error: expected an expression, found '}' [vox/parse/syntax]\nvox run: bad.vox does not compile\n"},
		{[]string{"run", "missing.vox", "x"}, 1, "vox run: open missing.vox: no such file or directory\n"},
		{[]string{"run", "tools.vox"}, 2, ""},
	} {
		code, out, errOut := vox(t, tc.args...)
		if code != tc.code || out != "" || (tc.err != "" && errOut != tc.err) {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, out, errOut)
		}
	}
}
