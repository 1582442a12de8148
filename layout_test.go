package voxmcp

import (
	"os/exec"
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
}{
	{"./runtime/...", []string{"generated/", "gen", "gates", "cmd/"}, "runtime/ is what every binary runs, generated app servers included; it is given tables, never links them", false, nil},
	{"./gen/...", []string{"generated/", "gates", "cmd/"}, "the generator must run when the generated code is stale or broken", false, nil},
	{"./gates/...", []string{"generated/", "cmd/"}, "the gates run inside vox, which regenerates generated/", false, nil},
	{"./cmd/vox", []string{"generated/"}, "vox gen must build while generated/ is stale or broken", false, nil},
	{"./generated/...", []string{"gen", "gates", "cmd/"}, "generated code depends on the runtime only", false, nil},
	{"./runtime/vox/libsig", []string{"runtime/", "generated/", "gen", "gates", "cmd/"}, "libsig holds the library's signature types and table: a leaf every reader of signatures can import", false, nil},
	{"./runtime/vox/check/...", []string{"runtime/vox/eval", "runtime/vox/capability"}, "the checker reads the library's signatures from libsig, never the interpreter that implements them", true, nil},
	{"./runtime/oauth", []string{"runtime/", "generated/", "gen", "gates", "cmd/"}, "the token validator knows tokens, not the server's roles or plane: it imports nothing of the module", true, nil},
	// The MCP transport is apart from the plane (docs/architecture.md §4):
	// the plane imports the transport, never the other way round, as the
	// Go SDK's mcp imports internal/jsonrpc2.
	{"./runtime/server/transport/...", []string{"runtime/server"}, "the transport (framing, heads, batches) never imports the plane it carries messages for", false,
		[]string{"runtime/server/transport"}},
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
