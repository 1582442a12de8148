package eval

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The methods of strings: each function is named by the impl of its row
// under receiver str of the library contract, whose generated table
// (methodTables, library.gen.go) binds it; aliases share one.

func strLen(th *Thread, r Value, _ [3]Value) Value {
	return Int(int64(utf8.RuneCountInString(r.Str())))
}

func strIsEmpty(th *Thread, r Value, _ [3]Value) Value { return Bool(r.n == 0) }

func strToUpper(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toUpper) }

func strToLower(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toLower) }

func strTrim(th *Thread, r Value, _ [3]Value) Value { return Str(strings.TrimSpace(r.Str())) }

func strTrimStart(th *Thread, r Value, _ [3]Value) Value {
	return Str(strings.TrimLeft(r.Str(), " \t\r\n\f\v"))
}

func strTrimEnd(th *Thread, r Value, _ [3]Value) Value {
	return Str(strings.TrimRight(r.Str(), " \t\r\n\f\v"))
}

func strContains(th *Thread, r Value, a [3]Value) Value {
	return Bool(strings.Contains(r.Str(), th.strArg("contains", a[0])))
}

func strStartsWith(th *Thread, r Value, a [3]Value) Value {
	return Bool(strings.HasPrefix(r.Str(), th.strArg("starts_with", a[0])))
}

func strEndsWith(th *Thread, r Value, a [3]Value) Value {
	return Bool(strings.HasSuffix(r.Str(), th.strArg("ends_with", a[0])))
}

func strSplit(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	if a[0].k == kAbsent {
		return th.strList(strings.Fields(s), int64(len(s)))
	}
	return th.strList(strings.Split(s, th.strArg("split", a[0])), int64(len(s)))
}

func strChars(th *Thread, r Value, _ [3]Value) Value {
	return th.strList(strings.Split(r.Str(), ""), int64(r.n))
}

func strLines(th *Thread, r Value, _ [3]Value) Value {
	s := r.Str()
	text := strings.TrimSuffix(s, "\n")
	if text == "" {
		return NewList([]Value{})
	}
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return th.strList(parts, int64(len(s)))
}

func strReplace(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	old, nw := th.strArg("replace", a[0]), th.strArg("replace", a[1])
	if n := int64(strings.Count(s, old)); n > 0 {
		th.checkSize(int64(len(s)) + n*(int64(len(nw))-int64(len(old))))
	}
	th.allocate(int64(len(s)))
	return Str(strings.ReplaceAll(s, old, nw))
}

func strCount(th *Thread, r Value, a [3]Value) Value {
	return Int(int64(strings.Count(r.Str(), th.strArg("count", a[0]))))
}

func strRepeat(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	n := int64(1)
	if a[0].k != kAbsent {
		n = th.intArg("repeat", a[0])
	}
	if n < 0 {
		th.Failf("repeat count must not be negative, got %d", n)
	}
	if len(s) > 0 && n > math.MaxInt64/int64(len(s)) {
		th.limit(LimitValueSize, th.opts.MaxValueBytes)
	}
	th.checkSize(int64(len(s)) * n)
	th.allocate(int64(len(s)) * n)
	return Str(strings.Repeat(s, int(n)))
}

func strSlice(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	if isASCII(s) {
		lo, hi := sliceBounds(a[0], a[1], len(s))
		return Str(s[lo:hi])
	}
	runes := []rune(s)
	lo, hi := sliceBounds(a[0], a[1], len(runes))
	return Str(string(runes[lo:hi]))
}

func strIndexOf(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	i := strings.Index(s, th.strArg("index_of", a[0]))
	if i < 0 {
		return None
	}
	return Some(Int(int64(utf8.RuneCountInString(s[:i]))))
}

func strCharAt(th *Thread, r Value, a [3]Value) Value {
	s := r.Str()
	i := th.intArg("char_at", a[0])
	n := int64(utf8.RuneCountInString(s))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return None
	}
	for off := 0; off < len(s); {
		_, size := decodeRune(s[off:])
		if i == 0 {
			return Some(Str(s[off : off+size]))
		}
		i--
		off += size
	}
	return None
}

func strPadStart(th *Thread, r Value, a [3]Value) Value {
	return th.pad("pad_start", r.Str(), a[0], a[1], true)
}

func strPadEnd(th *Thread, r Value, a [3]Value) Value {
	return th.pad("pad_end", r.Str(), a[0], a[1], false)
}

func strIsAlpha(th *Thread, r Value, _ [3]Value) Value {
	return Bool(allRunes(r.Str(), unicode.IsLetter))
}

func strIsDigit(th *Thread, r Value, _ [3]Value) Value { return Bool(allRunes(r.Str(), isASCIIDigit)) }

func strIsAlnum(th *Thread, r Value, _ [3]Value) Value {
	return Bool(allRunes(r.Str(), func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }))
}

func strIsUpper(th *Thread, r Value, _ [3]Value) Value {
	return Bool(isCase(r.Str(), unicode.IsUpper, unicode.IsLower))
}

func strIsLower(th *Thread, r Value, _ [3]Value) Value {
	return Bool(isCase(r.Str(), unicode.IsLower, unicode.IsUpper))
}

func strOrd(th *Thread, r Value, _ [3]Value) Value {
	if r.n == 0 {
		return Int(0)
	}
	c, _ := utf8.DecodeRuneInString(r.Str())
	return Int(int64(c))
}

func strToInt(th *Thread, r Value, _ [3]Value) Value {
	return resultToOption(biParseInt(th, []Value{r}))
}

func strToFloat(th *Thread, r Value, _ [3]Value) Value {
	return resultToOption(biParseFloat(th, []Value{r}))
}

func strToStr(th *Thread, r Value, _ [3]Value) Value { return r }
