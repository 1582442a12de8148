package eval

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// format(fmt, args...) and the padding methods (docs/vox-language.md,
// Strings and formatting): the format syntax is Rust's, since Vox authors know it
// from the reference's host language. Named placeholders are left out on
// purpose: "{name}" in a double-quoted string is a template and is filled
// in before format sees it.

// fmtSpec is a parsed "{:spec}": [[fill]align][sign][#][0][width][.precision][verb].
type fmtSpec struct {
	fill  rune
	align byte // '<', '^', '>' or 0 for the default (numbers right, the rest left)
	plus  bool
	alt   bool // '#': 0x, 0o, 0b prefixes
	zero  bool
	width int
	prec  int // -1 when not given
	verb  byte
}

// maxFormatNumber bounds a width or precision, so that parsing it cannot
// overflow; the value-size limit bounds what it may build.
const maxFormatNumber = 1 << 30

func biFormat(th *Thread, args []Value) Value {
	f := th.strArg("format", args[0])
	vals := args[1:]
	th.charge(int64(len(f)))
	var used uint64           // the arguments used so far, for the first 64
	var usedMore map[int]bool // the rest, rarely any
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); {
		j := strings.IndexAny(f[i:], "{}")
		if j < 0 {
			b.WriteString(f[i:])
			break
		}
		b.WriteString(f[i : i+j])
		i += j
		if i+1 < len(f) && f[i+1] == f[i] { // {{ and }}
			b.WriteByte(f[i])
			i += 2
			continue
		}
		if f[i] == '}' {
			th.Failf("format: a lone } at byte %d of the format; write }} for a literal brace", i)
		}
		end := strings.IndexAny(f[i+1:], "{}")
		if end < 0 || f[i+1+end] == '{' {
			th.Failf("format: the { at byte %d of the format is not closed; write {{ for a literal brace", i)
		}
		field := f[i+1 : i+1+end]
		i += end + 2
		pos, specText, _ := strings.Cut(field, ":")
		idx := next
		if pos == "" {
			next++
		} else {
			n, err := strconv.Atoi(pos)
			if err != nil || n < 0 || pos[0] == '+' {
				th.Failf("format: {%s} is not a placeholder: write {} for the next argument or {0} for the first (a name in braces is a template, filled in before format runs)", field)
			}
			idx = n
		}
		if idx >= len(vals) {
			th.Failf("format: {%s} needs argument %d, but %d argument(s) were given", field, idx+1, len(vals))
		}
		if idx < 64 {
			used |= 1 << idx
		} else {
			if usedMore == nil {
				usedMore = map[int]bool{}
			}
			usedMore[idx] = true
		}
		spec := th.parseSpec(field, specText)
		th.formatValue(&b, vals[idx], spec, field)
		th.checkSize(int64(b.Len()))
	}
	for k := range vals {
		if (k < 64 && used&(1<<k) == 0) || (k >= 64 && !usedMore[k]) {
			th.Failf("format: argument %d is not used by the format %q", k+1, f)
		}
	}
	th.checkSize(int64(b.Len()))
	th.allocate(int64(b.Len()))
	return Str(b.String())
}

// parseSpec parses the part of a placeholder after the colon.
func (th *Thread) parseSpec(field, s string) fmtSpec {
	sp := fmtSpec{fill: ' ', prec: -1}
	bad := func(why string) {
		th.Failf("format: bad spec {%s}: %s; the form is [[fill]align][+][#][0][width][.precision][?xXobeE]", field, why)
	}
	if r, size := utf8.DecodeRuneInString(s); size > 0 && size < len(s) && strings.IndexByte("<^>", s[size]) >= 0 {
		sp.fill, sp.align, s = r, s[size], s[size+1:]
	} else if s != "" && strings.IndexByte("<^>", s[0]) >= 0 {
		sp.align, s = s[0], s[1:]
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sp.plus, s = s[0] == '+', s[1:]
	}
	if s != "" && s[0] == '#' {
		sp.alt, s = true, s[1:]
	}
	if s != "" && s[0] == '0' {
		sp.zero, s = true, s[1:]
	}
	number := func() int {
		n := 0
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			n = n*10 + int(s[0]-'0')
			if n > maxFormatNumber {
				bad("the number is too large")
			}
			s = s[1:]
		}
		return n
	}
	sp.width = number()
	if s != "" && s[0] == '.' {
		s = s[1:]
		if s == "" || s[0] < '0' || s[0] > '9' {
			bad("a precision needs digits after the dot")
		}
		sp.prec = number()
	}
	if s != "" {
		if len(s) > 1 || strings.IndexByte("?xXobeE", s[0]) < 0 {
			bad("unknown " + strconv.Quote(s))
		}
		sp.verb = s[0]
	}
	th.checkSize(int64(sp.width))
	th.checkSize(int64(sp.prec))
	return sp
}

// formatValue writes v as spec says.
func (th *Thread) formatValue(b *strings.Builder, v Value, sp fmtSpec, field string) {
	numeric := v.k == KInt || v.k == KFloat
	var text string
	switch sp.verb {
	case 'x', 'X', 'o', 'b':
		if v.k != KInt {
			th.Failf("format: {%s} formats an int, got %s", field, v.typeName())
		}
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'b': 2}[sp.verb]
		i := int64(v.n)
		text = strconv.FormatInt(i, base)
		if sp.verb == 'X' {
			text = strings.ToUpper(text)
		}
		if sp.alt {
			prefix := map[byte]string{'x': "0x", 'X': "0x", 'o': "0o", 'b': "0b"}[sp.verb]
			if i < 0 {
				text = "-" + prefix + text[1:]
			} else {
				text = prefix + text
			}
		}
	case 'e', 'E':
		if !numeric {
			th.Failf("format: {%s} formats a number, got %s", field, v.typeName())
		}
		text = rustExponent(strconv.FormatFloat(toFloat(v), 'e', sp.prec, 64))
		if sp.verb == 'E' {
			text = strings.ToUpper(text)
		}
	case '?':
		if v.k == KStr {
			var q strings.Builder
			writeJSONString(&q, v.Str())
			text = q.String()
		} else {
			text = th.display(v)
		}
	default:
		switch {
		case sp.prec >= 0 && v.k == KFloat:
			text = strconv.FormatFloat(v.Float(), 'f', sp.prec, 64)
		case sp.prec >= 0 && v.k == KStr:
			text = v.Str()
			if n := 0; sp.prec < len(text) {
				for off := range text {
					if n == sp.prec {
						text = text[:off]
						break
					}
					n++
				}
			}
		case sp.prec >= 0:
			th.Failf("format: {%s}: a precision applies to floats and strings, got %s (write float(x) for decimals)", field, v.typeName())
		default:
			text = th.display(v)
		}
	}
	if sp.plus && numeric && !strings.HasPrefix(text, "-") && text != "NaN" {
		text = "+" + text
	}
	n := utf8.RuneCountInString(text)
	if n >= sp.width {
		b.WriteString(text)
		return
	}
	pad := sp.width - n
	th.checkSize(int64(b.Len()) + int64(len(text)) + int64(pad)*int64(utf8.RuneLen(sp.fill)))
	if sp.zero && numeric {
		sign := ""
		if text != "" && (text[0] == '-' || text[0] == '+') {
			sign, text = text[:1], text[1:]
		}
		b.WriteString(sign)
		b.WriteString(strings.Repeat("0", pad))
		b.WriteString(text)
		return
	}
	align := sp.align
	if align == 0 {
		align = '<'
		if numeric {
			align = '>'
		}
	}
	left := 0
	switch align {
	case '>':
		left = pad
	case '^':
		left = pad / 2
	}
	fill := string(sp.fill)
	b.WriteString(strings.Repeat(fill, left))
	b.WriteString(text)
	b.WriteString(strings.Repeat(fill, pad-left))
}

// rustExponent turns Go's "1.5e+03" into Rust's "1.5e3".
func rustExponent(s string) string {
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign := ""
	if exp != "" && (exp[0] == '+' || exp[0] == '-') {
		if exp[0] == '-' {
			sign = "-"
		}
		exp = exp[1:]
	}
	exp = strings.TrimLeft(exp, "0")
	if exp == "" {
		exp = "0"
	}
	return mant + "e" + sign + exp
}

// pad implements pad_start and pad_end: s filled with fill up to width
// characters.
func (th *Thread) pad(method string, s string, width, fill Value, atStart bool) Value {
	w := th.intArg(method, width)
	f := " "
	if fill.k != kAbsent {
		f = th.strArg(method, fill)
		if utf8.RuneCountInString(f) != 1 {
			th.Failf("%s: fill must be one character, got %q", method, f)
		}
	}
	n := int64(utf8.RuneCountInString(s))
	if w <= n {
		return Str(s)
	}
	if w > maxFormatNumber {
		th.Failf("%s: width %d is too large", method, w)
	}
	size := int64(len(s)) + (w-n)*int64(len(f))
	th.checkSize(size)
	th.allocate(size)
	padding := strings.Repeat(f, int(w-n))
	if atStart {
		return Str(padding + s)
	}
	return Str(s + padding)
}
