// Package format is vox fmt: the one canonical layout of a .vox file
// (docs/vox-language.md, Formatting). Like gofmt it has no options. It
// keeps the line breaks the author chose (collapsing blank lines to one)
// and every comment, and decides the rest: indentation by nesting, the
// spaces between the tokens of a line, no trailing blanks, one newline at
// the end. It works on the tokens the parser consumed (syntax.ParseTokens)
// and never rewrites a token's text, so strings, numbers and the opaque
// units the parser skips (markup, tolerated declarations) stay as written.
//
// Source parses, formats, parses the result again and compares the two
// trees with positions left out: a layout that would change what the file
// means is an error, never an output.
package format

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// indentUnit is one level of indentation.
const indentUnit = "    "

// Source returns src in the canonical layout. path names the file in
// errors. A file that does not parse is an error (path:line:col: message)
// and is not formatted.
func Source(path string, src []byte) ([]byte, error) {
	f, toks, script, err := parse(path, src)
	if err != nil {
		return nil, err
	}
	out, err := layout(src, f, toks)
	if err != nil {
		if msg := err.Error(); msg[0] >= '0' && msg[0] <= '9' {
			return nil, fmt.Errorf("%s:%s", path, msg) // path:line:col: message
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	g, _, _, err := parseMode(path, out, script)
	if err != nil {
		return nil, fmt.Errorf("%s: internal error: the formatted file does not parse (%v); the file is left as it is", path, err)
	}
	if d := diff(f, g); d != "" {
		return nil, fmt.Errorf("%s: internal error: formatting would change the file's meaning (%s); the file is left as it is", path, d)
	}
	return out, nil
}

// parse parses src as a module, or as a script (vox run FILE) when only
// that parses: a formatter accepts both kinds of file.
func parse(path string, src []byte) (*syntax.File, []syntax.TokenSpan, bool, error) {
	f, toks, _, err := parseMode(path, src, false)
	if err == nil {
		return f, toks, false, nil
	}
	if g, gtoks, _, serr := parseMode(path, src, true); serr == nil {
		return g, gtoks, true, nil
	}
	return nil, nil, false, err
}

func parseMode(path string, src []byte, script bool) (*syntax.File, []syntax.TokenSpan, bool, error) {
	f, toks, diags := syntax.ParseTokens(path, src, script)
	for _, d := range diags {
		if d.Severity == diag.Error {
			return nil, nil, script, fmt.Errorf("%s:%d:%d: %s", path, d.Line, d.Col, d.Message)
		}
	}
	return f, toks, script, nil
}

// item is a token, a comment or an opaque unit, in order of offset.
type item struct {
	tok      syntax.Token // syntax.OPAQUE, or comment for a comment
	off, end int
}

// comment is the item kind of a comment (no token has it).
const comment syntax.Token = 254

func items(f *syntax.File, toks []syntax.TokenSpan) []item {
	var cs []*syntax.Comment
	for _, g := range f.Comments {
		cs = append(cs, g.List...)
	}
	out := make([]item, 0, len(toks)+len(cs))
	i := 0
	for _, t := range toks {
		if t.Tok == syntax.NEWLINE || t.Tok == syntax.EOF || t.End <= t.Off {
			continue
		}
		for i < len(cs) && cs[i].Off < t.Off {
			out = append(out, item{comment, cs[i].Off, cs[i].End()})
			i++
		}
		out = append(out, item{t.Tok, t.Off, t.End})
	}
	for ; i < len(cs); i++ {
		out = append(out, item{comment, cs[i].Off, cs[i].End()})
	}
	return out
}

// frame is an open bracket: the indentation of the line it opened on.
type frame struct {
	tok    syntax.Token
	indent int
}

func layout(src []byte, f *syntax.File, toks []syntax.TokenSpan) ([]byte, error) {
	its := items(f, toks)
	var b bytes.Buffer
	var stack []frame
	lineIndent := 0
	var prev *item
	var lastTok syntax.Token // the last item that is not a comment
	var trailing []trail
	line := 0 // lines written so far
	for k := range its {
		it := &its[k]
		if prev != nil && it.off < prev.end {
			return nil, fmt.Errorf("internal error: tokens overlap at offset %d", it.off)
		}
		gapStart := 0
		if prev != nil {
			gapStart = prev.end
		}
		gap := src[gapStart:it.off]
		if prev != nil && len(bytes.TrimLeft(gap, " \t\r\f\n")) != 0 {
			// The lexer drops characters it does not know ($, as the
			// reference's does); vox fmt refuses to guess where they go.
			stray := gapStart + len(gap) - len(bytes.TrimLeft(gap, " \t\r\f\n"))
			line := 1 + bytes.Count(src[:stray], []byte{'\n'})
			col := stray - bytes.LastIndexByte(src[:stray], '\n')
			return nil, fmt.Errorf("%d:%d: %q is no token of Vox (the parser skips it): delete it, then format", line, col, firstLine(src[stray:it.off]))
		}
		newlines := bytes.Count(gap, []byte{'\n'})
		switch {
		case prev == nil:
			lineIndent = indentOf(stack, it.tok, lastTok, 0)
			b.WriteString(strings.Repeat(indentUnit, lineIndent))
		case newlines > 0:
			b.WriteByte('\n')
			if newlines > 1 && !isOpener(prev.tok) && !isCloser(it.tok) {
				b.WriteByte('\n')
				line++
			}
			lineIndent = indentOf(stack, it.tok, lastTok, continuation(stack, lastTok, it.tok))
			b.WriteString(strings.Repeat(indentUnit, lineIndent))
		default:
			if it.tok == comment {
				trailing = append(trailing, trail{line, b.Len()})
			}
			b.WriteString(space(prev.tok, it.tok, len(gap) > 0))
		}
		if newlines > 0 && prev != nil {
			line++
		}
		text := src[it.off:it.end]
		if it.tok == comment {
			text = bytes.TrimRight(text, " \t\f")
		}
		b.Write(text)
		line += bytes.Count(text, []byte{'\n'})
		switch {
		case isOpener(it.tok):
			stack = append(stack, frame{it.tok, lineIndent})
		case isCloser(it.tok):
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		}
		if it.tok != comment {
			lastTok = it.tok
		}
		prev = it
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return align(b.Bytes(), trailing), nil
}

// trail is a comment that follows code on its line: the line's number
// and the offset, in the output, of the space before the comment.
type trail struct {
	line, at int
}

// align lines up the comments that follow code on consecutive lines, as
// gofmt does: each one a space after the longest code of its run.
func align(out []byte, trailing []trail) []byte {
	if len(trailing) < 2 {
		return out
	}
	var b bytes.Buffer
	copied := 0
	for i := 0; i < len(trailing); {
		j := i + 1
		for j < len(trailing) && trailing[j].line == trailing[j-1].line+1 {
			j++
		}
		width := 0
		for _, t := range trailing[i:j] {
			width = max(width, codeWidth(out, t.at))
		}
		for _, t := range trailing[i:j] {
			b.Write(out[copied:t.at])
			b.WriteString(strings.Repeat(" ", width-codeWidth(out, t.at)))
			copied = t.at
		}
		i = j
	}
	b.Write(out[copied:])
	return b.Bytes()
}

// codeWidth is the width in characters of the line of out up to at.
func codeWidth(out []byte, at int) int {
	start := bytes.LastIndexByte(out[:at], '\n') + 1
	return utf8.RuneCount(out[start:at])
}

func firstLine(b []byte) []byte {
	b = bytes.TrimLeft(b, " \t\r\f\n")
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b
}

func isOpener(t syntax.Token) bool {
	return t == syntax.LPAREN || t == syntax.LBRACK || t == syntax.LBRACE
}

func isCloser(t syntax.Token) bool {
	return t == syntax.RPAREN || t == syntax.RBRACK || t == syntax.RBRACE
}

// indentOf is the indentation of a line that starts with tok: one level
// inside the innermost open bracket (however many opened on its line),
// the bracket's own level for the line that closes it.
func indentOf(stack []frame, tok, _ syntax.Token, cont int) int {
	if len(stack) == 0 {
		return cont
	}
	top := stack[len(stack)-1]
	if isCloser(tok) {
		return top.indent
	}
	return top.indent + 1 + cont
}

// continuation is 1 for a line that continues the previous one's
// statement outside parentheses and brackets: after a line that ends
// with an operator or '=', and for a line that starts with '|' (the
// variants of a type) or '.' (a method chain).
func continuation(stack []frame, last, tok syntax.Token) int {
	if n := len(stack); n > 0 && stack[n-1].tok != syntax.LBRACE {
		return 0
	}
	if tok == syntax.BAR || tok == syntax.DOT || continues(last) {
		return 1
	}
	return 0
}

func continues(t syntax.Token) bool {
	switch t {
	case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT,
		syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE,
		syntax.AND, syntax.OR, syntax.IN, syntax.NOT_IN, syntax.IS, syntax.ISNT, syntax.NOT,
		syntax.PIPE, syntax.BAR, syntax.ASSIGN, syntax.PLUS_EQ, syntax.MINUS_EQ, syntax.STAR_EQ, syntax.SLASH_EQ,
		syntax.FATARROW, syntax.ARROW:
		return true
	}
	return false
}

// spaced are the operators written with one space on each side.
func spaced(t syntax.Token) bool {
	switch t {
	case syntax.ASSIGN, syntax.EQL, syntax.NEQ, syntax.LE, syntax.GE,
		syntax.PLUS_EQ, syntax.MINUS_EQ, syntax.STAR_EQ, syntax.SLASH_EQ,
		syntax.FATARROW, syntax.ARROW, syntax.PIPE, syntax.AND, syntax.OR:
		return true
	}
	return false
}

// space is what separates tokens a and b on one line; had says whether
// the source separated them. Where the layout does not decide (around
// braces, unary and arithmetic operators, keywords), one space stands for
// any run of blanks and none stays none.
func space(a, b syntax.Token, had bool) string {
	keep := ""
	if had {
		keep = " "
	}
	switch {
	case b == comment:
		return " "
	case a == syntax.OPAQUE || b == syntax.OPAQUE || a == comment:
		return keep
	case b == syntax.RPAREN || b == syntax.RBRACK || b == syntax.COMMA || b == syntax.DOT ||
		b == syntax.QUESTION || b == syntax.SEMI || b == syntax.COLON:
		return ""
	case a == syntax.LPAREN || a == syntax.LBRACK || a == syntax.DOT:
		return ""
	case spaced(a) || spaced(b) || a == syntax.COMMA || a == syntax.COLON || a == syntax.SEMI:
		return " "
	case (a == syntax.RPAREN || a == syntax.RBRACK) && (b == syntax.IDENT || b.IsKeyword()):
		return " "
	case (b == syntax.LPAREN || b == syntax.LBRACK) && (a == syntax.IDENT || a == syntax.RPAREN ||
		a == syntax.RBRACK || a == syntax.QUESTION || a == syntax.DECORATOR):
		return ""
	}
	return keep
}
