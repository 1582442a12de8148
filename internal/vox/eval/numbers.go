package eval

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Numbers: round to decimals, chr, parse_int and parse_float
// (docs/vox-language.md, Builtins).

// roundDigits implements round(x, digits): a float rounded to digits
// decimals, half away from zero. It rounds the shortest decimal form of x
// (what str(x) shows) rather than its binary value, so that round(2.675,
// 2) is 2.68 as a reader expects, although the float nearest 2.675 lies
// just below it.
func (th *Thread) roundDigits(x, digits Value) Value {
	if x.k != KInt && x.k != KFloat {
		th.Failf("round of %s", x.typeName())
	}
	if digits.k != KInt {
		th.Failf("round: digits must be an int, got %s", digits.typeName())
	}
	f, n := toFloat(x), int64(digits.n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Float(f)
	}
	return Float(roundDecimal(f, n))
}

// roundDecimal rounds f to n decimals (n < 0: to 10^-n) half away from
// zero on its shortest decimal form.
func roundDecimal(f float64, n int64) float64 {
	switch {
	case n > 400: // beyond the precision of any float: nothing to round
		return f
	case n < -400:
		return math.Copysign(0, f)
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac // the decimal point sits after len(intPart) digits
	keep := int64(len(intPart)) + n
	if keep >= int64(len(digits)) {
		return f // already has at most n decimals
	}
	var kept []byte
	if keep > 0 {
		kept = []byte(digits[:keep])
	}
	roundUp := keep >= 0 && digits[keep] >= '5'
	if roundUp {
		i := len(kept) - 1
		for ; i >= 0 && kept[i] == '9'; i-- {
			kept[i] = '0'
		}
		if i >= 0 {
			kept[i]++
		} else {
			kept = append([]byte{'1'}, kept...) // one more integer digit
		}
	}
	if len(kept) == 0 {
		return math.Copysign(0, f)
	}
	// kept holds the digits down to 10^-n; scale back with an exponent.
	out, err := strconv.ParseFloat(string(kept)+"e"+strconv.FormatInt(-n, 10), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return f
	}
	return math.Copysign(out, f)
}

func biChr(th *Thread, args []Value) Value {
	if args[0].k != KInt {
		th.Failf("chr needs an int, got %s", args[0].typeName())
	}
	c := int64(args[0].n)
	r := utf8.RuneError
	if c >= 0 && c <= utf8.MaxRune && utf8.ValidRune(rune(c)) {
		r = rune(c)
	}
	return Str(string(r))
}

func biParseInt(th *Thread, args []Value) Value {
	s := th.strArg("parse_int", args[0])
	base := int64(10)
	if len(args) == 2 {
		base = th.intArg("parse_int", args[1])
		if base < 2 || base > 36 {
			th.Failf("parse_int: base must be 2 to 36, got %d", base)
		}
	}
	th.charge(int64(len(s)))
	text := strings.TrimSpace(s)
	i, err := strconv.ParseInt(text, int(base), 64)
	if err != nil {
		return ErrVal(Str(th.parseError("an int", s, err)))
	}
	return OkVal(Int(i))
}

func biParseFloat(th *Thread, args []Value) Value {
	s := th.strArg("parse_float", args[0])
	th.charge(int64(len(s)))
	text := strings.TrimSpace(s)
	f, err := strconv.ParseFloat(text, 64)
	if err == nil && (strings.ContainsAny(text, "_xXpP")) {
		err = strconv.ErrSyntax // no Go-only forms: 1_000, 0x1p3
	}
	if err != nil && !(errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0)) {
		return ErrVal(Str(th.parseError("a float", s, err)))
	}
	return OkVal(Float(f))
}

// parseError is the text of the Err of parse_int and parse_float; it
// quotes at most 64 bytes of the input.
func (th *Thread) parseError(what, s string, err error) string {
	shown := s
	if len(shown) > 64 {
		shown = strings.ToValidUTF8(shown[:64], "") + "..."
	}
	if errors.Is(err, strconv.ErrRange) {
		return strconv.Quote(shown) + " is out of the range of " + what
	}
	return strconv.Quote(shown) + " is not " + what
}
