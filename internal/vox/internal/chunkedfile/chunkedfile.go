// Package chunkedfile reads the data-driven test files of the Vox language
// tests, in the manner of go.starlark.net's internal/chunkedfile.
//
// A file holds chunks separated by lines that are exactly "---". Each chunk
// is compiled on its own; its source keeps the file's line numbers (it is
// preceded by blank lines), so diagnostics point into the test file.
// Expected diagnostics are written on the line where they occur:
//
//	let s = "a\q"   ### vox/lexer/invalid-escape "invalid escape \\q"
//	x = 1           ### col=5 vox/parse/syntax
//	assert(false)   ### runtime "assertion failed"
//
// A marker is "###", an optional col=N, a code (or "runtime" for a run-time
// error raised at that line) and an optional double-quoted regular
// expression that the message must match. A line may hold several markers.
package chunkedfile

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Chunk is one test case.
type Chunk struct {
	File      string
	StartLine int // line of the chunk's first line in the file
	Source    string
	Expect    []Marker
}

// Marker is one expected diagnostic or run-time error.
type Marker struct {
	Line    int
	Col     int // 0: any column
	Code    string
	Pattern *regexp.Regexp // nil: any message
}

func (m Marker) String() string {
	s := fmt.Sprintf("line %d", m.Line)
	if m.Col > 0 {
		s += fmt.Sprintf(":%d", m.Col)
	}
	s += " " + m.Code
	if m.Pattern != nil {
		s += fmt.Sprintf(" %q", m.Pattern)
	}
	return s
}

var markerRE = regexp.MustCompile(`###\s*(?:col=(\d+)\s+)?(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?`)

// Read reads a chunked file.
func Read(filename string) ([]Chunk, error) {
	data, err := os.ReadFile(filename)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var chunks []Chunk
	cur := Chunk{File: filename, StartLine: 1}
	var body strings.Builder
	flush := func() {
		cur.Source = strings.Repeat("\n", cur.StartLine-1) + body.String()
		chunks = append(chunks, cur)
		body.Reset()
	}
	for i, line := range lines {
		n := i + 1
		if strings.TrimRight(line, "\r\n") == "---" {
			flush()
			cur = Chunk{File: filename, StartLine: n + 1}
			continue
		}
		body.WriteString(line)
		idx := strings.Index(line, "###")
		if idx < 0 {
			continue
		}
		for _, m := range markerRE.FindAllStringSubmatch(line[idx:], -1) {
			mk := Marker{Line: n, Code: m[2]}
			if m[1] != "" {
				mk.Col, _ = strconv.Atoi(m[1])
			}
			if m[3] != "" {
				// The pattern is a regular expression as written, with \"
				// for a quote.
				re, err := regexp.Compile(strings.ReplaceAll(m[3], `\"`, `"`))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad marker pattern: %v", filename, n, err)
				}
				mk.Pattern = re
			}
			cur.Expect = append(cur.Expect, mk)
		}
	}
	flush()
	return chunks, nil
}

// Match pairs reported problems with the markers: each report (line, col,
// code, message) must match one marker of its line, and each marker must
// be matched. It returns one text per mismatch.
func (c *Chunk) Match(reports []Report) []string {
	var problems []string
	used := make([]bool, len(c.Expect))
outer:
	for _, r := range reports {
		for i, m := range c.Expect {
			if used[i] || m.Line != r.Line || m.Code != r.Code || m.Col != 0 && m.Col != r.Col {
				continue
			}
			if m.Pattern != nil && !m.Pattern.MatchString(r.Message) {
				continue
			}
			used[i] = true
			continue outer
		}
		problems = append(problems, fmt.Sprintf("%s:%d:%d: unexpected %s: %s", c.File, r.Line, r.Col, r.Code, r.Message))
	}
	for i, m := range c.Expect {
		if !used[i] {
			problems = append(problems, fmt.Sprintf("%s:%d: expected %s, not reported", c.File, m.Line, m))
		}
	}
	return problems
}

// Report is a problem found by the code under test.
type Report struct {
	Line, Col int
	Code      string
	Message   string
}
