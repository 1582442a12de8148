package check_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
)

// rejected pins every code the checker may report as an error to a
// snippet the reference's checker rejects too, with the section of the
// product spec that says so: a checker error drops a function from the
// served surface, so it must never fall on Vox the reference accepts.
// strict marks the codes that are errors only under vox check --strict.
var rejected = []struct {
	code, src string
	strict    bool
}{
	// spec 21 §9.2, spec 22 §1.3: "Cannot assign to immutable variable".
	{"vox/assign/immutable", "@tool \"t\"\nfn t() to int {\n    let x = 1\n    x = 2\n    x\n}\n", false},
	// spec 22 §1.6: f(null) where the parameter is str is "Argument type mismatch".
	{"vox/call/argument", "fn f(s: str) to str { s }\n@tool \"t\"\nfn t() to str { f(null) }\n", false},
	// spec 22 §3: s.slice takes two arguments there (an argument-count error).
	{"vox/call/arity", "@tool \"t\"\nfn t(s: str) to str { s.slice(1, 2, 3) }\n", false},
	// spec 21 §9.2: the callee must be a function ("Not a function: T").
	{"vox/call/not-callable", "@tool \"t\"\nfn t() to int {\n    let n = 3\n    n(1)\n}\n", false},
	// spec 22 §4.2: "Unknown endpoint kind. Expected query, mutation, or server."
	{"vox/decorator/endpoint-kind", "@endpoint(kind: qurey)\nfn e() to int { 1 }\n", true},
	// spec 22 §1.2: the lexer drops the @ of an unknown decorator, leaving tol at top level.
	{"vox/decorator/unknown", "@tol \"t\"\nfn t() to str { \"x\" }\n", false},
	// spec 21 §9.2: "Field 'f' not found on struct S".
	{"vox/field/unknown", "type Point { x: int, y: int }\n@tool \"t\"\nfn t(p: Point) to int { p.z }\n", false},
	// spec 21 §5.4: E0301 "Non-exhaustive match on type 'T'".
	{"vox/match/non-exhaustive", "type Shape =\n    | Circle(r: float)\n    | Rect(w: float)\n@tool \"t\"\nfn t(s: Shape) to float {\n    match s {\n        Circle(r) => r\n    }\n}\n", false},
	// spec 22 §1.4: a method name not in the receiver's table.
	{"vox/method/unknown", "@tool \"t\"\nfn t(name: str) to int { name.lenght() }\n", false},
	// spec 22 §1.4: "Undefined variable: x".
	{"vox/name/undefined", "@tool \"t\"\nfn t() to int { totl }\n", false},
	// spec 21 §5.4 and §5.7: "Tuple size mismatch: expected 2, found 3".
	{"vox/pattern/shape", "@tool \"t\"\nfn t() to int {\n    let (a, b) = (1, 2, 3)\n    a + b\n}\n", false},
	// spec 21 §5.4: "Unknown constructor or pattern mismatch: Name on T".
	{"vox/pattern/type", "@tool \"t\"\nfn t(o: Option[int]) to int {\n    match o {\n        Ok(x) => x\n        _ => 0\n    }\n}\n", false},
	// spec 22 §1.3: return e is checked ("Return type mismatch").
	{"vox/return/type", "@tool \"t\"\nfn t() to int {\n    return \"five\"\n}\n", false},
	// spec 21 §6.9: "`?` can only be used on Result or Option types".
	{"vox/try/operand", "@tool \"t\"\nfn t() to Result[int, str] {\n    let n = 3\n    Ok(n?)\n}\n", false},
	// spec 21 §6.9: ? on an Option in a function returning a Result.
	{"vox/try/outside-result", "@tool \"t\"\nfn t(o: Option[int]) to Result[int, str] {\n    let x = o?\n    Ok(x)\n}\n", false},
	// spec 22 §1.6: let s: str = null is a type error.
	{"vox/type/mismatch", "@tool \"t\"\nfn t() to int {\n    let s: str = null\n    1\n}\n", false},
	// spec 22 §1.3: + is checked ("Invalid operands for +: L and R").
	{"vox/type/operands", "@tool \"t\"\nfn t() to int { true + 1 }\n", false},
	// spec 22 §1.4: "Method 'm' not found on T" for an unannotated parameter.
	{"vox/compat/method-receiver", "@tool \"t\"\nfn t(a) to str { a.trim() }\n", true},
}

// servingRules are error codes about vox-mcp's MCP declarations
// (@mcp.prompt, resource URI templates, @mcp.complete), which the
// reference has no counterpart of: a tool, resource or prompt that breaks
// them cannot be served, whatever the reference does with the file.
var servingRules = []string{"vox/decl/complete", "vox/decl/prompt-param", "vox/decl/prompt-result", "vox/decl/resource-template", "vox/decl/resource-var"}

// errorSite finds where the checker's source reports an error: errorf,
// diagErr, a report chosen between errorf and warnf, referenceRejects and
// a literal error diagnostic.
var errorSite = regexp.MustCompile(`(?:errorf|diagErr|report|referenceRejects)\([^"\n]*"(vox/[a-z/-]+)"|Severity: diag\.Error, Code: "(vox/[a-z/-]+)"`)

// TestErrorCodesTheReferenceRejects: every code the checker may report as
// an error is in rejected (its snippet gives that error, by default or
// under --strict only) or is a serving rule.
func TestErrorCodesTheReferenceRejects(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range errorSite.FindAllStringSubmatch(string(src), -1) {
			code := m[1] + m[2]
			if !slices.Contains(codes, code) {
				codes = append(codes, code)
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("found only %d error codes in the checker's source: %v", len(codes), codes)
	}
	for _, code := range codes {
		if !slices.Contains(servingRules, code) && !slices.ContainsFunc(rejected, func(r struct {
			code, src string
			strict    bool
		}) bool {
			return r.code == code
		}) {
			t.Errorf("%s can be an error, but no snippet shows that the reference rejects it: add one to rejected, or make it a warning", code)
		}
	}
	for _, r := range rejected {
		got := errorCodes(r.src, check.Options{Strict: r.strict})
		if !slices.Contains(got, r.code) {
			t.Errorf("%s: the snippet gives errors %v\n%s", r.code, got, r.src)
		}
		if r.strict && slices.Contains(errorCodes(r.src, check.Options{}), r.code) {
			t.Errorf("%s is an error by default; it should be one under --strict only", r.code)
		}
	}
}

func errorCodes(src string, opts check.Options) []string {
	var out []string
	for _, d := range vox.CompileWith("ref.vox", []byte(src), opts).Diagnostics() {
		if d.Severity == diag.Error {
			out = append(out, d.Code)
		}
	}
	return out
}

// TestReferenceCorpus: Vox the reference accepts (testdata/reference,
// assembled from the examples of spec 22 §1-§4 and spec 21 §5-§6) gives
// no error, by default or under --strict, so every function of it is
// served.
func TestReferenceCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/reference/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []check.Options{{}, {Strict: true}} {
			m := vox.CompileWith(f, src, opts)
			for _, d := range m.Diagnostics() {
				if d.Severity == diag.Error {
					t.Errorf("strict=%v %s:%d:%d: %s [%s]", opts.Strict, f, d.Line, d.Col, d.Message, d.Code)
				}
			}
			for _, tool := range m.Tools() {
				if d, broken := m.Broken(tool.Name); broken {
					t.Errorf("%s: tool %s is not served: %s", f, tool.Name, d.Message)
				}
			}
		}
	}
}
