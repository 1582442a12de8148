package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// knownCodes are the diagnostic codes the front end may produce; anything
// else from the fuzzer is a bug (an allowlist in the manner of expr-lang's
// fuzzing).
var knownCodes = map[string]bool{
	"vox/lexer/unterminated-string":     true,
	"vox/lexer/invalid-escape":          true,
	"vox/lexer/int-overflow":            true,
	"vox/lexer/dec-exponent":            true,
	"vox/lexer/dec-overflow":            true,
	"vox/lexer/float-range":             true,
	"vox/lexer/unexpected-char":         true,
	"vox/lexer/bang-not":                true,
	"vox/parse/is-not":                  true,
	"vox/lexer/semicolon-unnecessary":   true,
	"vox/lexer/template-expression":     true,
	"vox/parse/syntax":                  true,
	"vox/parse/unclosed":                true,
	"vox/parse/too-deep":                true,
	"vox/parse/unexpected-top-level":    true,
	"vox/parse/fn-unsupported":          true,
	"vox/parse/arrow-return-type":       true,
	"vox/parse/generic-brackets":        true,
	"vox/parse/unknown-effect":          true,
	"vox/parse/duplicate-field":         true,
	"vox/parse/script-main":             true,
	"vox/with/unknown-option":           true,
	"vox/with/ignored":                  true,
	"vox/decorator/mcp-tool-deprecated": true,
	"vox/decorator/ignored":             true,
	"vox/decorator/endpoint":            true,
	"vox/decl/conflict":                 true,
	"vox/import/unresolved":             true,
}

// addSeeds adds the .vox files of the language test corpora.
func addSeeds(f *testing.F) {
	for _, pattern := range []string{"../testdata/corpus/*.vox", "../testdata/check/*.vox", "../testdata/run/*.vox"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, chunk := range strings.Split(string(data), "\n---\n") {
				f.Add([]byte(chunk))
			}
		}
	}
	f.Add([]byte("@tool \"x\"\nfn x(a: int = 1) to int { a }\n"))
	f.Add([]byte("component C() { view: <p>It's {x}</p> }\n"))
}

// FuzzLexer scans arbitrary input to the end: it must terminate without a
// panic, with positions inside the input and only known codes.
func FuzzLexer(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		var s scanner
		lines := int32(strings.Count(string(src), "\n") + 1)
		s.init(src, string(src), func(pos Pos, code, msg string, warn bool) {
			if !knownCodes[code] {
				t.Fatalf("unknown code %s: %s", code, msg)
			}
			if pos.Line < 1 || pos.Line > lines || pos.Col < 1 {
				t.Fatalf("position %v outside the input (%d lines)", pos, lines)
			}
		})
		for n := 0; ; n++ {
			s.next()
			if s.tok == EOF {
				break
			}
			if n > len(src)+1 {
				t.Fatalf("scanner does not advance: %d tokens from %d bytes", n, len(src))
			}
		}
	})
}

// FuzzParse parses arbitrary input: it must not panic, and every
// diagnostic must have a known code, a position inside the input and a
// lowercase message without a trailing period.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := strings.Count(string(src), "\n") + 1
		_, diags := Parse("fuzz.vox", src)
		for _, d := range diags {
			if !knownCodes[d.Code] {
				t.Errorf("unknown code: %s", d)
			}
			if d.Line < 1 || d.Line > lines || d.Col < 1 {
				t.Errorf("position outside the input (%d lines): %s", lines, d)
			}
			if d.Message == "" || strings.HasSuffix(d.Message, ".") {
				t.Errorf("bad message: %s", d)
			}
		}
	})
}
