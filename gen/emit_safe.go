package gen

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Every string the generator writes into Go source goes through this file
// (docs/contracts.md §6): text from a catalog, a scan config or a .vox
// file is data an attacker may control, and must come out as a valid,
// readable literal or comment whatever it holds — a byte order mark, a
// bidirectional override, a backquote, "*/", a newline.

// commentWidth is where generated comments wrap.
const commentWidth = 76

// commentSafe makes text safe inside a // comment: every rune that is not
// printable (controls, format characters such as U+FEFF and the
// bidirectional overrides, invalid UTF-8) is written as its Go escape, so
// the comment shows what the text holds and cannot change how the file
// reads.
func commentSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || r == ' ' || strconv.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// wrapComment returns text as comment lines of at most commentWidth
// columns (a longer word stays whole), safe for // comments; paragraphs
// (blank lines) are kept.
func wrapComment(text string) []string {
	var lines []string
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			lines = append(lines, "")
		}
		line := ""
		for _, w := range strings.Fields(commentSafe(para)) {
			switch {
			case line == "":
				line = w
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > commentWidth:
				lines = append(lines, line)
				line = w
			default:
				line += " " + w
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// literalSafe reports whether s may be written as a raw string literal:
// printable runes only (no byte order mark, no bidirectional control, no
// carriage return, which gofmt and the compiler treat specially) and no
// backquote.
func literalSafe(s string) bool {
	for _, r := range s {
		if r == '`' || r == utf8.RuneError || r != ' ' && !strconv.IsPrint(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// schemaLineWidth is the longest schema value kept on one line. A schema
// literal is written as json.RawMessage of a concatenation of compact
// fragments, one object member per line, so a reviewer reads a schema line
// by line while the bytes clients see stay the canonical compact form
// (docs/contracts.md §2); fragmentLit writes each fragment.
const schemaLineWidth = 72

// schemaFragments splits a canonical JSON literal into lines: an object
// longer than schemaLineWidth gets one member per line (recursively); the
// fragments concatenate to exactly b. The literal is scanned, not parsed:
// a fragment ends after each comma between the members of a long object,
// so one pass finds every cut. Bytes that do not scan as JSON are written
// whole.
func schemaFragments(b []byte) []string {
	var cuts []int
	end, ok := splitJSON(b, 0, 0, &cuts)
	if !ok || end != len(b) {
		return []string{string(b)}
	}
	lines := make([]string, 0, len(cuts)+1)
	prev := 0
	for _, c := range cuts {
		lines = append(lines, string(b[prev:c]))
		prev = c
	}
	return append(lines, string(b[prev:]))
}

// maxSplitDepth bounds the nesting splitJSON descends into (a schema that
// deep is written whole rather than risk the stack).
const maxSplitDepth = 1000

// splitJSON scans the JSON value at b[i:] and returns where it ends. For
// an object longer than schemaLineWidth it appends to cuts the offset
// after each comma between its members, and the cuts inside its members;
// the cuts inside a short object or an array are dropped.
func splitJSON(b []byte, i, depth int, cuts *[]int) (int, bool) {
	if i >= len(b) || depth > maxSplitDepth {
		return 0, false
	}
	mark := len(*cuts)
	switch b[i] {
	case '"':
		return skipJSONString(b, i)
	case '{', '[':
		closer := byte('}')
		if b[i] == '[' {
			closer = ']'
		}
		j := i + 1
		if j < len(b) && b[j] == closer {
			return j + 1, true
		}
		for {
			if closer == '}' {
				k, ok := skipJSONString(b, j)
				if !ok || k >= len(b) || b[k] != ':' {
					return 0, false
				}
				j = k + 1
			}
			e, ok := splitJSON(b, j, depth+1, cuts)
			if !ok || e >= len(b) {
				return 0, false
			}
			switch b[e] {
			case ',':
				if closer == '}' {
					*cuts = append(*cuts, e+1)
				}
				j = e + 1
			case closer:
				if closer == ']' || e+1-i <= schemaLineWidth {
					*cuts = (*cuts)[:mark]
				}
				return e + 1, true
			default:
				return 0, false
			}
		}
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		if b[j] == '"' || b[j] == '{' || b[j] == '[' || b[j] == ':' {
			return 0, false
		}
		j++
	}
	return j, j > i
}

// skipJSONString returns the end of the JSON string starting at b[i].
func skipJSONString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}
