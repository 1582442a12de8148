package eval

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/syntax"
)

// kAbsent marks an optional method argument that was not given.
const kAbsent Kind = 254

var absent = Value{k: kAbsent}

// margs normalises the arguments of a method to its parameters: named
// arguments go to their parameter, missing ones are absent, and the
// required parameters must be present.
//
// It returns an array, not a slice, so that a method call allocates
// nothing for its arguments; methods have at most three parameters.
func (th *Thread) margs(recv Value, m *Method, args []Value, names []string) [3]Value {
	out := [3]Value{absent, absent, absent}
	params := m.params
	if names == nil && len(args) >= m.required && len(args) <= len(params) {
		copy(out[:], args) // the common case: positional and complete
		return out
	}
	pos := 0
	for i, a := range args {
		j := pos
		if names != nil && names[i] != "" {
			j = slices.IndexFunc(params, func(p Param) bool { return p.Name == names[i] })
			if j < 0 {
				th.Failf("%s.%s: unknown argument %s", recv.typeName(), m.Name, names[i])
			}
		} else {
			pos++
			if j >= len(params) {
				th.Failf("%s.%s takes at most %d argument(s), got %d", recv.typeName(), m.Name, len(params), len(args))
			}
		}
		out[j] = a
	}
	for j := 0; j < m.required; j++ {
		if out[j].k == kAbsent {
			th.Failf("%s.%s: missing argument %s", recv.typeName(), m.Name, params[j].Name)
		}
	}
	return out
}

func (th *Thread) strArg(method string, v Value) string {
	if v.k != KStr {
		th.Failf("%s needs a str, got %s", method, v.typeName())
	}
	return v.Str()
}

func (th *Thread) intArg(method string, v Value) int64 {
	if v.k != KInt {
		th.Failf("%s needs an int, got %s", method, v.typeName())
	}
	return int64(v.n)
}

// Method is one entry of a method table: name, signature and
// implementation. The implementation gets the arguments normalised to the
// parameters by margs (absent where an optional one was left out).
//
// A method that changes its receiver (docs/vox-language.md, Values) has
// an update: it changes recv, a list or map the interpreter has made
// unique, in place, and returns the method's result. With mutates set
// (push, pop, sort) the method always changes the place it is called on,
// and fn is not set; without it, fn returns a new value and update is
// the faster form of a statement that writes the result back (m.insert(k,
// v) on its own line). An update shares what it stores (cow.go).
type Method struct {
	Name    string
	Sig     Signature
	Mutates bool // changes the place it is called on (see update)

	fn       func(th *Thread, recv Value, a [3]Value) Value
	update   func(th *Thread, recv Value, a [3]Value) Value
	required int
	params   []Param // of the longest form: named arguments bind by them
}

// MethodTable is the methods of one receiver type.
type MethodTable struct {
	Receiver string // the receiver's type as docs and a checker write it
	Methods  []*Method

	kinds []Kind
	index map[string]*Method
}

// MethodTables returns every method table, in the order of the reference
// in docs/vox-language.md. The tables must not be changed.
func MethodTables() []*MethodTable { return methodTables }

// The method tables, one per receiver type, as go.starlark.net keeps
// stringMethods and listMethods. Adding a method is an entry here, its
// test and a sentence in docs/vox-language.md; the reference table there
// is generated from these.
var methodTables []*MethodTable

// anyTable holds the methods of every value (to_str).
var anyTable *MethodTable

func init() {
	methodTables = []*MethodTable{
		{Receiver: "str", kinds: []Kind{KStr}, Methods: strMethods},
		{Receiver: "list[T]", kinds: []Kind{KList}, Methods: listMethods},
		{Receiver: "tuple", kinds: []Kind{KTuple}, Methods: tupleMethods},
		{Receiver: "map[str, V]", kinds: []Kind{KObject}, Methods: mapMethods},
		{Receiver: "N: int | float", kinds: []Kind{KInt, KFloat}, Methods: numberMethods},
		{Receiver: "Option[T]", kinds: []Kind{KSome, KNone}, Methods: optionMethods},
		{Receiver: "Result[T, E]", kinds: []Kind{KOk, KErr}, Methods: resultMethods},
		{Receiver: "Unit", kinds: []Kind{KNull}, Methods: unitMethods},
		{Receiver: "any", Methods: anyMethods},
	}
	anyTable = methodTables[len(methodTables)-1]
	indexMethods()
}

// methodsByKind is the table of each kind of receiver; anyMethods apply
// to every kind after it.
var methodsByKind [kindCount]*MethodTable

func indexMethods() {
	for _, t := range methodTables {
		t.index = make(map[string]*Method, len(t.Methods))
		for _, m := range t.Methods {
			m.params = m.Sig.longestParams()
			if (m.fn == nil) != m.Mutates || m.Mutates && m.update == nil || len(m.params) > 3 || t.index[m.Name] != nil {
				panic("eval: bad method " + t.Receiver + "." + m.Name)
			}
			m.required, _ = m.Sig.Arity()
			t.index[m.Name] = m
		}
		for _, k := range t.kinds {
			methodsByKind[k] = t
		}
	}
}

// lookupMethod returns the method name of a receiver of kind k, or nil.
func lookupMethod(k Kind, name string) *Method {
	if k == KNamespace || k == kCell {
		return nil // a namespace's methods are its capability functions
	}
	if int(k) < len(methodsByKind) {
		if t := methodsByKind[k]; t != nil {
			if m := t.index[name]; m != nil {
				return m
			}
		}
	}
	return anyTable.index[name]
}

// callMethod runs method m of recv, which it does not change.
func (th *Thread) callMethod(m *Method, recv Value, args []Value, names []string) Value {
	if recv.k == KStr {
		th.charge(int64(recv.n)) // string methods scan their receiver
	}
	a := th.margs(recv, m, args, names)
	if m.fn == nil { // a mutating method: it changes a copy
		return m.update(th, th.fresh(recv), a)
	}
	return m.fn(th, recv, a)
}

// callUpdate runs the update of method m on recv, a unique list or map.
func (th *Thread) callUpdate(m *Method, recv Value, args []Value, names []string) Value {
	return m.update(th, recv, th.margs(recv, m, args, names))
}

// fresh returns an unshared copy of a list or map (v itself otherwise).
func (th *Thread) fresh(v Value) Value {
	switch v.k {
	case KList:
		return listValue(th.copyList(v.List()))
	case KObject:
		return NewObject(th.copyObject(v.Object()))
	}
	return v
}

// method calls the method name of recv, or fails saying it has none. A
// namespace's methods are its capability functions.
func (th *Thread) method(recv Value, name string, args []Value, names []string) Value {
	if recv.k == KNamespace {
		v := th.callNS(recv.Str(), name, args, names)
		shareResult(v, Unit, args)
		return v
	}
	if m := lookupMethod(recv.k, name); m != nil {
		v := th.callMethod(m, recv, args, names)
		shareResult(v, recv, args)
		return v
	}
	if recv.k == KStr {
		th.charge(int64(recv.n))
	}
	th.Failf("%s has no method %s", recv.typeName(), name)
	return Unit
}

// Signatures of the tables below.
var (
	pStr        = func(name string) []Param { return []Param{{Name: name, Type: "str"}} }
	pIndex      = []Param{{Name: "index", Type: "int"}}
	pSlice      = []Param{{Name: "start", Type: "int", Optional: true, Default: "0"}, {Name: "end", Type: "int", Optional: true}}
	pPad        = []Param{{Name: "width", Type: "int"}, {Name: "fill", Type: "str", Optional: true, Default: `" "`}}
	pPred       = []Param{{Name: "f", Type: "fn(T) to bool"}}
	pValue      = []Param{{Name: "value", Type: "T"}}
	pKeyDefault = []Param{{Name: "key", Type: "str"}, {Name: "default", Type: "V"}}
	toStrSig    = Signature{Result: "str", Notes: "the display form"}
)

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

var listMethods = []*Method{
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.List().elems))) }},
	{Name: "is_empty", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(len(r.List().elems) == 0) }},
	{Name: "push", Mutates: true, Sig: Signature{Params: []Param{{Name: "value", Type: "T"}}, Result: "list[T]", Notes: "appends value and returns the list; called on a variable (or a field or element of one), it changes it"},
		update: func(th *Thread, r Value, a [3]Value) Value {
			l := r.List()
			size := l.size + 16 + a[0].size()
			th.checkSize(size)
			a[0].share()
			l.elems = appendValue(l.elems, a[0])
			l.size = size
			return r
		}},
	{Name: "pop", Mutates: true, Sig: Signature{Result: "T | Unit", Notes: "removes the last element and returns it, Unit (which equals None) when the list is empty; on a variable, it changes it"},
		update: func(th *Thread, r Value, _ [3]Value) Value {
			l := r.List()
			if len(l.elems) == 0 {
				return Unit
			}
			v := l.elems[len(l.elems)-1]
			l.elems[len(l.elems)-1] = Unit
			l.elems = l.elems[:len(l.elems)-1]
			l.size -= 16 + v.size()
			return v
		}},
	{Name: "sort", Mutates: true, Sig: Signature{Result: "list[T]", Notes: "sorts the list as sorted(xs) does and returns it; on a variable, it changes it (extension)"},
		update: func(th *Thread, r Value, _ [3]Value) Value {
			th.sortValues(r.List().elems)
			return r
		}},
	{Name: "extend", Sig: Signature{Params: []Param{{Name: "other", Type: "list[T]"}}, Result: "list[T]", Notes: "the list followed by the elements of other"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "extend", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "extend", r, a) }},
	{Name: "remove", Sig: Signature{Params: []Param{{Name: "value", Type: "T"}}, Result: "list[T]", Notes: "the list without the first element equal to value (unchanged when there is none)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "remove", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "remove", r, a) }},
	{Name: "remove_at", Sig: Signature{Params: pIndex, Result: "list[T]", Notes: "the list without the element at index (negative counts from the end; unchanged when out of range)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			return listMethodsUpdate(th, "remove_at", th.fresh(r), a)
		},
		update: func(th *Thread, r Value, a [3]Value) Value { return listMethodsUpdate(th, "remove_at", r, a) }},
	{Name: "first", Sig: Signature{Result: "Option[T]"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if l := r.List(); len(l.elems) > 0 {
				return Some(l.elems[0])
			}
			return None
		}},
	{Name: "last", Sig: Signature{Result: "Option[T]"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if l := r.List(); len(l.elems) > 0 {
				return Some(l.elems[len(l.elems)-1])
			}
			return None
		}},
	{Name: "get", Sig: Signature{Params: pIndex, Result: "Option[T]", Notes: "negative indices count from the end"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.List().elems, a[0]) }},
	{Name: "contains", Sig: Signature{Params: pValue, Result: "bool", Notes: "compares with =="},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Bool(th.indexOf(r.List().elems, a[0]) >= 0) }},
	{Name: "join", Sig: Signature{Params: []Param{{Name: "sep", Type: "str", Optional: true, Default: `""`}}, Result: "str", Notes: "elements that are not strings in display form"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			sep := ""
			if a[0].k != kAbsent {
				sep = th.strArg("join", a[0])
			}
			var b strings.Builder
			for i, e := range r.List().elems {
				if i > 0 {
					b.WriteString(sep)
				}
				if e.k == KStr {
					b.WriteString(e.Str())
				} else {
					b.WriteString(th.display(e))
				}
				if i&1023 == 0 {
					th.checkSize(int64(b.Len()))
				}
			}
			th.checkSize(int64(b.Len()))
			th.allocate(int64(b.Len()))
			return Str(b.String())
		}},
	{Name: "reverse", Sig: Signature{Result: "list[T]", Notes: "the list reversed"},
		fn:     func(th *Thread, r Value, _ [3]Value) Value { return th.reversed(r.List()) },
		update: func(th *Thread, r Value, _ [3]Value) Value { slices.Reverse(r.List().elems); return r }},
	{Name: "reversed", Sig: Signature{Result: "list[T]", Notes: "as reverse"},
		fn:     func(th *Thread, r Value, _ [3]Value) Value { return th.reversed(r.List()) },
		update: func(th *Thread, r Value, _ [3]Value) Value { slices.Reverse(r.List().elems); return r }},
	{Name: "sorted", Sig: Signature{Result: "list[T]", Notes: "the list sorted, as sorted(xs)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.sortedList(r.List().elems) },
		update: func(th *Thread, r Value, _ [3]Value) Value {
			th.sortValues(r.List().elems)
			return r
		}},
	{Name: "slice", Sig: Signature{Params: pSlice, Result: "list[T]", Notes: "a new list; negative bounds count from the end; out-of-range bounds are clamped"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.sliceList(r.List(), a[0], a[1]) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "list[U]"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			elems := r.List().elems
			out := make([]Value, len(elems))
			size := 16 * int64(len(elems))
			th.checkSize(size)
			th.allocate(size)
			for i, e := range elems {
				out[i] = th.call1(a[0], e)
				size += out[i].size()
			}
			th.checkSize(size)
			return listValue(&List{elems: out, size: size})
		}},
	{Name: "filter", Sig: Signature{Params: pPred, Result: "list[T]", Notes: "f must return a bool"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			// Room for every element, so that the kept ones are never
			// copied as the list grows; a result under half of it is
			// copied once to its size, so as not to keep the room.
			elems := r.List().elems
			th.allocate(16 * int64(len(elems)))
			out := make([]Value, 0, len(elems))
			var size int64
			for _, e := range elems {
				if th.predicate(a[0], e) {
					out = append(out, e)
					size += 16 + e.size()
				}
			}
			if len(out) < cap(out)/2 {
				out = slices.Clip(slices.Clone(out))
			}
			if out == nil {
				out = []Value{}
			}
			return listValue(&List{elems: out, size: size})
		}},
	{Name: "any", Sig: Signature{Params: pPred, Result: "bool", Notes: "stops at the first true"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				if th.predicate(a[0], e) {
					return True
				}
			}
			return False
		}},
	{Name: "all", Sig: Signature{Params: pPred, Result: "bool", Notes: "stops at the first false"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				if !th.predicate(a[0], e) {
					return False
				}
			}
			return True
		}},
	{Name: "fold", Sig: Signature{Params: []Param{{Name: "init", Type: "A"}, {Name: "f", Type: "fn(A, T) to A"}}, Result: "A"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			acc := a[0]
			acc.share()
			for _, e := range r.List().elems {
				acc = th.callAcc(a[1], acc, e)
			}
			return acc
		}},
	{Name: "sort_by_key", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to K"}}, Result: "list[T]", Notes: "the list ordered by f's results, stable"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(r, a[0]) }},
	{Name: "sorted_by_key", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to K"}}, Result: "list[T]", Notes: "as sort_by_key"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortByKey(r, a[0]) }},
	{Name: "sort_by", Sig: Signature{Params: []Param{{Name: "cmp", Type: "fn(T, T) to int"}}, Result: "list[T]", Notes: "the list ordered by cmp, stable: cmp(a, b) is negative when a goes first, positive when b does"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(r, a[0]) }},
	{Name: "sorted_by", Sig: Signature{Params: []Param{{Name: "cmp", Type: "fn(T, T) to int"}}, Result: "list[T]", Notes: "as sort_by"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(th.fresh(r), a[0]) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.sortBy(r, a[0]) }},
	{Name: "slice_list", Sig: Signature{Params: pSlice, Result: "list[T]", Notes: "the reference's name of slice"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.sliceList(r.List(), a[0], a[1]) }},
	{Name: "index", Sig: Signature{Params: pValue, Result: "int", Notes: "the position of the first element == value; -1 when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.indexOf(r.List().elems, a[0]))) }},
	{Name: "find_index", Sig: Signature{Params: pValue, Result: "int", Notes: "as index"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.indexOf(r.List().elems, a[0]))) }},
	{Name: "count", Sig: Signature{Params: pValue, Result: "int", Notes: "the elements == value"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return Int(int64(th.countOf(r.List().elems, a[0]))) }},
	{Name: "find", Sig: Signature{Params: pPred, Result: "Option[T]", Notes: "the first element for which f is true (extension)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.find(r.List().elems, a[0]) }},
	{Name: "zip", Sig: Signature{Params: []Param{{Name: "other", Type: "list[U]"}}, Result: "list[list[T | U]]", Notes: "[x, y] pairs, as many as the shorter list has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.zip(r.List().elems, th.listArg("zip", a[0])) }},
	{Name: "enumerate", Sig: Signature{Result: "list[list[int | T]]", Notes: "[index, element] pairs"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.enumerate(r.List().elems) }},
	{Name: "sum", Sig: Signature{Result: "T", Notes: "of a list of numbers, as sum(xs)"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.sum("sum", r.List().elems) }},
	{Name: "min", Sig: Signature{Result: "Option[T]", Notes: "the smallest element; None when empty"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.extremumOption("min", r.List().elems, -1) }},
	{Name: "max", Sig: Signature{Result: "Option[T]", Notes: "the largest element; None when empty"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.extremumOption("max", r.List().elems, 1) }},
	{Name: "flatten", Sig: Signature{Result: "list[U]", Notes: "of a list[list[U]]: the elements of the inner lists, one level deep; an element that is not a list stays as it is"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.flatMap("flatten", r.List().elems, Value{}) }},
	{Name: "flat_map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to list[U] | Option[U]"}}, Result: "list[U]", Notes: "the lists f returns, joined; an Option counts as a list of none or one"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.flatMap("flat_map", r.List().elems, a[0]) }},
	{Name: "for_each", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to any"}}, Result: "Unit", Notes: "calls f on each element"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			for _, e := range r.List().elems {
				th.call1(a[0], e)
			}
			return Unit
		}},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "Some(len): the reference's JSON helper"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Some(Int(int64(len(r.List().elems)))) }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[T]", Notes: "as get, but a negative index is None (the reference's JSON helper)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if th.intArg("at", a[0]) < 0 {
				return None
			}
			return th.getOption(r.List().elems, a[0])
		}},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "the value at a JSON Pointer (RFC 6901) such as `/items/0/name`; None when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
}

// appendValue appends v to elems, doubling the capacity when it is full:
// append grows a large slice by a quarter, which for a list built by
// push copies its elements about four times over instead of once.
func appendValue(elems []Value, v Value) []Value {
	if len(elems) == cap(elems) && len(elems) >= 256 {
		grown := make([]Value, len(elems), 2*len(elems))
		copy(grown, elems)
		elems = grown
	}
	return append(elems, v)
}

// sortByKey sorts the unique list r by f's results, in place, stably.
func (th *Thread) sortByKey(r Value, f Value) Value {
	l := r.List()
	type pair struct{ key, v Value }
	pairs := make([]pair, len(l.elems))
	th.allocate(32 * int64(len(pairs)))
	for i, e := range l.elems {
		pairs[i] = pair{th.call1(f, e), e}
	}
	pos := th.callPos
	slices.SortStableFunc(pairs, func(x, y pair) int {
		c := th.compare(pos, syntax.LT, x.key, y.key)
		if c == 2 {
			return 0
		}
		return c
	})
	for i, p := range pairs {
		l.elems[i] = p.v
	}
	return r
}

// sortBy sorts the unique list r by the comparator cmp, in place, stably.
func (th *Thread) sortBy(r Value, cmp Value) Value {
	l := r.List()
	slices.SortStableFunc(l.elems, func(x, y Value) int {
		c := th.call2(cmp, x, y)
		if c.k != KInt {
			th.Failf("sort_by: the comparator must return an int, got %s", c.typeName())
		}
		switch n := int64(c.n); {
		case n < 0:
			return -1
		case n > 0:
			return 1
		}
		return 0
	})
	return r
}

// listMethodsUpdate changes the unique list r as the method name does.
func listMethodsUpdate(th *Thread, name string, r Value, a [3]Value) Value {
	l := r.List()
	switch name {
	case "extend":
		var more []Value
		switch a[0].k {
		case KList:
			more = a[0].List().elems
		case KTuple:
			more = a[0].Tuple()
		default:
			th.Failf("extend needs a list, got %s", a[0].typeName())
		}
		size := l.size + a[0].size()
		th.checkSize(size)
		th.allocate(16 * int64(len(more)))
		for _, e := range more {
			e.share()
		}
		l.elems = append(l.elems, more...)
		l.size = size
	case "remove":
		for i, e := range l.elems {
			if th.equal(e, a[0]) {
				l.size -= 16 + e.size()
				l.elems = slices.Delete(l.elems, i, i+1)
				break
			}
		}
	case "remove_at":
		i := th.intArg("remove_at", a[0])
		if i < 0 {
			i += int64(len(l.elems))
		}
		if i >= 0 && i < int64(len(l.elems)) {
			l.size -= 16 + l.elems[i].size()
			l.elems = slices.Delete(l.elems, int(i), int(i)+1)
		}
	}
	return r
}

var tupleMethods = []*Method{
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(len(r.Tuple()))) }},
	{Name: "get", Sig: Signature{Params: pIndex, Result: "Option[any]", Notes: "negative indices count from the end"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.getOption(r.Tuple(), a[0]) }},
}

var mapMethods = []*Method{
	{Name: "keys", Sig: Signature{Result: "list[str]", Notes: "in insertion order"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.strList(r.Object().keys, 0) }},
	{Name: "values", Sig: Signature{Result: "list[V]", Notes: "in insertion order"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			o := r.Object()
			th.allocate(16 * int64(len(o.vals)))
			return NewList(slices.Clone(o.vals))
		}},
	{Name: "items", Sig: Signature{Result: "list[list[str | V]]", Notes: "[key, value] pairs in insertion order; also entries"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.items(r.Object()) }},
	{Name: "entries", Sig: Signature{Result: "list[list[str | V]]", Notes: "as items"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.items(r.Object()) }},
	{Name: "has", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "also contains_key, has_key"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has", r, a[0]) }},
	{Name: "contains_key", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "as has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("contains_key", r, a[0]) }},
	{Name: "has_key", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "as has"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.hasKey("has_key", r, a[0]) }},
	{Name: "get", Sig: Signature{Params: pStr("key"), Result: "Option[V]",
		Overloads: []Signature{{Params: pKeyDefault, Result: "V", Notes: "the value, or default when the key is missing"}}},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			v, ok := r.Object().Get(th.strArg("get", a[0]))
			switch {
			case a[1].k != kAbsent && ok:
				return v
			case a[1].k != kAbsent:
				return a[1]
			case ok:
				return Some(v)
			}
			return None
		}},
	{Name: "get_or", Sig: Signature{Params: pKeyDefault, Result: "V", Notes: "as get(key, default)"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if v, ok := r.Object().Get(th.strArg("get_or", a[0])); ok {
				return v
			}
			return a[1]
		}},
	{Name: "len", Sig: Signature{Result: "int"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Int(int64(r.Object().Len())) }},
	{Name: "is_empty", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.Object().Len() == 0) }},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "Some(len): the reference's JSON helper"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Some(Int(int64(r.Object().Len()))) }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[V]", Notes: "None: a map has no positions (the reference's JSON helper)"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.intArg("at", a[0]); return None }},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "the value at a JSON Pointer (RFC 6901) such as `/items/0/name`; None when there is none"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "insert", Sig: Signature{Params: pKV, Result: "map[str, V]", Notes: "the map with key set to value (a key it has keeps its place)"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("insert", r, a) }},
	{Name: "set", Sig: Signature{Params: pKV, Result: "map[str, V]", Notes: "as insert"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapSet("set", r, a) }},
	{Name: "remove", Sig: Signature{Params: pStr("key"), Result: "map[str, V]", Notes: "the map without key (unchanged when it lacks it)"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("remove", r, a) }},
	{Name: "delete", Sig: Signature{Params: pStr("key"), Result: "map[str, V]", Notes: "as remove"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapDelete("delete", r, a) }},
	{Name: "update", Sig: Signature{Params: []Param{{Name: "other", Type: "map[str, V]"}}, Result: "map[str, V]", Notes: "the map with every key of other set to other's value"},
		fn:     func(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(th.fresh(r), a) },
		update: func(th *Thread, r Value, a [3]Value) Value { return th.mapUpdate(r, a) }},
}

var pKV = []Param{{Name: "key", Type: "str"}, {Name: "value", Type: "V"}}

// mapSet sets a key of the unique map r.
func (th *Thread) mapSet(name string, r Value, a [3]Value) Value {
	o := r.Object()
	a[1].share()
	o.Set(th.strArg(name, a[0]), a[1])
	th.checkSize(o.size)
	return r
}

// mapDelete removes a key from the unique map r.
func (th *Thread) mapDelete(name string, r Value, a [3]Value) Value {
	r.Object().Delete(th.strArg(name, a[0]))
	return r
}

// mapUpdate sets every key of a[0] in the unique map r.
func (th *Thread) mapUpdate(r Value, a [3]Value) Value {
	if a[0].k != KObject {
		th.Failf("update needs a map, got %s", a[0].typeName())
	}
	o, other := r.Object(), a[0].Object()
	for i, k := range other.keys {
		other.vals[i].share()
		o.Set(k, other.vals[i])
	}
	th.checkSize(o.size)
	return r
}

var numberMethods = []*Method{
	{Name: "abs", Sig: Signature{Result: "N"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.absValue(r) }},
	{Name: "min", Sig: Signature{Params: []Param{{Name: "other", Type: "int | float"}}, Result: "int | float", Notes: "the smaller of the two, the receiver on a tie"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], -1) }},
	{Name: "max", Sig: Signature{Params: []Param{{Name: "other", Type: "int | float"}}, Result: "int | float", Notes: "the larger of the two, the receiver on a tie"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pick(r, a[0], 1) }},
	{Name: "floor", Sig: Signature{Result: "int", Notes: "differs: the reference returns a float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("floor", []Value{r}, math.Floor) }},
	{Name: "ceil", Sig: Signature{Result: "int", Notes: "differs: the reference returns a float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.roundWith("ceil", []Value{r}, math.Ceil) }},
	{Name: "round", Sig: Signature{Result: "int", Notes: "half away from zero (differs: the reference returns a float)",
		Overloads: []Signature{{Params: []Param{{Name: "digits", Type: "int"}}, Result: "float", Notes: "as round(x, digits)"}}},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if a[0].k != kAbsent {
				return th.roundDigits(r, a[0])
			}
			return th.roundWith("round", []Value{r}, math.Round)
		}},
	{Name: "sqrt", Sig: Signature{Result: "float"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return biSqrt(th, []Value{r}) }},
}

// pick implements min and max of numbers: other when it compares before
// (sign -1) or after (sign 1) recv.
func (th *Thread) pick(recv, other Value, sign int) Value {
	if th.compare(th.callPos, syntax.LT, other, recv)*sign > 0 {
		return other
	}
	return recv
}

var optionMethods = []*Method{
	{Name: "is_some", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KSome) }},
	{Name: "is_none", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNone) }},
	{Name: "unwrap", Sig: Signature{Result: "T", Notes: "fails on None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "expect", Sig: Signature{Params: pStr("message"), Result: "T", Notes: "fails on None with message"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", Sig: Signature{Params: []Param{{Name: "default", Type: "T"}}, Result: "T"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", Sig: Signature{Result: "T | Unit", Notes: "Unit for None, as in the reference"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "Option[U]", Notes: "None passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to Option[U]"}}, Result: "Option[U]", Notes: "None passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "filter", Sig: Signature{Params: pPred, Result: "Option[T]", Notes: "None unless f is true of the value"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if r.k == KSome && th.predicate(a[0], r.Inner()) {
				return r
			}
			return None
		}},
}

var resultMethods = []*Method{
	{Name: "is_ok", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KOk) }},
	{Name: "is_err", Sig: Signature{Result: "bool"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KErr) }},
	{Name: "ok", Sig: Signature{Result: "Option[T]", Notes: "Some(v) for Ok(v), None for Err"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return resultToOption(r) }},
	{Name: "err", Sig: Signature{Result: "Option[E]", Notes: "Some(e) for Err(e), None for Ok"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k == KErr {
				return Some(r.Inner())
			}
			return None
		}},
	{Name: "unwrap", Sig: Signature{Result: "T", Notes: "fails on Err, naming the error"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.unwrap(r) }},
	{Name: "unwrap_err", Sig: Signature{Result: "E", Notes: "fails on Ok, naming the value"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k != KErr {
				th.Failf("unwrap_err of %s", th.display(r))
			}
			return r.Inner()
		}},
	{Name: "expect", Sig: Signature{Params: pStr("message"), Result: "T", Notes: "fails on Err(e) with `message: e`"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.expect(r, a[0]) }},
	{Name: "unwrap_or", Sig: Signature{Params: []Param{{Name: "default", Type: "T"}}, Result: "T"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return unwrapOr(r, a[0]) }},
	{Name: "unwrap_or_default", Sig: Signature{Result: "T | Unit", Notes: "Unit for Err, as in the reference"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return unwrapOr(r, Unit) }},
	{Name: "map", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to U"}}, Result: "Result[U, E]", Notes: "Err passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.mapInner(r, a[0]) }},
	{Name: "and_then", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(T) to Result[U, E]"}}, Result: "Result[U, E]", Notes: "Err passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.andThen(r, a[0]) }},
	{Name: "map_err", Sig: Signature{Params: []Param{{Name: "f", Type: "fn(E) to F"}}, Result: "Result[T, F]", Notes: "Ok passes through"},
		fn: func(th *Thread, r Value, a [3]Value) Value {
			if r.k != KErr {
				return r
			}
			return ErrVal(th.call1(a[0], r.Inner()))
		}},
}

// unitMethods are the reference's JSON helpers on null, so that code
// walking a parsed document need not test for null first.
var unitMethods = []*Method{
	{Name: "has", Sig: Signature{Params: pStr("key"), Result: "bool", Notes: "false"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("has", a[0]); return False }},
	{Name: "get", Sig: Signature{Params: pStr("key"), Result: "Option[any]", Notes: "None"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.strArg("get", a[0]); return None }},
	{Name: "at", Sig: Signature{Params: pIndex, Result: "Option[any]", Notes: "None"},
		fn: func(th *Thread, r Value, a [3]Value) Value { th.intArg("at", a[0]); return None }},
	{Name: "pointer", Sig: Signature{Params: pStr("path"), Result: "Option[any]", Notes: "None, except Some(Unit) for the whole document (\"\")"},
		fn: func(th *Thread, r Value, a [3]Value) Value { return th.pointer(r, th.strArg("pointer", a[0])) }},
	{Name: "length", Sig: Signature{Result: "Option[int]", Notes: "None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
	{Name: "keys", Sig: Signature{Result: "Option[list[str]]", Notes: "None"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return None }},
}

// holds reports whether an Option or Result holds a value (Some or Ok).
func holds(v Value) bool { return v.k == KSome || v.k == KOk }

// anyMethods apply to every receiver that has no method of the name.
var anyMethods = []*Method{
	{Name: "to_str", Sig: toStrSig,
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "to_string", Sig: Signature{Result: "str", Notes: "as to_str: lists and maps display as compact JSON, as the reference's to_string writes them"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return th.toStr(r) }},
	{Name: "is_null", Sig: Signature{Result: "bool", Notes: "true for Unit only"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return Bool(r.k == KNull) }},
	{Name: "as_str", Sig: Signature{Result: "Option[str]", Notes: "Some for a str, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KStr) }},
	{Name: "as_int", Sig: Signature{Result: "Option[int]", Notes: "Some for an int, and for a float truncated toward zero when it fits; None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return asInt(r) }},
	{Name: "as_float", Sig: Signature{Result: "Option[float]", Notes: "Some for a float or an int; None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value {
			if r.k == KInt || r.k == KFloat {
				return Some(Float(toFloat(r)))
			}
			return None
		}},
	{Name: "as_bool", Sig: Signature{Result: "Option[bool]", Notes: "Some for a bool, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KBool) }},
	{Name: "as_array", Sig: Signature{Result: "Option[list[any]]", Notes: "Some for a list, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KList) }},
	{Name: "as_object", Sig: Signature{Result: "Option[map[str, any]]", Notes: "Some for a map, None for anything else"},
		fn: func(th *Thread, r Value, _ [3]Value) Value { return someIf(r, r.k == KObject) }},
}

// sliceBounds clamps a..b (negative counting from the end) to 0..n.
func sliceBounds(a, b Value, n int) (int, int) {
	clamp := func(v Value, def int) int {
		if v.k != KInt {
			return def
		}
		i := int64(v.n)
		if i < 0 {
			i += int64(n)
		}
		return int(max(0, min(i, int64(n))))
	}
	lo, hi := clamp(a, 0), clamp(b, n)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// strList makes a list of strings whose characters total about n bytes.
func (th *Thread) strList(parts []string, n int64) Value {
	size := 16*int64(len(parts)) + n
	th.checkSize(size)
	th.allocate(size)
	elems := make([]Value, len(parts))
	for i, p := range parts {
		elems[i] = Str(p)
	}
	return listValue(&List{elems: elems, size: size})
}

func (th *Thread) getOption(elems []Value, idx Value) Value {
	if idx.k != KInt {
		th.Failf("get needs an int index, got %s", idx.typeName())
	}
	i := int64(idx.n)
	if i < 0 {
		i += int64(len(elems))
	}
	if i < 0 || i >= int64(len(elems)) {
		return None
	}
	return Some(elems[i])
}

func (th *Thread) predicate(f, v Value) bool {
	r := th.call1(f, v)
	if r.k != KBool {
		th.Failf("the function must return a bool, got %s", r.typeName())
	}
	return r.n != 0
}
