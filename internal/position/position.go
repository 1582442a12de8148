// Package position is the one order of everything vox-mcp reports with a
// place in a file — contract errors (internal/contractdoc) and gate
// findings (gates): path, then line, then column, then message
// (docs/tool-results.md §4). Vox diagnostics (internal/vox/diag) order by
// the same place first.
package position

import "cmp"

// Key is what findings are ordered by.
type Key struct {
	Path      string
	Line, Col int
	Message   string
}

// Compare orders a before b (-1), after it (1), or the same (0): by path,
// line, column, then message. Line and column 0 mean unknown and come
// first within their path or line.
func Compare(a, b Key) int {
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Col, b.Col); c != 0 {
		return c
	}
	return cmp.Compare(a.Message, b.Message)
}
