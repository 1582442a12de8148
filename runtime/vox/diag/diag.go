// Package diag holds the diagnostics of the Vox front end: a position, a
// severity, a stable code of the form vox/<area>/<name> and a message, plus
// an optional machine-readable fix. Lists of diagnostics sort by position
// and drop duplicates, so a file reports each problem once and in order.
package diag

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
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
// EndLine:EndCol (exclusive) become NewText. It is not part of the JSON form.
type Fix struct {
	Line, Col       int
	EndLine, EndCol int
	NewText         string
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

// jsonForm is the JSON form of a diagnostic in tool results (vox_check):
// exactly these keys.
type jsonForm struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// MarshalJSON writes {"path","line","col","severity","code","message"}.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonForm{d.Path, d.Line, d.Col, d.Severity.String(), d.Code, d.Message})
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
