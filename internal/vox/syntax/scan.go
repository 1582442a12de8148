package syntax

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A scanner turns source bytes into tokens on demand. The parser drives it:
// in Vox code it calls next for one token at a time; inside the body of a
// tolerated declaration or an unavailable function it calls the raw
// skippers instead, which recognise only strings, comments, brackets and
// markup, and report nothing.
type scanner struct {
	src       []byte
	srcStr    string // src as a string: names and plain strings are slices of it
	off       int    // offset of the next unread byte
	line      int    // line of src[off]
	lineStart int    // offset of the first byte of that line
	brackets  []byte
	errh      func(pos Pos, code, msg string, warn bool)
	rawFail   rawMemo    // keeps unclosed raw strings linear
	buf       []byte     // scratch for strings with escapes or interpolations
	plainOnly bool       // scanString makes no template (rescanPlain)
	comments  []*Comment // every comment scanned, in order (trivia.go)

	// The current token.
	tok   Token
	pos   Pos
	start int    // offset of its first byte
	end   int    // offset after its last byte
	text  string // source text of IDENT, DECORATOR, INT, FLOAT and DEC (its digits)
	str   string // value of STRING (and the literal text of TEMPLATE)
	ival  int64
	fval  float64
	tmpl  *Template
}

// Template is the value of a template string: Parts has one more element
// than Vars, and the string is Parts[0] Vars[0] Parts[1] ... .
type Template struct {
	Parts []string
	Vars  []TemplateVar
}

// TemplateVar is one {name} interpolation.
type TemplateVar struct {
	Pos  Pos
	Name string
}

// scanState is what save and restore keep. The open brackets are copied
// into an array when few are open (nearly always), so that the lookaheads
// of the parser allocate nothing.
type scanState struct {
	off, line, lineStart int
	nbrackets            int
	brackets             [16]byte
	moreBrackets         string // all of them, when more than fit the array
	tok                  Token
	pos                  Pos
	start, end           int
	text, str            string
	ival                 int64
	fval                 float64
	tmpl                 *Template
}

// init starts scanning src, whose text is string(src).
func (s *scanner) init(src []byte, text string, errh func(Pos, string, string, bool)) {
	s.src = src
	s.srcStr = text
	s.off = 0
	s.line = 1
	s.lineStart = 0
	s.errh = errh
	// A UTF-8 byte order mark is not part of the text.
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		s.off = 3
		s.lineStart = 3
	}
}

func (s *scanner) save() scanState {
	st := scanState{off: s.off, line: s.line, lineStart: s.lineStart, nbrackets: len(s.brackets),
		tok: s.tok, pos: s.pos, start: s.start, end: s.end, text: s.text, str: s.str, ival: s.ival, fval: s.fval, tmpl: s.tmpl}
	if len(s.brackets) <= len(st.brackets) {
		copy(st.brackets[:], s.brackets)
	} else {
		st.moreBrackets = string(s.brackets)
	}
	return st
}

func (s *scanner) restore(st scanState) {
	s.off, s.line, s.lineStart = st.off, st.line, st.lineStart
	if st.nbrackets <= len(st.brackets) {
		s.brackets = append(s.brackets[:0], st.brackets[:st.nbrackets]...)
	} else {
		s.brackets = append(s.brackets[:0], st.moreBrackets...)
	}
	s.tok, s.pos, s.start, s.end, s.text, s.str, s.ival, s.fval, s.tmpl = st.tok, st.pos, st.start, st.end, st.text, st.str, st.ival, st.fval, st.tmpl
}

// posAt returns the position of offset off, which must be on the current
// line or a later one up to s.off.
func (s *scanner) posAt(off int) Pos {
	if off >= s.lineStart {
		return MakePos(s.line, off-s.lineStart+1)
	}
	// Count back: rare (positions of multi-line tokens).
	line := s.line - bytes.Count(s.src[off:s.lineStart], []byte{'\n'})
	ls := bytes.LastIndexByte(s.src[:off], '\n') + 1
	return MakePos(line, off-ls+1)
}

func (s *scanner) error(off int, code, format string, args ...any) {
	s.errh(s.posAt(off), code, fmt.Sprintf(format, args...), false)
}

// advanceTo moves the scanner to offset off, counting the lines passed.
func (s *scanner) advanceTo(off int) {
	if off > len(s.src) {
		off = len(s.src)
	}
	seg := s.src[s.off:off]
	if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
		s.line += n
		s.lineStart = s.off + bytes.LastIndexByte(seg, '\n') + 1
	}
	s.off = off
}

func (s *scanner) newline() {
	s.off++
	s.line++
	s.lineStart = s.off
}

// inParens reports whether newlines are insignificant here: inside ( or [.
func (s *scanner) inParens() bool {
	n := len(s.brackets)
	return n > 0 && s.brackets[n-1] != '{'
}

func (s *scanner) push(b byte) { s.brackets = append(s.brackets, b) }

// pop closes the innermost bracket matching open; brackets opened after
// it (unbalanced input) are closed with it. A closer without an opener
// changes nothing.
func (s *scanner) pop(open byte) {
	for i := len(s.brackets) - 1; i >= 0; i-- {
		if s.brackets[i] == open {
			s.brackets = s.brackets[:i]
			return
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || isDigit(c) }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }

// next scans the next token into the scanner's current-token fields.
func (s *scanner) next() {
	s.scan()
	s.end = s.off
}

// seek moves the scanner to offset off (a line start or inside a line)
// with no brackets open; the next call of next scans from there.
func (s *scanner) seek(off int) {
	s.brackets = s.brackets[:0]
	if off >= s.off {
		s.advanceTo(off)
		return
	}
	s.line = 1 + bytes.Count(s.src[:off], []byte{'\n'})
	s.lineStart = bytes.LastIndexByte(s.src[:off], '\n') + 1
	s.off = off
}

func (s *scanner) scan() {
	s.tmpl = nil
again:
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' {
			s.off++
			continue
		}
		break
	}
	s.start = s.off
	s.pos = MakePos(s.line, s.off-s.lineStart+1)
	if s.off >= len(s.src) {
		s.tok = EOF
		return
	}
	c := s.src[s.off]
	switch {
	case c == '\n':
		s.newline()
		if s.inParens() {
			goto again
		}
		s.tok = NEWLINE
		return
	case c == '/' && s.peek(1) == '/', c == '#':
		for s.off < len(s.src) && s.src[s.off] != '\n' {
			s.off++
		}
		end := s.off
		if end > s.start && s.src[end-1] == '\r' {
			end--
		}
		s.recordComment(s.start, end)
		goto again
	case isIdentStart(c):
		if c == 'r' && (s.peek(1) == '"' || s.peek(1) == '#' && s.rawHashes(s.off+1) >= 0) {
			s.scanRawString()
			return
		}
		end := s.off + 1
		for end < len(s.src) && isIdentByte(s.src[end]) {
			end++
		}
		s.text = s.srcStr[s.off:end]
		s.off = end
		s.tok = lookupKeyword(s.text)
		return
	case isDigit(c):
		s.scanNumber()
		return
	case c == '"':
		s.scanString('"')
		return
	case c == '\'':
		s.scanString('\'')
		return
	case c == '@':
		if !isIdentStart(s.peek(1)) {
			s.error(s.off, "vox/lexer/unexpected-char", "unexpected character '@': a decorator is @name")
			s.off++
			goto again
		}
		end := s.off + 1
		for end < len(s.src) {
			b := s.src[end]
			if isIdentByte(b) || b == '.' && end+1 < len(s.src) && isIdentStart(s.src[end+1]) {
				end++
				continue
			}
			break
		}
		s.text = s.srcStr[s.off:end]
		s.off = end
		s.tok = DECORATOR
		return
	}
	s.off++
	switch c {
	case '(':
		s.tok = LPAREN
		s.push('(')
	case ')':
		s.tok = RPAREN
		s.pop('(')
	case '[':
		s.tok = LBRACK
		s.push('[')
	case ']':
		s.tok = RBRACK
		s.pop('[')
	case '{':
		s.tok = LBRACE
		s.push('{')
	case '}':
		s.tok = RBRACE
		s.pop('{')
	case ',':
		s.tok = COMMA
	case '.':
		s.tok = DOT
	case ':':
		s.tok = COLON
	case ';':
		s.tok = SEMI
		s.errh(s.pos, "vox/lexer/semicolon-unnecessary", "unnecessary semicolon: statements end at the end of the line", true)
	case '?':
		s.tok = QUESTION
	case '=':
		s.tok = s.either('=', EQL, '>', FATARROW, ASSIGN)
	case '!':
		if s.peek(0) == '=' {
			s.off++
			s.tok = NEQ
		} else {
			// Read as not, with a warning: the reference's lexer drops
			// the '!', so there !x means x (spec 22 §1.2), a silent
			// inversion no author means.
			s.tok = BANG
			s.errh(s.pos, "vox/lexer/bang-not", "'!' is read as `not` here, but the reference drops it silently (there !x means x): write `not`", true)
		}
	case '<':
		s.tok = s.either('=', LE, 0, 0, LT)
	case '>':
		s.tok = s.either('=', GE, 0, 0, GT)
	case '+':
		s.tok = s.either('=', PLUS_EQ, 0, 0, PLUS)
	case '-':
		s.tok = s.either('=', MINUS_EQ, '>', ARROW, MINUS)
	case '*':
		s.tok = s.either('=', STAR_EQ, 0, 0, STAR)
	case '/':
		s.tok = s.either('=', SLASH_EQ, 0, 0, SLASH)
	case '%':
		s.tok = PERCENT
	case '|':
		s.tok = s.either('>', PIPE, 0, 0, BAR)
	default:
		s.off--
		r, size := utf8.DecodeRune(s.src[s.off:])
		if r == utf8.RuneError && size <= 1 {
			s.error(s.off, "vox/lexer/unexpected-char", "invalid UTF-8 byte %#02x", s.src[s.off])
			size = 1
		} else if r < utf8.RuneSelf {
			s.error(s.off, "vox/lexer/unexpected-char", "unexpected character %q", r)
		} else {
			s.error(s.off, "vox/lexer/unexpected-char", "unexpected character %U %q", r, r)
		}
		s.off += size
		goto again
	}
}

// peekToken returns the first byte of the next token after the current
// one on the same line (0 at the end of the line or of the file).
func (s *scanner) peekToken() byte {
	for i := s.off; i < len(s.src); i++ {
		switch c := s.src[i]; c {
		case ' ', '\t', '\r':
		case '\n':
			return 0
		default:
			return c
		}
	}
	return 0
}

// peekWord returns the word (identifier or keyword) that is the next
// token after the current one on the same line, or "".
func (s *scanner) peekWord() string {
	i := s.off
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	j := i
	for j < len(s.src) && isIdentByte(s.src[j]) {
		j++
	}
	if j == i || !isIdentStart(s.src[i]) {
		return ""
	}
	return s.srcStr[i:j]
}

func (s *scanner) peek(n int) byte {
	if s.off+n < len(s.src) {
		return s.src[s.off+n]
	}
	return 0
}

// either returns t1 (consuming c1) or t2 (consuming c2) when the next byte
// is c1 or c2, else def.
func (s *scanner) either(c1 byte, t1 Token, c2 byte, t2 Token, def Token) Token {
	switch b := s.peek(0); {
	case b == c1 && c1 != 0:
		s.off++
		return t1
	case b == c2 && c2 != 0:
		s.off++
		return t2
	}
	return def
}

// scanNumber scans an integer (123), a float (1.5, 1.5e3, 2e-3) or a
// decimal (0.1dec, 3dec: digits and an optional fraction, no exponent).
func (s *scanner) scanNumber() {
	end := s.off
	digits := func() {
		for end < len(s.src) && isDigit(s.src[end]) {
			end++
		}
	}
	digits()
	float := false
	if end+1 < len(s.src) && s.src[end] == '.' && isDigit(s.src[end+1]) {
		end++
		digits()
		float = true
	}
	exp := false
	if end < len(s.src) && (s.src[end] == 'e' || s.src[end] == 'E') {
		i := end + 1
		if i < len(s.src) && (s.src[i] == '+' || s.src[i] == '-') {
			i++
		}
		if i < len(s.src) && isDigit(s.src[i]) {
			end = i
			digits()
			float, exp = true, true
		}
	}
	if end+3 <= len(s.src) && s.srcStr[end:end+3] == "dec" && (end+3 == len(s.src) || !isIdentByte(s.src[end+3])) {
		s.text = s.srcStr[s.off:end]
		if exp {
			s.error(s.off, "vox/lexer/dec-exponent", "decimal literal %sdec has an exponent: write its digits (1500dec, 0.0015dec)", s.text)
		} else if !decFits(s.text) {
			s.error(s.off, "vox/lexer/dec-overflow", "decimal literal %sdec does not fit: at most 28 digits after the point and a magnitude below 2^96 (about 7.9e28)", s.text)
		}
		s.tok = DEC
		s.off = end + 3
		return
	}
	s.text = s.srcStr[s.off:end]
	if float {
		f, err := strconv.ParseFloat(s.text, 64)
		if err != nil {
			s.error(s.off, "vox/lexer/float-range", "float literal %s is out of range", s.text)
		}
		s.fval = f
		s.tok = FLOAT
		s.off = end
		return
	}
	v, err := strconv.ParseInt(s.text, 10, 64)
	if err != nil {
		lit := s.text
		if len(lit) > 24 {
			lit = lit[:20] + "..."
		}
		s.error(s.off, "vox/lexer/int-overflow", "integer literal %s overflows int64 (largest is 9223372036854775807)", lit)
		v = 0
	}
	s.ival = v
	s.tok = INT
	s.off = end
}

// decFits reports whether the digits of a decimal literal fit the
// decimals of the language: at most 28 digits after the point and a
// coefficient below 2^96.
func decFits(text string) bool {
	intPart, frac, _ := strings.Cut(text, ".")
	if len(frac) > 28 {
		return false
	}
	var c big.Int
	c.SetString(intPart+frac, 10)
	return c.BitLen() <= 96
}

// rawHashes returns the number of '#' at i followed by '"', or -1.
func (s *scanner) rawHashes(i int) int {
	n := 0
	for i < len(s.src) && s.src[i] == '#' {
		i++
		n++
	}
	if i < len(s.src) && s.src[i] == '"' {
		return n
	}
	return -1
}

// scanRawString scans r"..." or r#"..."# (any number of #): no escapes,
// raw newlines allowed.
func (s *scanner) scanRawString() {
	startOff, startLine, startLS := s.off, s.line, s.lineStart
	hashes := s.rawHashes(s.off + 1)
	closer := "\"" + strings.Repeat("#", hashes)
	body := s.off + 2 + hashes
	i := -1
	if !(s.rawFail.pos > 0 && s.off >= s.rawFail.pos && hashes >= s.rawFail.hashes) {
		i = bytes.Index(s.src[body:], []byte(closer))
	}
	if i < 0 {
		s.rawFail = rawMemo{s.off, hashes}
		s.unterminated(startOff, startLine, startLS, body)
		return
	}
	s.str = s.srcStr[body : body+i]
	s.tok = STRING
	s.advanceTo(body + i + len(closer))
}

// unterminated reports a string that runs to the end of the file and
// recovers by ending it at the end of its first line, so the rest of the
// file is still checked.
func (s *scanner) unterminated(startOff, startLine, startLS, body int) {
	s.off, s.line, s.lineStart = startOff, startLine, startLS
	s.error(startOff, "vox/lexer/unterminated-string", "unterminated string")
	end := bytes.IndexByte(s.src[body:], '\n')
	if end < 0 {
		end = len(s.src)
	} else {
		end += body
	}
	s.str = s.srcStr[body:end]
	s.tok = STRING
	s.off = end
}

// scanString scans a quoted string. A double-quoted string is a template
// when it holds an interpolation {name} (a name, not a keyword, between
// braces, whose '{' is not part of a "{{"); in a template "{{" and "}}"
// are literal braces. In every other string all braces are literal.
// Single-quoted strings never interpolate, and neither do the strings
// that descriptions, URIs and decorator arguments are (rescanPlain).
func (s *scanner) scanString(quote byte) {
	startOff, startLine, startLS := s.off, s.line, s.lineStart
	s.off++
	// Most strings are one line without escapes or braces: they are a
	// slice of the source.
	for i := s.off; i < len(s.src); i++ {
		c := s.src[i]
		if c == quote {
			s.str = s.srcStr[s.off:i]
			s.tok = STRING
			s.off = i + 1
			return
		}
		if c == '\\' || c == '\n' || quote == '"' && c == '{' && !s.plainOnly {
			break
		}
	}
	isTmpl := quote == '"' && !s.plainOnly && hasInterpolation(s.src, s.off)
	b := s.buf[:0]
	defer func() { s.buf = b[:0] }()
	var tmpl *Template
	for {
		if s.off >= len(s.src) {
			s.unterminated(startOff, startLine, startLS, startOff+1)
			return
		}
		c := s.src[s.off]
		switch {
		case c == quote:
			s.off++
			if tmpl != nil {
				tmpl.Parts = append(tmpl.Parts, string(b))
				s.tmpl = tmpl
				s.str = strings.Join(tmpl.Parts, "")
				s.tok = TEMPLATE
			} else {
				s.str = string(b)
				s.tok = STRING
			}
			return
		case c == '\\':
			e := s.peek(1)
			switch e {
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case '\\', '"', '\'':
				b = append(b, e)
			case '0':
				b = append(b, 0)
			default:
				if e == 0 && s.off+1 >= len(s.src) {
					s.off++
					continue // reported as unterminated
				}
				r, size := utf8.DecodeRune(s.src[s.off+1:])
				s.error(s.off, "vox/lexer/invalid-escape", "invalid escape %s in string: use \\n \\t \\r \\\\ \\\" \\' or \\0", "\\"+string(r))
				if e == '\n' {
					b = append(b, '\\')
					s.off++
					continue
				}
				b = append(b, s.src[s.off+1:s.off+1+size]...)
				s.off += 1 + size
				continue
			}
			s.off += 2
		case c == '\n':
			// A string that runs into a line starting a function, tool or
			// resource in column 1 is taken as unterminated: it almost
			// certainly lacks its closing quote, and reading on would
			// swallow the declarations that follow.
			if strongDeclLine(s.src, s.off+1) {
				s.unterminated(startOff, startLine, startLS, startOff+1)
				return
			}
			b = append(b, c)
			s.newline()
		case isTmpl && c == '{':
			if s.peek(1) == '{' {
				b = append(b, '{')
				s.off += 2
				continue
			}
			if name, end := interpolation(s.src, s.off); end > 0 {
				if tmpl == nil {
					tmpl = &Template{}
				}
				tmpl.Parts = append(tmpl.Parts, string(b))
				tmpl.Vars = append(tmpl.Vars, TemplateVar{Pos: s.posAt(s.off + 1), Name: s.srcStr[s.off+1 : s.off+1+len(name)]})
				b = b[:0]
				s.off = end
				continue
			}
			b = append(b, '{')
			s.off++
		case isTmpl && c == '}':
			b = append(b, '}')
			if s.peek(1) == '}' {
				s.off++
			}
			s.off++
		default:
			b = append(b, c)
			s.off++
		}
	}
}

// interpolation returns the name of the interpolation {name} at src[i]
// (a '{') and the offset after its '}', or end 0 when there is none
// there: the name must be an identifier that is not a keyword.
func interpolation(src []byte, i int) (name []byte, end int) {
	j := i + 1
	if j >= len(src) || !isIdentStart(src[j]) {
		return nil, 0
	}
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	if j >= len(src) || src[j] != '}' {
		return nil, 0
	}
	name = src[i+1 : j]
	if lookupKeyword(string(name)) != IDENT {
		return nil, 0
	}
	return name, j + 1
}

// templateExpression finds "{r.name}" or "{xs[0]}" at src[i] (a '{'):
// a template interpolates a plain name only, as the reference's does (it
// rejects anything else), so such text stays literal — which the author
// almost never means, and which nothing else would tell them. It returns
// the text between the braces, "" when there is none such at i.
func templateExpression(src []byte, i int) string {
	j := i + 1
	if j >= len(src) || !isIdentStart(src[j]) || i > 0 && src[i-1] == '{' {
		return ""
	}
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	name := j
	for j < len(src) {
		switch c := src[j]; {
		case c == '.' && j+1 < len(src) && isIdentStart(src[j+1]):
			j++
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			continue
		case c == '[':
			k := j + 1
			for k < len(src) && src[k] != ']' && src[k] != '"' && src[k] != '\n' && src[k] != '{' && src[k] != '}' {
				k++
			}
			if k >= len(src) || src[k] != ']' {
				return ""
			}
			j = k + 1
			continue
		case c == '}' && j > name:
			return string(src[i+1 : j])
		}
		return ""
	}
	return ""
}

// hasInterpolation reports whether the double-quoted string whose text
// starts at src[i] holds an interpolation before its closing quote. A
// "{{" is passed over whole, so "{{name}}" alone is plain text.
func hasInterpolation(src []byte, i int) bool {
	for i < len(src) {
		switch src[i] {
		case '"':
			return false
		case '\\':
			i += 2
			continue
		case '{':
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			if _, end := interpolation(src, i); end > 0 {
				return true
			}
		}
		i++
	}
	return false
}

// rescanPlain scans the current token again, when it is a template, as a
// plain string in which every brace is literal: descriptions, resource
// URIs and decorator arguments are never templates. The scan is quiet:
// its diagnostics were reported the first time.
func (s *scanner) rescanPlain() {
	if s.tok != TEMPLATE {
		return
	}
	s.off, s.line, s.lineStart = s.start, int(s.pos.Line), s.start-int(s.pos.Col)+1
	s.plainOnly = true
	s.scanString(s.src[s.start])
	s.plainOnly = false
	s.tmpl = nil
	s.end = s.off
}
