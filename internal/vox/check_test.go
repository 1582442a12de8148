package vox

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/internal/chunkedfile"
)

// TestCheck compiles every chunk of testdata/check/*.vox and compares the
// diagnostics with the chunk's ### markers.
func TestCheck(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.vox")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		chunks, err := chunkedfile.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			m := Compile(filepath.ToSlash(file), []byte(c.Source))
			var reports []chunkedfile.Report
			for _, d := range m.Diagnostics() {
				reports = append(reports, chunkedfile.Report{Line: d.Line, Col: d.Col, Code: d.Code, Message: d.Message})
			}
			for _, p := range c.Match(reports) {
				t.Error(p)
			}
		}
	}
}

// TestViewElementsFailWhenEvaluated: a tool whose function returns a view
// element, with children or self-closing (spec 22 §4.3), is served — the
// checker only warns — and calling it fails at the element with the
// reason, not with "undefined".
func TestViewElementsFailWhenEvaluated(t *testing.T) {
	src := `@tool "Loading"
fn loading() {
    return text() { "Loading" }
}

@tool "Spinner"
fn spinner() {
    return Spinner()
}

@tool "Badge"
fn badge(label: str) {
    return Badge(text = label, attr_class = "b")
}
`
	m := Compile("views.vox", []byte(src))
	for _, tool := range []string{"loading", "spinner", "badge"} {
		if d, broken := m.Broken(tool); broken {
			t.Fatalf("%s is not served: %s", tool, d.Message)
		}
	}
	for tool, line := range map[string]int{"loading": 3, "spinner": 8, "badge": 13} {
		args := []byte(`{}`)
		if tool == "badge" {
			args = []byte(`{"label": "x"}`)
		}
		_, err := m.Call(context.Background(), tool, args, nil)
		var ve *Error
		if !errors.As(err, &ve) || ve.Line != line || !strings.Contains(err.Error(), "view elements are not supported") {
			t.Errorf("%s: %v (%#v), want the view error at line %d", tool, err, ve, line)
		}
	}
}
