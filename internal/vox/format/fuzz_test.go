package format

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFormat formats arbitrary input that parses: Source itself refuses
// a layout whose tree differs, so on parseable input it must succeed,
// and its output must be a fixed point.
func FuzzFormat(f *testing.F) {
	files, _ := filepath.Glob("../testdata/corpus/*.vox")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	if data, err := os.ReadFile("testdata/layout.txtar"); err == nil {
		for _, sec := range txtarSections(data) {
			f.Add(sec)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, _, _, err := parse("fuzz.vox", src); err != nil {
			return
		}
		out, err := Source("fuzz.vox", src)
		if err != nil && strings.Contains(err.Error(), "is no token of Vox") {
			return // refused with its position: a character the lexer skips
		}
		if err != nil {
			t.Fatalf("parseable input not formatted: %v", err)
		}
		again, err := Source("fuzz.vox", out)
		if err != nil {
			t.Fatalf("formatted output not formatted again: %v", err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%s", firstDiff(out, again))
		}
	})
}
