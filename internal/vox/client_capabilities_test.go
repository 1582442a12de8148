package vox_test

import (
	"slices"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
)

// TestClientCapabilities: a tool needs the capabilities of the builtins
// that ask which it reaches, through the functions it uses too; one that
// consults client_has adapts, and needs none.
func TestClientCapabilities(t *testing.T) {
	src := `
fn ask_name() to str {
    elicit("Name?", {type: "object", properties: {name: {type: "string"}}})["action"]
}

@tool "asks through a helper"
fn helper() to str { ask_name() }

@tool "samples"
fn model() to str { sample("hi", 10)["text"] }

@tool "adapts"
fn adapts() to str {
    if client_has("sampling") { return sample("hi", 10)["text"] }
    ask_name()
}

@tool "asks nothing"
fn plain() to str { "x" }
`
	m := vox.Compile("caps.vox", []byte(src))
	if m.HasErrors() {
		t.Fatal(m.Diagnostics())
	}
	for fn, want := range map[string][]string{
		"helper": {"elicitation"},
		"model":  {"sampling"},
		"adapts": nil,
		"plain":  nil,
	} {
		if got := m.ClientCapabilities(fn); !slices.Equal(got, want) {
			t.Errorf("ClientCapabilities(%s) = %v, want %v", fn, got, want)
		}
	}
}
