package contractdoc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// laughs is a "billion laughs" document: levels anchors, each a list of
// nine aliases of the one before, under the key bomb of a mapping that
// starts with prefix.
func laughs(prefix string, levels int) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString("bomb:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := 1; i < levels; i++ {
		name := fmt.Sprintf("l%d", i)
		fmt.Fprintf(&b, "  %s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = name
	}
	return b.String()
}

func TestReadYAMLRefusesAliasBombs(t *testing.T) {
	long := strings.Repeat("x", 64<<10)
	tests := []struct {
		name, src, want string
	}{
		// About 9^9 values: the aliases of lines 3 to 6 repeat 73818
		// values, the first *l4 of line 7 66430 more.
		{"billion laughs", laughs("", 9),
			"7:12: alias *l4 repeats 66430 values, and aliases may repeat at most 100000 values in one file: write the repeated part out or use fewer aliases"},
		// The 65th alias of 64 KiB crosses 4 MiB.
		{"long string repeated", "s: &s " + long + "\nlist: [" + strings.TrimSuffix(strings.Repeat("*s, ", 100), ", ") + "]\n",
			"2:264: alias *s repeats 65536 bytes of text, and aliases may repeat at most 4 MiB of text in one file: write the repeated part out or use fewer aliases"},
		{"cycle", "a: &a [1, *a]\n", "1:11: alias *a is used inside the value it names: a value cannot contain itself"},
		{"deep through aliases", deepAnchors(), "9:39: alias *d7 nests the document deeper than 256 levels: at most 256 are allowed"},
		{"deep as written", strings.Repeat("[", 300) + strings.Repeat("]", 300), "1:257: nested deeper than 256 levels: at most 256 are allowed"},
		{"too large", "a: " + strings.Repeat("x", 9<<20), "1:1: the file is 9437187 bytes: at most 8 MiB are allowed; split it or shorten it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, p := ReadYAML([]byte(tt.src), ContractLimits)
			runtime.ReadMemStats(&after)
			if p == nil {
				t.Fatal("no problem reported")
			}
			if !p.OverLimit {
				t.Errorf("OverLimit not set: %v", p)
			}
			got := fmt.Sprintf("%d:%d: %s", p.Pos.Line, p.Pos.Col, p.Message)
			if !strings.HasSuffix(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			// The source itself is read and parsed; nothing is expanded.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+20*uint64(len(tt.src)) {
				t.Errorf("reading allocated %d MiB", alloc>>20)
			}
		})
	}
}

// deepAnchors nests anchors ten levels deep, each 30 levels of lists
// around the alias of the previous one: d7 is 241 levels deep, too deep
// inside the 31 levels around it in d8.
func deepAnchors() string {
	var b strings.Builder
	b.WriteString("d0: &d0 " + strings.Repeat("[", 30) + "x" + strings.Repeat("]", 30) + "\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "d%d: &d%d %s*d%d%s\n", i, i, strings.Repeat("[", 30), i-1, strings.Repeat("]", 30))
	}
	return b.String()
}

func TestReadYAMLAllowsModestAliases(t *testing.T) {
	// Shared values, repeated within the limits, read as expanded.
	src := "defaults: &d {timeout: 5, retries: 2}\na: *d\nb: *d\n" + laughs("", 5)
	d, errs := ParseYAML([]byte(src), "a mapping")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	b, _ := d.Root.Get("b")
	if r, _ := b.Get("retries"); r.Text != "2" {
		t.Errorf("b.retries = %q", r.Text)
	}
	if got := d.Pos("/b/retries"); got != (Pos{1, 36}) {
		t.Errorf("Pos through an alias = %v, want the anchored value's position", got)
	}
}

func TestReadYAMLSyntaxErrorLines(t *testing.T) {
	tests := []struct{ src, want string }{
		// The parser reports its context's 0-based line: the list opens
		// on line 2.
		{"a: 1\nb: [x\n", "2:0: did not find expected ',' or ']'"},
		// The scanner reports 1-based lines.
		{"a: 1\nb: \"x\n", "2:0: found unexpected end of stream"},
		// When the context is on the first line the parser reports
		// where it gave up: the end of the file, on line 2.
		{"a: [x\n", "2:0: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		_, p := ReadYAML([]byte(tt.src), ContractLimits)
		if p == nil {
			t.Fatalf("%q: no error", tt.src)
		}
		if p.OverLimit {
			t.Errorf("%q: a syntax error is not over a limit", tt.src)
		}
		if got := fmt.Sprintf("%d:%d: %s", p.Pos.Line, p.Pos.Col, p.Message); got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseYAMLErrors(t *testing.T) {
	if _, errs := ParseYAML([]byte("a: 1\nb: [x\n"), "a mapping"); len(errs) != 1 || errs[0] != (PosError{Pos{2, 1}, "invalid YAML: did not find expected ',' or ']'"}) {
		t.Errorf("syntax: errs = %v", errs)
	}

	_, errs := ParseYAML([]byte(laughs("scan_globs: [a]\n", 9)), "a mapping")
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "aliases may repeat at most 100000 values") {
		t.Errorf("errs = %v", errs)
	}
}

// FuzzReadYAML: whatever the input, ReadYAML returns without overflowing
// the stack, and a document it accepts converts within its limits.
func FuzzReadYAML(f *testing.F) {
	for _, seed := range []string{
		"a: 1\n", laughs("", 6), "a: &a [1, *a]\n", "a: &a {b: *a}\n", strings.Repeat("- ", 300) + "x\n",
		"a: &a x\nb: [*a, *a, *a]\nc: {<<: *a}\n", "? [a, b]\n: c\n", "&a [*a]", "a: !!binary aGk=\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		root, p := ReadYAML(src, ContractLimits)
		if p != nil || root == nil {
			return
		}
		d, _ := ParseYAML(src, "x")
		if d == nil {
			t.Fatal("ReadYAML accepted what ParseYAML refused")
		}
		if n := countValues(d.Root); n > len(src)+ContractLimits.MaxAliasValues+1 {
			t.Fatalf("%d values from %d bytes", n, len(src))
		}
	})
}

func countValues(v schemajson.Value) int {
	n := 1
	for _, it := range v.Items {
		n += countValues(it)
	}
	for _, m := range v.Members {
		n += countValues(m.Value)
	}
	return n
}
