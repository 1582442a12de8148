package voxmcp

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// importRules are the allowed directions of the data flow
// (docs/architecture.md §7): generated code depends on the runtime, never
// the other way round (as protobuf-go's runtime never imports its
// compiler), and vox builds without the tables it regenerates.
var importRules = []struct {
	pkgs      string   // a go list pattern
	forbidden []string // import path prefixes, relative to the module
	why       string
	code      bool     // the package's own code only: its tests may run it through what it must not import
	allowed   []string // packages under a forbidden prefix that are not forbidden
	except    []string // packages of pkgs the rule does not cover (a rule of their own does)
}{
	{"./runtime/...", []string{"generated/", "gen", "internal/gates", "cmd/", "internal/cmd/"}, "runtime/ is what every binary runs, generated app servers included; it is given tables, never links them", false, nil, nil},
	{"./internal/...", []string{"generated/", "gen", "internal/gates", "cmd/", "internal/cmd/"}, "internal/ holds the rest of what the binaries run, under the same rule as runtime/ (docs/architecture.md, Public API)", false, nil, []string{"internal/gates"}},
	{"./gen/...", []string{"generated/", "internal/gates", "cmd/"}, "the generator must run when the generated code is stale or broken", false, nil, nil},
	{"./internal/gates/...", []string{"generated/", "cmd/"}, "the gates run inside vox, which regenerates generated/", false, nil, nil},
	{"./cmd/vox", []string{"generated/"}, "vox gen must build while generated/ is stale or broken", false, nil, nil},
	{"./generated/...", []string{"gen", "internal/gates", "cmd/"}, "generated code depends on the runtime only", false, nil, nil},
	{"./internal/vox/libsig", []string{"runtime/", "internal/", "generated/", "gen", "cmd/"}, "libsig holds the library's signature types and table: a leaf every reader of signatures can import", false, []string{"internal/vox/libsig"}, nil},
	{"./internal/vox/check/...", []string{"internal/vox/eval", "internal/vox/capability"}, "the checker reads the library's signatures from libsig, never the interpreter that implements them", true, nil, nil},
	{"./internal/oauth", []string{"runtime/", "internal/", "generated/", "gen", "cmd/"}, "the token validator knows tokens, not the server's roles or plane: it imports nothing of the module", true, []string{"internal/oauth", "internal/oauthtest"}, nil},
	// The MCP transport is apart from the plane (docs/architecture.md §4):
	// the plane imports the transport, never the other way round, as the
	// Go SDK's mcp imports internal/jsonrpc2.
	// The metrics are a leaf the plane feeds (docs/metrics.md): they
	// never reach into the plane they count.
	{"./internal/telemetry/...", []string{"runtime/", "internal/"}, "the metrics and traces are a leaf fed by the server's hooks: they import nothing of the runtime they count but the session id's hash", true, []string{"internal/telemetry", "internal/session"}, nil},
	{"./internal/server/transport/...", []string{"internal/server"}, "the transport (framing, heads, batches) never imports the plane it carries messages for", false,
		[]string{"internal/server/transport"}, nil},
}

// TestImportRules checks the rules with go list -deps, tests included.
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	const module = "github.com/vox-lang/vox-mcp/"
	for _, rule := range importRules {
		out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}: {{join .Deps \" \"}} {{join .Imports \" \"}}", rule.pkgs).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", rule.pkgs, err, out)
		}
		checked := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, deps, _ := strings.Cut(line, ": ")
			if !strings.HasPrefix(pkg, module) || !matches(strings.TrimPrefix(pkg, module), rule.pkgs) {
				continue
			}
			if slices.ContainsFunc(rule.except, func(e string) bool { return matches(strings.TrimPrefix(pkg, module), "./"+e+"/...") }) {
				continue
			}
			if rule.code && strings.Contains(pkg, ".test") {
				continue
			}
			checked++
			for _, dep := range strings.Fields(deps) {
				rel, ok := strings.CutPrefix(dep, module)
				if !ok {
					continue
				}
				for _, f := range rule.forbidden {
					if under(rel, f) && !allowedDep(rel, rule.allowed) {
						t.Errorf("%s depends on %s: %s", pkg, dep, rule.why)
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no package checked", rule.pkgs)
		}
	}
}

// under reports whether the module-relative package rel is the package
// prefix or one below it.
func under(rel, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

// allowedDep reports whether dep is one of the allowed packages, or the
// external test package (p_test) of one.
func allowedDep(dep string, allowed []string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool { return under(strings.TrimSuffix(dep, "_test"), a) })
}

// matches reports whether a module-relative package path (possibly a test
// variant, "p [p.test]" or "p.test") belongs to a go list pattern.
func matches(rel, pattern string) bool {
	rel, _, _ = strings.Cut(rel, " ")
	rel = strings.TrimSuffix(rel, ".test")
	pattern = strings.TrimPrefix(pattern, "./")
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// publicAPI is the module's public API (docs/architecture.md, Public API):
// the packages that vox gen app output and the generated tables import.
var publicAPI = []string{"runtime/app", "runtime/registry", "runtime/toolcall", "runtime/workspace"}

// TestPublicAPI checks the internal/ boundary: runtime/ holds the public
// packages and no other, the docs' table lists exactly them, and the code
// a user's go generate writes (generated/ here) imports no package of this
// module outside them. The code of vox gen app is held to the same by
// TestGenAppBuildsAndServes, which builds it in a module of its own.
func TestPublicAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	const module = "github.com/vox-lang/vox-mcp/"
	out, err := exec.Command("go", "list", "./runtime/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./runtime/...: %v\n%s", err, out)
	}
	var runtimePkgs []string
	for _, p := range strings.Fields(string(out)) {
		runtimePkgs = append(runtimePkgs, strings.TrimPrefix(p, module))
	}
	if !slices.Equal(runtimePkgs, publicAPI) {
		t.Errorf("packages under runtime/: %q, want the public API %q: a package that callers outside the module do not import belongs under internal/", runtimePkgs, publicAPI)
	}

	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### Public API")
	section, _, _ = strings.Cut(section, "\n### ")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(runtime/[a-z/]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	if !slices.Equal(documented, publicAPI) {
		t.Errorf("docs/architecture.md, Public API lists %q, want %q", documented, publicAPI)
	}

	out, err = exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "./generated/...").Output()
	if err != nil {
		t.Fatalf("go list ./generated/...: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		checked++
		for _, imp := range strings.Fields(imports) {
			if rel, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(publicAPI, rel) {
				t.Errorf("%s imports %s, which a user's module cannot import: generated code imports the public API only", pkg, imp)
			}
		}
	}
	if checked == 0 {
		t.Error("no generated package checked")
	}
}

// TestPackagesDocumented checks that docs/architecture.md's table of
// packages (§7, Packages) has a row for every package of runtime/ and
// internal/, so that a reader sees the architecture from it; a "p/..."
// row covers the packages below p, and a package's own internal/ helpers
// need no row.
func TestPackagesDocumented(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "### Packages")
	table, _, _ = strings.Cut(table, "\n## ")
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		if cell, ok := strings.CutPrefix(line, "| "); ok {
			first, _, _ := strings.Cut(cell, " |")
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
				rows = append(rows, m[1])
			}
		}
	}
	out, err := exec.Command("go", "list", "./runtime/...", "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/vox-lang/vox-mcp/"
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(pkg, module)
		if _, below, _ := strings.Cut(rel, "/"); strings.Contains("/"+below, "/internal/") {
			continue // a package's own helper
		}
		covered := slices.ContainsFunc(rows, func(r string) bool {
			base, tree := strings.CutSuffix(r, "/...")
			return r == rel || tree && under(rel, base)
		})
		if !covered {
			t.Errorf("docs/architecture.md §7 (Packages) has no row for %s: add one saying its job and what it may import", rel)
		}
	}
}
