package main

import (
	"regexp"
	"strings"
	"testing"
)

// vox check over the reference-valid corpus reports no error, by default
// and under --strict (docs/vox-language.md, The checker).
func TestCheckReferenceCorpus(t *testing.T) {
	for _, args := range [][]string{{"check"}, {"check", "--strict"}} {
		code, out, errOut := vox(t, append(args, "../../internal/vox/check/testdata/reference")...)
		if code != 0 || !regexp.MustCompile(`^checked \d+ file\(s\): 0 error\(s\), \d+ warning\(s\)\n$`).MatchString(out) {
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
		if !strings.Contains(errOut, "[vox/type/condition]") || !strings.Contains(errOut, "[vox/lexer/bang-not]") {
			t.Errorf("%v: the discarded unifications and ! are warned of:\n%s", args, errOut)
		}
	}
}

// --strict reports what the reference rejects and the default tolerates:
// an undefined name no tool reaches, a method on an unannotated parameter.
func TestCheckStrict(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.vox": "fn helper(a) to str { a.trim() }\n\nfn unused() { println(\"x\") }\n"})
	t.Chdir(root)
	code, out, errOut := vox(t, "check", "a.vox")
	if code != 0 || out != "checked 1 file(s): 0 error(s), 1 warning(s)\n" {
		t.Fatalf("default: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = vox(t, "check", "--strict", "a.vox")
	if code != 1 || out != "checked 1 file(s): 2 error(s), 0 warning(s)\n" {
		t.Fatalf("--strict: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"a.vox:1:25: error: the reference rejects this: it has no method trim on a value of unknown type",
		"a.vox:3:15: error: undefined: println",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--strict: no %q in\n%s", want, errOut)
		}
	}
}

// The constructs of the reference run: ! reads as not, x is not null as
// x isnt null, an @endpoint function is callable, a @table type
// parameter's Option fields are wrapped, and a function returning a view
// element fails only when called.
func TestRunReferenceConstructs(t *testing.T) {
	src := `@tool "negates"
fn neg(x: bool) to bool { !x }

@tool "tests for null"
fn present(o: Option[int]) to bool { o is not null }

@table type Profile {
    name: str
    bio: Option[str]
    age: Option[int]
}

@tool "describes"
fn describe(p: Profile) to str {
    let b = match p.bio {
        Some(x) => x
        None => "none"
    }
    let a = match p.age {
        Some(n) => str(n)
        None => "unknown"
    }
    p.name + " " + b + " " + a
}

@endpoint(kind: query)
fn names() to list[str] { ["a", "b"] }

@tool "counts the endpoint's names"
fn count() to int { len(names()) }

fn loading() {
    return text() { "Loading" }
}

@tool "shows"
fn show() to str {
    loading()
    "shown"
}
`
	root := writeFiles(t, map[string]string{"r.vox": src})
	t.Chdir(root)
	for _, c := range []struct{ fn, args, out string }{
		{"neg", `{"x": true}`, "false\n"},
		{"present", `{"o": 3}`, "true\n"},
		{"present", `{}`, "false\n"},
		{"describe", `{"p": {"name": "n", "bio": "hi", "age": null}}`, "\"n hi unknown\"\n"},
		{"names", `{}`, "[\"a\",\"b\"]\n"},
		{"count", `{}`, "2\n"},
	} {
		code, out, errOut := vox(t, "run", "r.vox", c.fn, "--args", c.args)
		if code != 0 || out != c.out {
			t.Errorf("%s %s: exit %d stdout %q, want %q\n%s", c.fn, c.args, code, out, c.out, errOut)
		}
	}
	code, out, errOut := vox(t, "run", "r.vox", "show")
	if code == 0 || !strings.Contains(errOut, "r.vox:33:12: view elements are not supported: vox-mcp does not render text(...) { ... }") {
		t.Errorf("show: exit %d stdout %q stderr %q", code, out, errOut)
	}
}
