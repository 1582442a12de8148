package eval

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unsafe"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Decimals (docs/vox-language.md, Values: dec) are exact: a coefficient
// and a scale, the value being coef / 10^scale, with the bounds of the
// reference's decimals (rust_decimal): a coefficient below 2^96 in
// magnitude and at most 28 digits after the point. The scale is kept as
// written and as arithmetic makes it (1.50dec displays 1.50, 1.5dec *
// 2dec is 3.0), except that a division keeps only the digits it needs.
// A result that does not fit is rounded half to even to fewer digits
// after the point when it has some, and otherwise is the error decimal
// overflow.

// MaxDecScale is the most digits a decimal has after the point.
const MaxDecScale = 28

// maxDecCoef bounds the magnitude of a coefficient: 2^96 - 1.
var maxDecCoef = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 96), big.NewInt(1))

// decimal is the heap part of a KDec value. It never changes.
type decimal struct {
	coef  big.Int
	scale int32
}

func decValue(d *decimal) Value { return Value{k: KDec, p: unsafe.Pointer(d)} }

func (v Value) dec() *decimal { return (*decimal)(v.p) }

var bigTen = big.NewInt(10)

// pow10 returns 10^n.
func pow10(n int32) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// ParseDecimal parses the digits of a decimal literal or string: an
// optional sign, digits and an optional fraction ("-12.50"). ok is false
// when the text is not such a number or does not fit.
func ParseDecimal(s string) (Value, bool) {
	d, ok := parseDecimal(s)
	if !ok {
		return Unit, false
	}
	return decValue(d), true
}

func parseDecimal(s string) (*decimal, bool) {
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	intPart, frac, hasPoint := strings.Cut(t, ".")
	if intPart == "" || hasPoint && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return nil, false
	}
	if len(frac) > MaxDecScale {
		return nil, false
	}
	d := &decimal{scale: int32(len(frac))}
	if _, ok := d.coef.SetString(intPart+frac, 10); !ok {
		return nil, false
	}
	if neg {
		d.coef.Neg(&d.coef)
	}
	return d, d.coef.CmpAbs(maxDecCoef) <= 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decFromInt converts an int exactly.
func decFromInt(i int64) *decimal {
	d := &decimal{}
	d.coef.SetInt64(i)
	return d
}

// String writes the decimal with its scale: 1.50, -0.05, 3.
func (d *decimal) String() string {
	s := d.coef.String()
	if d.scale == 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if n := int(d.scale) + 1 - len(s); n > 0 {
		s = strings.Repeat("0", n) + s
	}
	s = s[:len(s)-int(d.scale)] + "." + s[len(s)-int(d.scale):]
	if neg {
		s = "-" + s
	}
	return s
}

// float returns the nearest float.
func (d *decimal) float() float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// rescaled returns the coefficient of d at scale s >= d.scale.
func (d *decimal) rescaled(s int32) *big.Int {
	if s == d.scale {
		return &d.coef
	}
	return new(big.Int).Mul(&d.coef, pow10(s-d.scale))
}

// fit rounds d half to even to fewer digits after the point until it has
// at most MaxDecScale of them and its coefficient fits; false when it
// cannot.
func (d *decimal) fit() bool {
	for d.scale > MaxDecScale || d.coef.CmpAbs(maxDecCoef) > 0 {
		if d.scale == 0 {
			return false
		}
		roundHalfEven(&d.coef, bigTen)
		d.scale--
	}
	return true
}

// roundHalfEven sets c to c / q rounded half to even.
func roundHalfEven(c, q *big.Int) {
	var r big.Int
	c.QuoRem(c, q, &r)
	// Compare 2|r| with q.
	r.Abs(&r)
	r.Lsh(&r, 1)
	switch r.Cmp(q) {
	case 1:
		addAway(c, &r)
	case 0:
		if c.Bit(0) == 1 {
			addAway(c, &r)
		}
	}
}

// addAway moves c one unit away from zero; r (a remainder) says which
// side c was on when c is 0.
func addAway(c, r *big.Int) {
	if c.Sign() < 0 || c.Sign() == 0 && r.Sign() < 0 {
		c.Sub(c, big.NewInt(1))
	} else {
		c.Add(c, big.NewInt(1))
	}
}

// decArith applies a binary operator to two decimals.
func (th *Thread) decArith(pos syntax.Pos, op syntax.Token, a, b *decimal) Value {
	r := &decimal{}
	switch op {
	case syntax.PLUS, syntax.MINUS:
		s := max(a.scale, b.scale)
		r.scale = s
		if op == syntax.PLUS {
			r.coef.Add(a.rescaled(s), b.rescaled(s))
		} else {
			r.coef.Sub(a.rescaled(s), b.rescaled(s))
		}
	case syntax.STAR:
		r.coef.Mul(&a.coef, &b.coef)
		r.scale = a.scale + b.scale
	case syntax.SLASH:
		if b.coef.Sign() == 0 {
			th.Fail(pos, "decimal division by zero")
		}
		// a/b to MaxDecScale digits after the point (one more, rounded),
		// then without the zeros it does not need.
		num := new(big.Int).Mul(&a.coef, pow10(MaxDecScale+1+b.scale-a.scale))
		r.coef.Set(num)
		roundQuo(&r.coef, &b.coef)
		r.scale = MaxDecScale + 1
		minScale := max(a.scale-b.scale, 0)
		var m big.Int
		for r.scale > minScale {
			q, rem := new(big.Int).QuoRem(&r.coef, bigTen, &m)
			if rem.Sign() != 0 {
				break
			}
			r.coef.Set(q)
			r.scale--
		}
	case syntax.PERCENT:
		if b.coef.Sign() == 0 {
			th.Fail(pos, "decimal division by zero")
		}
		s := max(a.scale, b.scale)
		r.scale = s
		r.coef.Rem(a.rescaled(s), b.rescaled(s))
	default:
		th.Fail(pos, "unsupported operands for %s: dec and dec", op)
	}
	if !r.fit() {
		th.Fail(pos, "decimal overflow: %s %s %s", a, op, b)
	}
	return decValue(r)
}

// roundQuo sets c to c / q rounded half to even (q != 0).
func roundQuo(c, q *big.Int) {
	neg := (c.Sign() < 0) != (q.Sign() < 0)
	var r big.Int
	c.QuoRem(c, q, &r)
	var twice big.Int
	twice.Abs(&r)
	twice.Lsh(&twice, 1)
	var aq big.Int
	aq.Abs(q)
	cmp := twice.Cmp(&aq)
	if cmp > 0 || cmp == 0 && c.Bit(0) == 1 {
		if neg {
			c.Sub(c, big.NewInt(1))
		} else {
			c.Add(c, big.NewInt(1))
		}
	}
}

// decCmp compares two decimals by value.
func decCmp(a, b *decimal) int {
	s := max(a.scale, b.scale)
	return a.rescaled(s).Cmp(b.rescaled(s))
}

// decNeg negates a decimal.
func decNeg(a *decimal) Value {
	r := &decimal{scale: a.scale}
	r.coef.Neg(&a.coef)
	return decValue(r)
}

// decOf returns the decimal of a dec or an int operand, nil for anything
// else: an int mixes with a dec exactly; a float never does.
func decOf(v Value) *decimal {
	switch v.k {
	case KDec:
		return v.dec()
	case KInt:
		return decFromInt(int64(v.n))
	}
	return nil
}

// decToInt truncates toward zero.
func (th *Thread) decToInt(d *decimal) Value {
	q := new(big.Int).Quo(&d.coef, pow10(d.scale))
	if !q.IsInt64() {
		th.Failf("int: %s does not fit an int", d)
	}
	return Int(q.Int64())
}

// decFromFloat converts a float through its shortest decimal form (0.1 is
// 0.1), failing when it has no decimal form that fits.
func (th *Thread) decFromFloat(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		th.Failf("dec: %s has no decimal form", displayFloat(f))
	}
	d, ok := parseDecimal(strconv.FormatFloat(f, 'f', -1, 64))
	if !ok {
		d, ok = parseDecimal(strconv.FormatFloat(f, 'f', MaxDecScale, 64))
		if ok {
			ok = d.fit()
		}
	}
	if !ok {
		th.Failf("dec: %s does not fit a decimal", displayFloat(f))
	}
	return decValue(d)
}
