package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/vox-lang/vox-mcp/runtime/schemajson"
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

// comment adds wrapped // lines before the next statement of g.
func comment(g *jen.Group, text string) {
	for _, l := range wrapComment(text) {
		g.Comment(l)
	}
}

// fileComment adds wrapped // lines at file level.
func fileComment(f *jen.File, text string) {
	for _, l := range wrapComment(text) {
		f.Comment(l)
	}
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

// stringLit is a Go literal of s: a raw string when that is safe and
// readable, an interpreted one (every unsafe rune escaped) otherwise.
func stringLit(s string) jen.Code {
	if literalSafe(s) {
		return jen.Id("`" + s + "`")
	}
	return jen.Lit(s)
}

// schemaLineWidth is the longest schema value kept on one line.
const schemaLineWidth = 72

// rawJSON writes a canonical schema literal as json.RawMessage of a
// concatenation of compact fragments, one object member per line, so a
// reviewer reads a schema line by line while the bytes clients see stay
// the canonical compact form (docs/contracts.md §2). A literal that does
// not parse is written whole.
func rawJSON(b []byte) jen.Code {
	frags := schemaFragments(b)
	parts := make([]jen.Code, 0, 2*len(frags))
	for i, f := range frags {
		if i > 0 {
			parts = append(parts, jen.Op("+").Line())
		}
		parts = append(parts, stringLit(f))
	}
	return jen.Qual("encoding/json", "RawMessage").Call(jen.Add(parts...))
}

// schemaFragments splits a canonical JSON literal into lines: an object
// longer than schemaLineWidth gets one member per line (recursively); the
// fragments concatenate to exactly b.
func schemaFragments(b []byte) []string {
	v, err := schemajson.Parse(b)
	if err != nil {
		return []string{string(b)}
	}
	w := &fragmentWriter{}
	w.value(v)
	w.flush()
	if !bytes.Equal([]byte(strings.Join(w.lines, "")), b) {
		return []string{string(b)}
	}
	return w.lines
}

type fragmentWriter struct {
	lines []string
	cur   strings.Builder
}

func (w *fragmentWriter) flush() {
	if w.cur.Len() > 0 {
		w.lines = append(w.lines, w.cur.String())
		w.cur.Reset()
	}
}

func (w *fragmentWriter) value(v schemajson.Value) {
	compact := schemajson.Compact(v)
	if v.Kind != schemajson.Object || len(compact) <= schemaLineWidth {
		w.cur.Write(compact)
		return
	}
	w.cur.WriteByte('{')
	for i, m := range v.Members {
		if i > 0 {
			w.cur.WriteByte(',')
			w.flush()
		}
		w.cur.Write(schemajson.AppendString(nil, m.Key))
		w.cur.WriteByte(':')
		w.value(m.Value)
	}
	w.cur.WriteByte('}')
}
