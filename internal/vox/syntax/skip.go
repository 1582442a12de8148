package syntax

import "bytes"

// The raw skippers pass over text that is not checked as Vox: the bodies of
// tolerated declarations (components, tables, routes, ...) and of
// unavailable functions, and the arguments of ignored decorators. They
// recognise only strings, comments, brackets and markup, and report
// nothing: an apostrophe in markup text or after a letter ("Don't") is not
// a string, '#' and "//" in markup text are not comments, and a string that
// does not close is taken as a literal quote rather than swallowing the
// rest of the file.

// Modes of the raw skipper.
const (
	modeCode uint8 = iota // Vox-like code: strings, comments, brackets
	modeTag               // inside <name ...>: attributes
	modeText              // element content: text, {expr}, child tags
)

type skipFrame struct {
	mode   uint8
	closer byte // for modeCode: the bracket that ends it
}

// voidElements never have content, so <br> does not open a text section.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

func closerOf(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// skipBalanced returns the offset just past the bracket that closes the
// opener at src[open], or -1 when the file ends first.
func skipBalanced(src []byte, open int) int {
	stack := []skipFrame{{modeCode, closerOf(src[open])}}
	var memo quoteMemo
	var rawStop rawMemo
	i := open + 1
	for i < len(src) {
		c := src[i]
		top := &stack[len(stack)-1]
		switch top.mode {
		case modeCode:
			switch {
			case c == '"':
				i = memo.skip(src, i, true)
			case c == '\'':
				if i > 0 && isIdentByte(src[i-1]) {
					i++ // an apostrophe in a word: Don't
				} else {
					i = memo.skip(src, i, false)
				}
			case c == '/' && i+1 < len(src) && src[i+1] == '/', c == '#':
				i = lineEnd(src, i)
			case c == '(' || c == '[' || c == '{':
				stack = append(stack, skipFrame{modeCode, closerOf(c)})
				i++
			case c == ')' || c == ']' || c == '}':
				i++
				// Pop to the frame this closes; a closer that matches
				// nothing open is text.
				for j := len(stack) - 1; j >= 0; j-- {
					if stack[j].mode == modeCode && stack[j].closer == c {
						stack = stack[:j]
						break
					}
				}
				if len(stack) == 0 {
					return i
				}
			case c == '<' && isTagStart(src, i):
				name, j := tagName(src, i+1)
				if j == i+1 && j < len(src) && src[j] == '>' { // <> fragment
					stack = append(stack, skipFrame{mode: modeText})
					i = j + 1
				} else {
					stack = append(stack, skipFrame{mode: modeTag, closer: voidFlag(name)})
					i = j
				}
			case c == 'r' && (i == 0 || !isIdentByte(src[i-1])) && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '#'):
				i = skipRawMemo(src, i, &rawStop)
			case isIdentStart(c):
				for i < len(src) && isIdentByte(src[i]) {
					i++
				}
			default:
				i++
			}
		case modeTag:
			switch {
			case c == '"' || c == '\'':
				i = memo.skip(src, i, true)
			case c == '{':
				stack = append(stack, skipFrame{modeCode, '}'})
				i++
			case c == '/' && i+1 < len(src) && src[i+1] == '>':
				stack = stack[:len(stack)-1]
				i += 2
			case c == '>':
				if top.closer == 1 { // a void element
					stack = stack[:len(stack)-1]
				} else {
					top.mode = modeText
				}
				i++
			case c == '}' || c == ')' || c == ']':
				// Stray closer: the markup was not closed; let the
				// enclosing code frame take it.
				stack = stack[:len(stack)-1]
			default:
				i++
			}
		case modeText:
			switch {
			case c == '<' && i+1 < len(src) && src[i+1] == '/':
				j := bytes.IndexByte(src[i:], '>')
				if j < 0 {
					return -1
				}
				stack = stack[:len(stack)-1]
				i += j + 1
			case c == '<' && i+1 < len(src) && (isIdentStart(src[i+1]) || src[i+1] == '>'):
				name, j := tagName(src, i+1)
				if j == i+1 && src[j] == '>' {
					stack = append(stack, skipFrame{mode: modeText})
					i = j + 1
				} else {
					stack = append(stack, skipFrame{mode: modeTag, closer: voidFlag(name)})
					i = j
				}
			case c == '{':
				stack = append(stack, skipFrame{modeCode, '}'})
				i++
			default:
				// Everything else is text, closing brackets included:
				// "Price (USD)", "a } b".
				i++
			}
		}
		if len(stack) == 0 {
			return -1 // unreachable: the base frame is code
		}
	}
	return -1
}

func voidFlag(name string) byte {
	if voidElements[name] {
		return 1
	}
	return 0
}

// tagName returns the element name starting at i and the offset after it
// (names may contain letters, digits, '-', '.' and ':').
func tagName(src []byte, i int) (string, int) {
	j := i
	for j < len(src) && (isIdentByte(src[j]) || src[j] == '-' || src[j] == '.' || src[j] == ':') {
		j++
	}
	return string(src[i:j]), j
}

// isTagStart reports whether the '<' at src[i] opens markup rather than
// being a comparison: it is followed by a letter or '>' and does not follow
// an operand.
func isTagStart(src []byte, i int) bool {
	if i+1 >= len(src) || !(isIdentStart(src[i+1]) || src[i+1] == '>') {
		return false
	}
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r' || src[j] == '\n') {
		j--
	}
	if j < 0 {
		return true
	}
	p := src[j]
	if p == ')' || p == ']' || p == '"' || p == '\'' {
		return false
	}
	if isIdentByte(p) {
		// After a word: markup only when the word is a keyword that
		// precedes an expression (return <div/>).
		k := j
		for k >= 0 && isIdentByte(src[k]) {
			k--
		}
		switch string(src[k+1 : j+1]) {
		case "return", "else", "in", "and", "or", "not", "to", "yield":
			return true
		}
		return false
	}
	return true
}

// skipQuoted returns the offset after the string starting at src[i]. When
// the string does not close (before the end of the line if !multiline, or
// of the file), the quote is taken as a literal character.
func skipQuoted(src []byte, i int, multiline bool) int {
	j, _ := scanQuoted(src, i, multiline)
	return j
}

// scanQuoted is skipQuoted that also returns, for a string that does not
// close, where the search stopped.
func scanQuoted(src []byte, i int, multiline bool) (next, stop int) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, -1
		case '\n':
			if !multiline {
				return i + 1, j
			}
		}
	}
	return i + 1, len(src)
}

// quoteMemo remembers, per quote character, the extent of the last search
// that found no closing quote: a later quote inside that extent will not
// close either, so pathological input ("\"\"\"...) stays linear.
type quoteMemo struct {
	stop [2]int // for '"' and '\''
}

func (m *quoteMemo) skip(src []byte, i int, multiline bool) int {
	k := 0
	if src[i] == '\'' {
		k = 1
	}
	if i < m.stop[k] {
		return i + 1
	}
	next, stop := scanQuoted(src, i, multiline)
	if stop >= 0 {
		m.stop[k] = stop
	}
	return next
}

// rawMemo remembers a raw-string search that found no closer: from Pos
// on, no closer with Hashes or more '#' exists either.
type rawMemo struct{ pos, hashes int }

// skipRawMemo is skipRaw with a memo that keeps pathological input
// (r#"r#"r#"...) linear.
func skipRawMemo(src []byte, i int, memo *rawMemo) int {
	h := 0
	for i+1+h < len(src) && src[i+1+h] == '#' {
		h++
	}
	if memo.pos > 0 && i >= memo.pos && h >= memo.hashes {
		return i + 1
	}
	j := skipRaw(src, i)
	if j == i+1 && i+1+h < len(src) && src[i+1+h] == '"' {
		*memo = rawMemo{i, h}
	}
	return j
}

// skipRaw returns the offset after the raw string r"..." / r#"..."# at
// src[i], or i+1 when src[i] does not start one that closes.
func skipRaw(src []byte, i int) int {
	j := i + 1
	n := 0
	for j < len(src) && src[j] == '#' {
		j++
		n++
	}
	if j >= len(src) || src[j] != '"' {
		return i + 1
	}
	closer := append([]byte{'"'}, bytes.Repeat([]byte{'#'}, n)...)
	k := bytes.Index(src[j+1:], closer)
	if k < 0 {
		return i + 1
	}
	return j + 1 + k + len(closer)
}

// lineEnd returns the offset of the newline ending the line of src[i] (or
// len(src)).
func lineEnd(src []byte, i int) int {
	if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(src)
}

// skipOpaque returns the end of the opaque declaration starting at src[i]:
// its head and balanced {...} body or, without a body, the rest of the line
// and the following lines that start with '|'. When a body does not close,
// it returns -1 and the offset of its '{'.
func skipOpaque(src []byte, i int) (end, brace int) {
	depth := 0
	var memo quoteMemo
	var rawStop rawMemo
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			if depth > 0 {
				i++
				continue
			}
			return skipBarLines(src, i+1), -1
		case c == '(' || c == '[':
			depth++
			i++
		case c == ')' || c == ']':
			if depth > 0 {
				depth--
			}
			i++
		case c == '{':
			j := skipBalanced(src, i)
			if j < 0 {
				return -1, i
			}
			if depth == 0 {
				return j, -1
			}
			i = j
		case c == '"':
			i = memo.skip(src, i, true)
		case c == '\'':
			if i > 0 && isIdentByte(src[i-1]) {
				i++
			} else {
				i = memo.skip(src, i, false)
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/', c == '#':
			i = lineEnd(src, i)
		case c == 'r' && (i == 0 || !isIdentByte(src[i-1])) && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '#'):
			i = skipRawMemo(src, i, &rawStop)
		case isIdentStart(c):
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
		default:
			i++
		}
	}
	return i, -1
}

// skipBarLines skips the lines from i on whose first non-blank byte is '|'
// (variants of a type spread over lines) and returns the start of the first
// other line.
func skipBarLines(src []byte, i int) int {
	for i < len(src) {
		j := i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
			j++
		}
		if j >= len(src) || src[j] != '|' {
			return i
		}
		e, _ := skipOpaqueLine(src, j)
		i = e
	}
	return i
}

// skipOpaqueLine skips one line of opaque text (with brackets spanning
// lines) and returns the start of the next line.
func skipOpaqueLine(src []byte, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			i++
			if depth == 0 {
				return i, true
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			i++
		case c == '"':
			i = skipQuoted(src, i, true)
		case c == '/' && i+1 < len(src) && src[i+1] == '/', c == '#':
			i = lineEnd(src, i)
		default:
			i++
		}
	}
	return i, true
}

// declStarters are the words that begin a top-level declaration; after an
// error the parser resumes at the next line that starts with one (or with
// a decorator) in column 1.
var declStarters = map[string]bool{
	"fn": true, "pub": true, "async": true, "tool": true, "resource": true, "let": true,
	"type": true, "import": true,
}

// toleratedWords lead declarations of the wider Vox language that this
// implementation skips as opaque units.
var toleratedWords = map[string]bool{
	"component": true, "fragment": true, "extern": true, "actor": true, "workflow": true,
	"activity": true, "http": true, "routes": true, "server": true, "query": true,
	"mutation": true, "style": true, "agent": true, "env": true, "test": true, "migrate": true,
	"state": true, "derived": true, "effect": true, "view": true,
}

// isDeclLine reports whether the line starting at offset i starts a
// declaration in column 1.
func isDeclLine(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	if src[i] == '@' {
		return i+1 < len(src) && isIdentStart(src[i+1])
	}
	if !isIdentStart(src[i]) {
		return false
	}
	j := i
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	return declStarters[string(src[i:j])] || toleratedWords[string(src[i:j])]
}

// strongDeclLine reports whether the line starting at offset i starts a
// function, tool or resource in column 1 in a way prose inside a string
// never does: "@tool", "@mcp.", "@resource", "fn name(", "pub fn",
// "async fn", `tool "`, `resource "`.
func strongDeclLine(src []byte, i int) bool {
	rest := src[i:min(len(src), i+64)]
	for _, p := range []string{"@tool", "@mcp.", "@resource", "pub fn ", "async fn ", "tool \"", "resource \""} {
		if bytes.HasPrefix(rest, []byte(p)) {
			return true
		}
	}
	if !bytes.HasPrefix(rest, []byte("fn ")) {
		return false
	}
	j := 3
	for j < len(rest) && isIdentByte(rest[j]) {
		j++
	}
	return j > 3 && j < len(rest) && (rest[j] == '(' || rest[j] == '[')
}

// nextDeclLine returns the offset of the first line at or after offset i
// (which must be a line start) whose column 1 starts a declaration, or
// len(src).
func nextDeclLine(src []byte, i int) int {
	for i < len(src) {
		if isDeclLine(src, i) {
			return i
		}
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 {
			return len(src)
		}
		i += k + 1
	}
	return len(src)
}
