package lsp

import (
	"slices"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/check"
)

// TestDecoratorsMatchTheChecker: completion offers exactly the decorators
// the checker accepts without vox/decorator/unknown, each with its use.
func TestDecoratorsMatchTheChecker(t *testing.T) {
	var names []string
	for _, d := range decorators {
		if d.detail == "" || d.doc == "" {
			t.Errorf("%s has no use or documentation", d.name)
		}
		names = append(names, d.name)
	}
	want := check.Decorators()
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("completion offers %v, the checker knows %v", names, want)
	}
}
