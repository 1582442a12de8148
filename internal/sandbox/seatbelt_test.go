package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/seatbelt")

// seatbeltCases are the golden profiles: testdata/seatbelt/NAME.sb is the
// profile of the skill and temporary folders given.
var seatbeltCases = []struct{ name, skill, temp string }{
	{"plain", "/Users/ada/project/.vox/skills/csv-insights", "/private/var/folders/x1/abc/T/vox-skill-run-123"},
	// A folder name holding quotes, a backslash, parentheses, a semicolon
	// and SBPL that would allow the network if it were not inside the
	// string: everything stays one string.
	{"hostile", `/Users/ada/skills/a"b\c) (allow network*) ; (allow file-write* (subpath "/Users`, "/private/tmp/vox-skill-run-9"},
	{"unicode", "/Users/zoë/Skills/数据 tools", "/private/var/folders/T/vox-skill-run-1"},
}

func TestSeatbeltProfileGolden(t *testing.T) {
	for _, c := range seatbeltCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := seatbeltProfile(c.skill, c.temp)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "seatbelt", c.name+".sb")
			if *updateGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSeatbeltProfileGolden -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s (rerun with -update after checking the change):\n%s", path, got)
			}
		})
	}
}

// TestSeatbeltProfileCannotBeInjected reads every profile back as SBPL
// and checks its rules: the same forms whatever the folder is called,
// the folder's path read back exactly where it belongs, deny by default,
// and no rule that allows the network, a mach service or a write outside
// the temporary folder and the devices.
func TestSeatbeltProfileCannotBeInjected(t *testing.T) {
	// The metadata rules of the folders above the two folders vary in
	// number with the paths; each must name such a folder.
	const ancestorRule = "(allow file-read-metadata (literal S))"
	shape := func(forms []sexp) []string {
		var out []string
		for _, f := range forms {
			if f.shape() != ancestorRule {
				out = append(out, f.shape())
			}
		}
		return out
	}
	plain, err := seatbeltProfile(seatbeltCases[0].skill, seatbeltCases[0].temp)
	if err != nil {
		t.Fatal(err)
	}
	want := shape(readSBPL(t, plain))
	for _, c := range seatbeltCases {
		prof, err := seatbeltProfile(c.skill, c.temp)
		if err != nil {
			t.Fatal(err)
		}
		forms := readSBPL(t, prof)
		if got := shape(forms); !slices.Equal(got, want) {
			t.Errorf("%s: the rules differ from a plain path's:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if forms[1].String() != "(deny default)" {
			t.Errorf("%s: second form is %s, want (deny default)", c.name, forms[1])
		}
		var skillRead, tempWrite bool
		for _, f := range forms {
			if f.shape() == ancestorRule {
				p := *f.list[2].list[1].str
				if p != "/" && !strings.HasPrefix(c.skill, p+"/") && !strings.HasPrefix(c.temp, p+"/") &&
					!slices.Contains(seatbeltSymlinks, p) && !strings.HasPrefix(p, "/dev/std") {
					t.Errorf("%s: metadata of %q, which is above neither folder", c.name, p)
				}
			}
			op := f.list[0].atom
			if op != "allow" {
				continue
			}
			s := f.String()
			for _, bad := range []string{"network", "mach", "iokit", "ipc", "default", "file-write-create", "process-exec*"} {
				if strings.Contains(f.list[1].atom, bad) {
					t.Errorf("%s: a rule allows %s: %s", c.name, bad, s)
				}
			}
			if f.list[1].atom == "file-read*" && len(f.list) == 3 && f.list[2].String() == sexpList("subpath", c.skill) {
				skillRead = true
			}
			for _, a := range f.list[1:] {
				if a.atom == "file-write*" {
					if f.list[len(f.list)-1].String() != sexpList("subpath", c.temp) {
						t.Errorf("%s: file-write* outside the temporary folder: %s", c.name, s)
					}
					tempWrite = true
				}
			}
		}
		if !skillRead || !tempWrite {
			t.Errorf("%s: skill folder readable %v, temporary folder writable %v; want both", c.name, skillRead, tempWrite)
		}
	}
}

func TestSeatbeltProfileRefuses(t *testing.T) {
	for _, c := range []struct{ skill, temp, want string }{
		{"/Users/ada/a\nb", "/tmp/x", `holds the control character U+000A at byte 12`},
		{"/Users/ada/a\x00b", "/tmp/x", `control character U+0000`},
		{"/Users/ada/a\rb", "/tmp/x", `control character U+000D`},
		{"/Users/ada/\xffb", "/tmp/x", `is not valid UTF-8`},
		{"relative/skill", "/tmp/x", `the skill folder "relative/skill" is not a clean absolute path`},
		{"/Users/ada/../x", "/tmp/x", `not a clean absolute path`},
		{"/Users/ada/x", "/", `the temporary folder "/" is not a clean absolute path below /`},
		{"/Users/ada/x", "/tmp/\n", `temporary folder: path "/tmp/\n" holds the control character`},
	} {
		_, err := seatbeltProfile(c.skill, c.temp)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("seatbeltProfile(%q, %q) = %v, want an error containing %q", c.skill, c.temp, err, c.want)
		}
	}
}

// sexp is an SBPL datum as the profile reader sees it: an atom, a string
// or a list.
type sexp struct {
	atom  string
	str   *string
	list  []sexp
	isLst bool
}

func (e sexp) String() string {
	switch {
	case e.isLst:
		parts := make([]string, len(e.list))
		for i, x := range e.list {
			parts[i] = x.String()
		}
		return "(" + strings.Join(parts, " ") + ")"
	case e.str != nil:
		return "STR[" + *e.str + "]"
	}
	return e.atom
}

// shape is the form with every string replaced by S.
func (e sexp) shape() string {
	switch {
	case e.isLst:
		parts := make([]string, len(e.list))
		for i, x := range e.list {
			parts[i] = x.shape()
		}
		return "(" + strings.Join(parts, " ") + ")"
	case e.str != nil:
		return "S"
	}
	return e.atom
}

func sexpList(op, s string) string { return "(" + op + " STR[" + s + "])" }

// readSBPL reads a profile as the Scheme reader of sandbox-exec does:
// comments from ; to the end of the line, strings in double quotes with
// backslash escapes, lists in parentheses.
func readSBPL(t *testing.T, src string) []sexp {
	t.Helper()
	i := 0
	var read func() (sexp, bool)
	skip := func() {
		for i < len(src) {
			switch {
			case src[i] == ';':
				for i < len(src) && src[i] != '\n' {
					i++
				}
			case src[i] == ' ' || src[i] == '\n' || src[i] == '\t':
				i++
			default:
				return
			}
		}
	}
	read = func() (sexp, bool) {
		skip()
		if i >= len(src) {
			return sexp{}, false
		}
		switch src[i] {
		case '(':
			i++
			l := sexp{isLst: true}
			for {
				skip()
				if i >= len(src) {
					t.Fatalf("unterminated list in:\n%s", src)
				}
				if src[i] == ')' {
					i++
					return l, true
				}
				x, _ := read()
				l.list = append(l.list, x)
			}
		case ')':
			t.Fatalf("unbalanced ) at byte %d of:\n%s", i, src)
		case '"':
			i++
			var b strings.Builder
			for {
				if i >= len(src) {
					t.Fatalf("unterminated string in:\n%s", src)
				}
				c := src[i]
				i++
				if c == '"' {
					s := b.String()
					return sexp{str: &s}, true
				}
				if c == '\\' {
					c = src[i]
					i++
				}
				b.WriteByte(c)
			}
		}
		start := i
		for i < len(src) && !strings.ContainsRune(" \n\t()\";", rune(src[i])) {
			i++
		}
		return sexp{atom: src[start:i]}, true
	}
	var forms []sexp
	for {
		f, ok := read()
		if !ok {
			return forms
		}
		if !f.isLst || len(f.list) == 0 {
			t.Fatalf("top-level datum %s is not a form", f)
		}
		forms = append(forms, f)
	}
}
