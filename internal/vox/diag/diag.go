// Package diag holds the diagnostics of the Vox front end: a position, a
// severity, a stable code of the form vox/<area>/<name> and a message, plus
// an optional machine-readable fix. Lists of diagnostics sort by position
// and drop duplicates, so a file reports each problem once and in order.
package diag

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Severity says whether a diagnostic fails a load (Error) or not (Warning).
type Severity uint8

// The severities.
const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Fix is a machine-readable replacement: the bytes from Line:Col up to
// EndLine:EndCol (exclusive) become NewText. Its JSON form is an element
// of a diagnostic's "fixes".
type Fix struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"end_line"`
	EndCol  int    `json:"end_col"`
	NewText string `json:"new_text"`
}

// Diagnostic is one finding in a file. Line and Col are 1-based; Col counts
// bytes within the line.
type Diagnostic struct {
	Path     string
	Line     int
	Col      int
	Severity Severity
	Code     string // vox/<area>/<name>
	Message  string // lowercase, no trailing period
	Fix      *Fix
	// Help lines say what to do ("did you mean total?"); EndCol, when
	// set, ends the span the caret marks (exclusive, on Line).
	Help   []string
	EndCol int
}

// String formats d as "path:line:col: severity: message [code]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", d.Path, d.Line, d.Col, d.Severity, d.Message, d.Code)
}

// jsonForm is the JSON form of a diagnostic in tool results (vox_check,
// vox check --format json): exactly these keys, help and fixes never null.
type jsonForm struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Severity string   `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Help     []string `json:"help"`
	Fixes    []Fix    `json:"fixes"`
}

// MarshalJSON writes {"path","line","col","severity","code","message",
// "help","fixes"}.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	help, fixes := d.Help, []Fix{}
	if help == nil {
		help = []string{}
	}
	if d.Fix != nil {
		fixes = append(fixes, *d.Fix)
	}
	return json.Marshal(jsonForm{d.Path, d.Line, d.Col, d.Severity.String(), d.Code, d.Message, help, fixes})
}

// Compare orders diagnostics by path, line, column, severity (errors
// first), code and message.
func Compare(a, b Diagnostic) int {
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Col, b.Col); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Severity, b.Severity); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	return cmp.Compare(a.Message, b.Message)
}

// List is a collection of diagnostics.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Errorf appends an error.
func (l *List) Errorf(path string, line, col int, code, format string, args ...any) {
	l.Add(Diagnostic{Path: path, Line: line, Col: col, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnf appends a warning.
func (l *List) Warnf(path string, line, col int, code, format string, args ...any) {
	l.Add(Diagnostic{Path: path, Line: line, Col: col, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Sort sorts the list and removes duplicates (same position, severity, code
// and message; the first fix wins).
func (l *List) Sort() {
	s := *l
	slices.SortStableFunc(s, Compare)
	*l = slices.CompactFunc(s, func(a, b Diagnostic) bool { return Compare(a, b) == 0 })
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of errors and warnings.
func (l List) Count() (errors, warnings int) {
	for _, d := range l {
		if d.Severity == Error {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// Render writes d as rustc does: the "path:line:col: severity: message
// [code]" line, the source line with a caret under the span (EndCol, or
// the word at Col), and a "= help:" line per help line. src is the file's
// text; without it (or past its end) only the first line and the help are
// written.
func (d Diagnostic) Render(src []byte) string {
	var b strings.Builder
	b.WriteString(d.String())
	b.WriteByte('\n')
	line, ok := sourceLine(src, d.Line)
	num := strconv.Itoa(d.Line)
	pad := strings.Repeat(" ", len(num))
	if ok && d.Col >= 1 && d.Col <= len(line)+1 {
		fmt.Fprintf(&b, "%s |\n%s | %s\n%s | ", pad, num, line, pad)
		// Keep tabs so that the caret lines up under the text.
		for _, c := range []byte(line[:d.Col-1]) {
			if c == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		width := d.EndCol - d.Col
		if width <= 0 {
			width = wordLen(line[d.Col-1:])
		}
		b.WriteString(strings.Repeat("^", max(width, 1)))
		b.WriteByte('\n')
	}
	for _, h := range d.Help {
		fmt.Fprintf(&b, "%s = help: %s\n", pad, h)
	}
	return b.String()
}

// sourceLine returns line n (1-based) of src without its line end.
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 || src == nil {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimRight(string(src), "\r"), true
}

// wordLen is the length of the name or number at the start of s (1 for
// anything else).
func wordLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] == '@' && n == 0 || s[n] == '.' && n > 0 || 'a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z' || '0' <= s[n] && s[n] <= '9') {
		n++
	}
	return max(n, 1)
}
