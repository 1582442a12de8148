package eval

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The method table of strings (methodTables in methods.go lists every
// table).

var strMethods = []*Method{
	{Name: "len", Sig: Signature{Result: "int", Notes: "characters, not bytes (differs: the reference counts bytes)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(utf8.RuneCountInString(r.Str()))) }},
	{Name: "chars_count", Sig: Signature{Result: "int", Notes: "characters, as len"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(utf8.RuneCountInString(r.Str()))) }},
	{Name: "is_empty", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.n == 0) }},
	{Name: "to_upper", Sig: Signature{Result: "str", Notes: "also to_uppercase"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toUpper) }},
	{Name: "to_uppercase", Sig: Signature{Result: "str", Notes: "the reference's name of to_upper"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toUpper) }},
	{Name: "to_lower", Sig: Signature{Result: "str", Notes: "also to_lowercase"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toLower) }},
	{Name: "to_lowercase", Sig: Signature{Result: "str", Notes: "the reference's name of to_lower"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.mapCase(r, toLower) }},
	{Name: "trim", Sig: Signature{Result: "str", Notes: "removes white space at both ends"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Str(strings.TrimSpace(r.Str())) }},
	{Name: "trim_start", Sig: Signature{Result: "str"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Str(strings.TrimLeft(r.Str(), " \t\r\n\f\v")) }},
	{Name: "trim_end", Sig: Signature{Result: "str"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Str(strings.TrimRight(r.Str(), " \t\r\n\f\v")) }},
	{Name: "contains", Sig: Signature{Params: pStr("s"), Result: "bool"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return Bool(strings.Contains(r.Str(), th.strArg("contains", a[0])))
		}},
	{Name: "starts_with", Sig: Signature{Params: pStr("prefix"), Result: "bool", Notes: "fails on an argument that is not a str (differs: the reference gives false)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return Bool(strings.HasPrefix(r.Str(), th.strArg("starts_with", a[0])))
		}},
	{Name: "ends_with", Sig: Signature{Params: pStr("suffix"), Result: "bool", Notes: "as starts_with"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return Bool(strings.HasSuffix(r.Str(), th.strArg("ends_with", a[0])))
		}},
	{Name: "split", Sig: Signature{Params: []Param{{Name: "sep", Type: "str", Optional: true}}, Result: "list[str]",
		Notes: "without sep: the words between runs of white space, none empty (differs: the reference splits on each single space); with sep: every piece, empty ones too; sep \"\" gives the characters"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			s := r.Str()
			if a[0].k == kAbsent {
				return th.strList(strings.Fields(s), int64(len(s)))
			}
			return th.strList(strings.Split(s, th.strArg("split", a[0])), int64(len(s)))
		}},
	{Name: "chars", Sig: Signature{Result: "list[str]", Notes: "the characters, each a string"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.strList(strings.Split(r.Str(), ""), int64(r.n)) }},
	{Name: "lines", Sig: Signature{Result: "list[str]", Notes: "without the line ends (\\n or \\r\\n); no last empty line (extension)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
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
		}},
	{Name: "replace", Sig: Signature{Params: []Param{{Name: "old", Type: "str"}, {Name: "new", Type: "str"}}, Result: "str", Notes: "every occurrence"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			s := r.Str()
			old, nw := th.strArg("replace", a[0]), th.strArg("replace", a[1])
			if n := int64(strings.Count(s, old)); n > 0 {
				th.checkSize(int64(len(s)) + n*(int64(len(nw))-int64(len(old))))
			}
			th.allocate(int64(len(s)))
			return Str(strings.ReplaceAll(s, old, nw))
		}},
	{Name: "count", Sig: Signature{Params: pStr("s"), Result: "int", Notes: "occurrences that do not overlap; of \"\": the characters plus one"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return Int(int64(strings.Count(r.Str(), th.strArg("count", a[0]))))
		}},
	{Name: "repeat", Sig: Signature{Params: []Param{{Name: "n", Type: "int", Optional: true, Default: "1"}}, Result: "str", Notes: "n must not be negative"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
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
		}},
	{Name: "slice", Sig: Signature{Params: pSlice, Result: "str", Notes: "by characters; negative bounds count from the end; out-of-range bounds are clamped"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			s := r.Str()
			if isASCII(s) {
				lo, hi := sliceBounds(a[0], a[1], len(s))
				return Str(s[lo:hi])
			}
			runes := []rune(s)
			lo, hi := sliceBounds(a[0], a[1], len(runes))
			return Str(string(runes[lo:hi]))
		}},
	{Name: "index_of", Sig: Signature{Params: pStr("s"), Result: "Option[int]", Notes: "the character index of the first occurrence"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			s := r.Str()
			i := strings.Index(s, th.strArg("index_of", a[0]))
			if i < 0 {
				return None
			}
			return Some(Int(int64(utf8.RuneCountInString(s[:i]))))
		}},
	{Name: "char_at", Sig: Signature{Params: pIndex, Result: "Option[str]", Notes: "negative indices count from the end"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
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
		}},
	{Name: "pad_start", Sig: Signature{Params: pPad, Result: "str", Notes: "fill (one character) added before s up to width characters; s when it is as long (extension)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pad("pad_start", r.Str(), a[0], a[1], true) }},
	{Name: "pad_end", Sig: Signature{Params: pPad, Result: "str", Notes: "fill added after s up to width characters (extension)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pad("pad_end", r.Str(), a[0], a[1], false) }},
	{Name: "is_alpha", Sig: Signature{Result: "bool", Notes: "not empty, and every character a letter"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(allRunes(r.Str(), unicode.IsLetter)) }},
	{Name: "is_digit", Sig: Signature{Result: "bool", Notes: "not empty, and every character one of 0-9"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(allRunes(r.Str(), isASCIIDigit)) }},
	{Name: "is_alnum", Sig: Signature{Result: "bool", Notes: "not empty, and every character a letter or a digit"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			return Bool(allRunes(r.Str(), func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }))
		}},
	{Name: "is_upper", Sig: Signature{Result: "bool", Notes: "has a letter, and no lower-case one"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			return Bool(isCase(r.Str(), unicode.IsUpper, unicode.IsLower))
		}},
	{Name: "is_lower", Sig: Signature{Result: "bool", Notes: "has a letter, and no upper-case one"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			return Bool(isCase(r.Str(), unicode.IsLower, unicode.IsUpper))
		}},
	{Name: "ord", Sig: Signature{Result: "int", Notes: "the code point of the first character; 0 for \"\""},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.n == 0 {
				return Int(0)
			}
			c, _ := utf8.DecodeRuneInString(r.Str())
			return Int(int64(c))
		}},
	{Name: "to_int", Sig: Signature{Result: "Option[int]", Notes: "the decimal int the string holds, white space around it ignored; None otherwise (parse_int says why)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return resultToOption(biParseInt(th, []Value{r})) }},
	{Name: "to_float", Sig: Signature{Result: "Option[float]", Notes: "as parse_float, None when it fails"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return resultToOption(biParseFloat(th, []Value{r})) }},
	{Name: "to_str", Sig: Signature{Result: "str", Notes: "the string itself; also to_string"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return r }},
	{Name: "to_string", Sig: Signature{Result: "str", Notes: "the string itself"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return r }},
}
