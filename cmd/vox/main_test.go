package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// vox runs the CLI in-process and returns its exit code and outputs.
func vox(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// repoRoot is the repository this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// copyCatalogRepo makes a temp repository holding this repository's
// catalog (so its rows match the real handlers and commands), with edit
// applied to the catalog text.
func copyCatalogRepo(t *testing.T, edit func(string) string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "contracts", "operations", "catalog.v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := filepath.Join(root, "contracts", "operations", "catalog.v1.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestVersionAndUsage(t *testing.T) {
	code, out, _ := vox(t, "--version")
	if code != 0 || !regexp.MustCompile(`^vox \S+ \S+\n$`).MatchString(out) {
		t.Fatalf("--version: %d %q", code, out)
	}
	if code, _, errOut := vox(t); code != 2 || !strings.Contains(errOut, "usage: vox") {
		t.Fatalf("no arguments: %d %q", code, errOut)
	}
	if code, _, errOut := vox(t, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: %d %q", code, errOut)
	}
	if code, _, _ := vox(t, "gen", "--no-such-flag"); code != 2 {
		t.Fatalf("bad flag: exit %d", code)
	}
	if code, _, _ := vox(t, "ci", "operations-verify", "extra"); code != 2 {
		t.Fatalf("unexpected argument: exit %d", code)
	}
}

func TestOperationsVerifyPassesOnThisRepository(t *testing.T) {
	code, out, errOut := vox(t, "ci", "operations-verify", "--root", repoRoot(t))
	if code != 0 || !regexp.MustCompile(`^operations-verify ok \(\d+ operations, \d+ MCP tools, \d+ CLI commands\)\n$`).MatchString(out) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

func TestOperationsVerifyFailsOnUnknownKeyWithPosition(t *testing.T) {
	root := copyCatalogRepo(t, func(s string) string {
		return strings.Replace(s, "    product_lane: platform\n", "    product_lane: platform\n    colour: blue\n", 1)
	})
	code, out, errOut := vox(t, "ci", "operations-verify", "--root", root)
	if code != 1 || out != "operations-verify: 1 problem(s)\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	if !regexp.MustCompile(`^operations-verify: contracts/operations/catalog\.v1\.yaml:\d+:5: unknown key "colour" in operation "[^"]+"; allowed: .*product_lane.*\n$`).MatchString(errOut) {
		t.Fatalf("stderr %q", errOut)
	}
	// The JSON report says the same.
	code, out, _ = vox(t, "ci", "operations-verify", "--json", "--root", root)
	var report struct {
		Gate     string `json:"gate"`
		OK       bool   `json:"ok"`
		Problems []struct {
			Path    string `json:"path"`
			Line    int    `json:"line"`
			Col     int    `json:"col"`
			Message string `json:"message"`
		} `json:"problems"`
		Warnings []any `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 {
		t.Fatalf("exit %d json %q: %v", code, out, err)
	}
	if report.Gate != "operations-verify" || report.OK || len(report.Problems) != 1 || report.Problems[0].Line == 0 || report.Problems[0].Col != 5 || report.Warnings == nil {
		t.Fatalf("report %+v", report)
	}
}

// The gate checks the CLI rows against the command table in both
// directions; rows against handlers are the compiler's job (the generated
// Handlers interface), so a renamed tool is no finding here.
func TestOperationsVerifyCommandsBothDirections(t *testing.T) {
	// A command without a row (the row for "ci all" removed), an active row
	// without a command, plus stale generated tables.
	root := copyCatalogRepo(t, func(s string) string {
		s = strings.Replace(s, "      name: vox_tool_search\n", "      name: vox_tool_nowhere\n", 1)
		s = strings.Replace(s, "      path: [check]\n", "      path: [inspect]\n", 1)
		i := strings.Index(s, "  - id: ci.all\n")
		return s[:i]
	})
	code, out, errOut := vox(t, "ci", "operations-verify", "--root", root)
	if code != 1 {
		t.Fatalf("exit %d %s", code, out)
	}
	for _, line := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(line, "operations-verify: ") && (strings.Contains(line, "no handler") || strings.Contains(line, "has a handler")) {
			t.Errorf("the gate still checks handlers: %s", line)
		}
	}
	for _, want := range []string{
		`CLI row "inspect" (operation "check") is active but vox has no such command`,
		`vox command "check" has no catalog row: add a row with cli.path [check]`,
		`vox command "ci all" has no catalog row: add a row with cli.path [ci, all]`,
		"generated/catalog/catalog.go: is missing: run: go generate ./...",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestGenCheckAndWrite(t *testing.T) {
	root := copyCatalogRepo(t, func(s string) string { return s })
	code, out, errOut := vox(t, "gen", "--check", "--root", root)
	if code != 1 || !strings.Contains(out, "+++ b/generated/catalog/catalog.go") || !strings.Contains(errOut, "run: go generate ./...") {
		t.Fatalf("check on a fresh repo: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := vox(t, "gen", "--root", root); code != 0 || !strings.Contains(out, "written") {
		t.Fatalf("gen: %d %s", code, out)
	}
	if code, out, _ := vox(t, "gen", "--root", root, "--check"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("check after gen: %d %s", code, out)
	}
	if code, out, _ := vox(t, "ci", "operations-verify", "--root", root); code != 0 {
		t.Fatalf("operations-verify after gen: %d %s", code, out)
	}
	// An invalid catalog: errors with positions, nothing written.
	p := filepath.Join(root, "contracts", "operations", "catalog.v1.yaml")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, append(src, "oops: 1\n"...), 0o644)
	before, _ := os.ReadFile(filepath.Join(root, "generated", "catalog", "catalog.go"))
	code, _, errOut = vox(t, "gen", "--root", root)
	if code != 1 || !regexp.MustCompile(`contracts/operations/catalog\.v1\.yaml:\d+:1: unknown key "oops" in top level`).MatchString(errOut) || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("invalid catalog: %d %s", code, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(root, "generated", "catalog", "catalog.go"))
	if !bytes.Equal(before, after) {
		t.Fatal("a failed gen changed the tables")
	}
}

func TestGatesSkipWithoutCatalog(t *testing.T) {
	code, out, _ := vox(t, "ci", "operations-verify", "--root", t.TempDir())
	if code != 0 || out != "operations-verify skipped (no catalog)\n" {
		t.Fatalf("exit %d %q", code, out)
	}
	code, out, _ = vox(t, "ci", "operations-verify", "--json", "--root", t.TempDir())
	if code != 0 || !strings.Contains(out, `"ok":true`) || !strings.Contains(out, `"summary":{"skipped":"no catalog"}`) {
		t.Fatalf("json skip: %d %s", code, out)
	}
}

func TestCIAllJSON(t *testing.T) {
	code, out, errOut := vox(t, "ci", "all", "--json", "--root", repoRoot(t))
	var all struct {
		OK      bool `json:"ok"`
		Reports []struct {
			Gate string `json:"gate"`
			OK   bool   `json:"ok"`
		} `json:"reports"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if code != 0 || !all.OK || len(all.Reports) < 1 {
		t.Fatalf("exit %d %+v\n%s", code, all, errOut)
	}
}
