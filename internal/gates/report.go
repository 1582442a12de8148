// Package gates implements the CI gates of vox-mcp (docs/ci-gates.md):
// operations-verify (static wiring of the catalog), mcp-vox-surface-parity
// (the workspace surface, its snapshot and fixtures) and
// agentskills-compliance (skill folders against the Agent Skills format).
//
// Every gate produces a Report; the vox CLI prints it as text (problem lines
// on stderr, one summary line on stdout) or as the JSON report of
// docs/tool-results.md §4. Every gate is listed in cmd/vox's gateTable.
package gates

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/vox-lang/vox-mcp/internal/position"
)

// Problem is one finding of a gate, with a position when there is one.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// Position is "path:line:col", "path:line", "path" or "" depending on what
// is known.
func (p Problem) Position() string {
	switch {
	case p.Path == "":
		return ""
	case p.Line == 0:
		return p.Path
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Col)
}

// Report is the outcome of one gate.
type Report struct {
	Gate     string    `json:"gate"`
	OK       bool      `json:"ok"`
	Problems []Problem `json:"problems"`
	Warnings []Problem `json:"warnings"`
	// Summary is the gate's machine-readable summary object.
	Summary any `json:"summary"`

	// Detail is the text inside "<gate> ok (...)".
	Detail string `json:"-"`
	// Skipped, when set, says why the gate did not run; the gate passes.
	Skipped string `json:"-"`
	// Diff is a unified diff of stale generated files, printed after the
	// problems in text mode.
	Diff []byte `json:"-"`
}

// NewReport returns an empty report for gate.
func NewReport(gate string) *Report {
	return &Report{Gate: gate, Problems: []Problem{}, Warnings: []Problem{}, Summary: map[string]any{}}
}

// Skip marks the report as skipped for the given reason.
func (r *Report) Skip(why string) *Report {
	r.Skipped = why
	r.Summary = map[string]any{"skipped": why}
	return r
}

// Problemf records a problem at p (Message is formatted from format and args).
func (r *Report) Problemf(p Problem, format string, args ...any) {
	p.Message = fmt.Sprintf(format, args...)
	r.Problems = append(r.Problems, p)
}

// Warnf records a warning at p.
func (r *Report) Warnf(p Problem, format string, args ...any) {
	p.Message = fmt.Sprintf(format, args...)
	r.Warnings = append(r.Warnings, p)
}

// Finish sorts the findings by position and sets OK.
func (r *Report) Finish() *Report {
	sortProblems(r.Problems)
	sortProblems(r.Warnings)
	r.OK = len(r.Problems) == 0
	return r
}

// sortProblems orders findings by position.Compare, as contract errors
// and diagnostics are ordered.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return position.Compare(position.Key{Path: a.Path, Line: a.Line, Col: a.Col, Message: a.Message},
			position.Key{Path: b.Path, Line: b.Line, Col: b.Col, Message: b.Message})
	})
}

// SummaryLine is the one line printed on stdout: "<gate> ok (<detail>)",
// "<gate>: N problem(s)" or "<gate> skipped (<why>)".
func (r *Report) SummaryLine() string {
	switch {
	case r.Skipped != "":
		return fmt.Sprintf("%s skipped (%s)", r.Gate, r.Skipped)
	case len(r.Problems) > 0:
		return fmt.Sprintf("%s: %d problem(s)", r.Gate, len(r.Problems))
	case r.Detail != "":
		return fmt.Sprintf("%s ok (%s)", r.Gate, r.Detail)
	}
	return r.Gate + " ok"
}

// WriteText prints problems and warnings to stderr, one per line as
// "<gate>: <position>: <problem>", and the summary line to stdout.
func (r *Report) WriteText(stdout, stderr io.Writer) {
	for _, p := range r.Problems {
		fmt.Fprintln(stderr, r.line(p, ""))
	}
	for _, p := range r.Warnings {
		fmt.Fprintln(stderr, r.line(p, "warning: "))
	}
	if len(r.Diff) > 0 {
		stderr.Write(r.Diff)
	}
	fmt.Fprintln(stdout, r.SummaryLine())
}

func (r *Report) line(p Problem, prefix string) string {
	if pos := p.Position(); pos != "" {
		return fmt.Sprintf("%s: %s: %s%s", r.Gate, pos, prefix, p.Message)
	}
	return fmt.Sprintf("%s: %s%s", r.Gate, prefix, p.Message)
}

// WriteJSON prints the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	return writeJSON(w, r)
}

// All is the result of running every gate ("vox ci all").
type All struct {
	OK      bool      `json:"ok"`
	Reports []*Report `json:"reports"`
}

// WriteJSON prints the combined report as one JSON object.
func (a *All) WriteJSON(w io.Writer) error { return writeJSON(w, a) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
