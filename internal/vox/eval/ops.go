package eval

import (
	"math"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Arithmetic, comparison and equality. Integer arithmetic is checked:
// overflow and division by zero are errors.

func (th *Thread) arith(pos syntax.Pos, op syntax.Token, x, y Value) Value {
	if x.k == KInt && y.k == KInt {
		return th.intArith(pos, op, int64(x.n), int64(y.n))
	}
	if (x.k == KInt || x.k == KFloat) && (y.k == KInt || y.k == KFloat) {
		a, b := toFloat(x), toFloat(y)
		switch op {
		case syntax.PLUS:
			return Float(a + b)
		case syntax.MINUS:
			return Float(a - b)
		case syntax.STAR:
			return Float(a * b)
		case syntax.SLASH:
			return Float(a / b)
		case syntax.PERCENT:
			return Float(math.Mod(a, b))
		}
	}
	if x.k == KDec || y.k == KDec {
		// Decimals are exact: they mix with ints, never with floats.
		if a, b := decOf(x), decOf(y); a != nil && b != nil {
			return th.decArith(pos, op, a, b)
		}
	}
	if op == syntax.PLUS {
		if x.k == KStr || y.k == KStr {
			return th.concat(pos, x, y)
		}
		if x.k == KList && y.k == KList {
			a, b := x.List(), y.List()
			th.checkSize(a.size + b.size)
			th.allocate(16 * int64(len(a.elems)+len(b.elems)))
			elems := make([]Value, 0, len(a.elems)+len(b.elems))
			elems = append(append(elems, a.elems...), b.elems...)
			for _, e := range elems {
				e.share() // both lists hold it now
			}
			return listValue(&List{elems: elems, size: a.size + b.size})
		}
	}
	th.Fail(pos, "unsupported operands for %s: %s and %s", op, x.typeName(), y.typeName())
	return Value{}
}

func (th *Thread) concat(pos syntax.Pos, x, y Value) Value {
	var a, b string
	if x.k == KStr {
		a = x.Str()
	} else {
		a = th.display(x)
	}
	if y.k == KStr {
		b = y.Str()
	} else {
		b = th.display(y)
	}
	th.checkSize(int64(len(a)) + int64(len(b)))
	th.allocate(int64(len(a)) + int64(len(b)))
	return Str(a + b)
}

func toFloat(v Value) float64 {
	if v.k == KInt {
		return float64(int64(v.n))
	}
	return v.Float()
}

func (th *Thread) intArith(pos syntax.Pos, op syntax.Token, a, b int64) Value {
	switch op {
	case syntax.PLUS:
		s := a + b
		if (a^s)&(b^s) < 0 {
			th.Fail(pos, "integer overflow: %d + %d", a, b)
		}
		return Int(s)
	case syntax.MINUS:
		s := a - b
		if (a^b)&(a^s) < 0 {
			th.Fail(pos, "integer overflow: %d - %d", a, b)
		}
		return Int(s)
	case syntax.STAR:
		if a == 0 || b == 0 {
			return Int(0)
		}
		s := a * b
		if s/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			th.Fail(pos, "integer overflow: %d * %d", a, b)
		}
		return Int(s)
	case syntax.SLASH:
		if b == 0 {
			th.Fail(pos, "division by zero")
		}
		if a == math.MinInt64 && b == -1 {
			th.Fail(pos, "integer overflow: %d / %d", a, b)
		}
		return Int(a / b)
	case syntax.PERCENT:
		if b == 0 {
			th.Fail(pos, "division by zero")
		}
		if b == -1 {
			return Int(0)
		}
		return Int(a % b)
	}
	th.Fail(pos, "unsupported operator %s", op)
	return Value{}
}

// compare returns -1, 0 or 1 for numbers and strings.
func (th *Thread) compare(pos syntax.Pos, op syntax.Token, x, y Value) int {
	switch {
	case x.k == KInt && y.k == KInt:
		a, b := int64(x.n), int64(y.n)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	case (x.k == KInt || x.k == KFloat) && (y.k == KInt || y.k == KFloat):
		a, b := toFloat(x), toFloat(y)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		case a == b:
			return 0
		}
		return 2 // NaN: every comparison is false
	case x.k == KStr && y.k == KStr:
		th.charge(int64(min(x.n, y.n)))
		return strings.Compare(x.Str(), y.Str())
	case x.k == KDec || y.k == KDec:
		if a, b := decOf(x), decOf(y); a != nil && b != nil {
			return decCmp(a, b)
		}
	}
	th.Fail(pos, "cannot compare %s %s %s", x.typeName(), op, y.typeName())
	return 0
}

func cmpResult(op syntax.Token, c int) bool {
	if c == 2 {
		return false
	}
	switch op {
	case syntax.LT:
		return c < 0
	case syntax.GT:
		return c > 0
	case syntax.LE:
		return c <= 0
	case syntax.GE:
		return c >= 0
	}
	return false
}

// equal is structural equality; Int and Float compare numerically, Unit
// equals None.
func (th *Thread) equal(x, y Value) bool { return th.equalDepth(x, y, 0) }

func (th *Thread) equalDepth(x, y Value, depth int) bool {
	if depth > maxNesting {
		th.Failf("value nested deeper than %d", maxNesting)
	}
	th.step(1)
	if x.k != y.k {
		switch {
		case (x.k == KInt || x.k == KFloat) && (y.k == KInt || y.k == KFloat):
			return toFloat(x) == toFloat(y)
		case x.k == KDec && y.k == KInt || x.k == KInt && y.k == KDec:
			return decCmp(decOf(x), decOf(y)) == 0
		case (x.k == KNull || x.k == KNone) && (y.k == KNull || y.k == KNone):
			return true
		}
		return false
	}
	switch x.k {
	case KNull, KNone:
		return true
	case KBool, KInt:
		return x.n == y.n
	case KFloat:
		return x.Float() == y.Float()
	case KDec:
		return decCmp(x.dec(), y.dec()) == 0
	case KStr:
		th.charge(int64(x.n))
		return x.Str() == y.Str()
	case KList:
		if x.p == y.p {
			return true
		}
		return th.equalSlices(x.List().elems, y.List().elems, depth)
	case KTuple:
		return th.equalSlices(x.Tuple(), y.Tuple(), depth)
	case KObject:
		a, b := x.Object(), y.Object()
		if a == b {
			return true
		}
		if a.Len() != b.Len() {
			return false
		}
		for i, k := range a.keys {
			bv, ok := b.Get(k)
			if !ok || !th.equalDepth(a.vals[i], bv, depth+1) {
				return false
			}
		}
		return true
	case KSome, KOk, KErr:
		return th.equalDepth(x.Inner(), y.Inner(), depth+1)
	case KTagged:
		a, b := x.tagged(), y.tagged()
		return a.ctor == b.ctor && th.equalSlices(a.fields, b.fields, depth)
	case KFunc, KBuiltin:
		return x.p == y.p
	case KNamespace:
		return x.n == y.n
	case KRegex:
		return x.regex().String() == y.regex().String()
	case KMatch:
		return th.equalSlices(x.match().groups, y.match().groups, depth)
	}
	return false
}

func (th *Thread) equalSlices(a, b []Value, depth int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !th.equalDepth(a[i], b[i], depth+1) {
			return false
		}
	}
	return true
}

// contains implements x in c: an element of a list or tuple (==), a key
// of a map, a substring of a string.
func (th *Thread) contains(pos syntax.Pos, c, x Value) bool {
	switch c.k {
	case KList, KTuple:
		var elems []Value
		if c.k == KList {
			elems = c.List().elems
		} else {
			elems = c.Tuple()
		}
		for _, e := range elems {
			if th.equal(e, x) {
				return true
			}
		}
		return false
	case KObject:
		if x.k != KStr {
			th.Fail(pos, "in a map needs a str key, got %s", x.typeName())
		}
		_, ok := c.Object().Get(x.Str())
		return ok
	case KStr:
		if x.k != KStr {
			th.Fail(pos, "in a str needs a str, got %s", x.typeName())
		}
		th.charge(int64(c.n))
		return strings.Contains(c.Str(), x.Str())
	}
	th.Fail(pos, "in needs a list, tuple, map or str on its right, got %s", c.typeName())
	return false
}
