package gen

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in an input file, with its position.
type Error struct {
	Path string // repo-relative, slash-separated
	Line int
	Col  int
	Msg  string
}

func (e Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in the inputs, sorted by position. The
// generator reports them all in one run and writes nothing.
type Errors []Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sort() {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Msg < b.Msg
	})
}

// dedupe removes identical problems (same position and text), which JSON
// Schema validation produces when several branches fail alike.
func (es Errors) dedupe() Errors {
	es.sort()
	out := es[:0]
	for i, e := range es {
		if i > 0 && e == es[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}
