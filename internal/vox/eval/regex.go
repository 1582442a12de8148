package eval

import (
	"regexp"
	"unsafe"
)

// The reference's compiled patterns (docs/vox-language.md, Regular
// expressions): std.regex.compile (package capability) makes a Regex
// value, whose methods matches, find and find_all search a string, and a
// find gives Match values, whose group reads a capture group. Go's
// regexp matches in time linear in the text, so a method's work is
// charged by the text's length.

// match is a Match: the whole match and each group, Some(text) or None
// for a group that took no part.
type match struct {
	groups []Value
	size   int64
}

// RegexValue returns the Regex value of a compiled pattern.
func RegexValue(re *regexp.Regexp) Value { return Value{k: KRegex, p: unsafe.Pointer(re)} }

func (v Value) regex() *regexp.Regexp { return (*regexp.Regexp)(v.p) }
func (v Value) match() *match         { return (*match)(v.p) }

// matchValue makes the Match of the submatch indices loc of s.
func (th *Thread) matchValue(s string, loc []int) Value {
	m := &match{groups: make([]Value, len(loc)/2)}
	for i := range m.groups {
		if loc[2*i] < 0 {
			m.groups[i] = None
			continue
		}
		text := s[loc[2*i]:loc[2*i+1]]
		m.groups[i] = Some(Str(text))
		m.size += 32 + int64(len(text))
	}
	th.allocate(m.size)
	return Value{k: KMatch, p: unsafe.Pointer(m)}
}

func regexMatches(th *Thread, r Value, a [3]Value) Value {
	s := th.strArg("matches", a[0])
	th.charge(int64(len(s)))
	return Bool(r.regex().MatchString(s))
}

func regexFind(th *Thread, r Value, a [3]Value) Value {
	s := th.strArg("find", a[0])
	th.charge(int64(len(s)))
	loc := r.regex().FindStringSubmatchIndex(s)
	if loc == nil {
		return None
	}
	return Some(th.matchValue(s, loc))
}

func regexFindAll(th *Thread, r Value, a [3]Value) Value {
	s := th.strArg("find_all", a[0])
	th.charge(int64(len(s)))
	var out []Value
	var size int64
	for _, loc := range r.regex().FindAllStringSubmatchIndex(s, -1) {
		m := th.matchValue(s, loc)
		size += 16 + m.size()
		th.checkSize(size)
		out = append(out, m)
	}
	if out == nil {
		out = []Value{}
	}
	return listValue(&List{elems: out, size: size})
}

func matchGroup(th *Thread, r Value, a [3]Value) Value {
	n := th.intArg("group", a[0])
	g := r.match().groups
	if n < 0 || n >= int64(len(g)) {
		return None
	}
	return g[n]
}
