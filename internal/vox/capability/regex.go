package capability

import (
	"container/list"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// ---- regex ----
//
// Patterns are Go's RE2 syntax (docs/vox-language.md, Regular
// expressions): matching takes time linear in the text, whatever the
// pattern, so no pattern can stall a call the way a backtracking engine
// can. Constructs RE2 cannot express (lookaround, backreferences, atomic
// groups, possessive quantifiers, ...) are errors that name the construct.
//
// Compiled patterns are kept in a process-wide cache of at most
// regexCacheSize entries, least recently used first out, so a loop that
// matches the same pattern compiles it once; patterns longer than
// maxPatternBytes are refused, which bounds the cache's memory.

const (
	maxPatternBytes = 32 << 10
	regexCacheSize  = 256
	// instCost is what one compiled instruction counts against the
	// allocation budget the first time a call uses a pattern.
	instCost = 64
)

// compiled is a cached pattern: the regexp and the size of its program,
// which prices a match.
type compiled struct {
	pattern string
	re      *regexp.Regexp
	insts   int64
}

type regexCache struct {
	mu    sync.Mutex
	byPat map[string]*list.Element
	lru   *list.List // of *compiled, most recently used first
}

var cache = &regexCache{byPat: map[string]*list.Element{}, lru: list.New()}

func (c *regexCache) get(pattern string) *compiled {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byPat[pattern]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*compiled)
	}
	return nil
}

func (c *regexCache) put(r *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byPat[r.pattern]; ok {
		return
	}
	c.byPat[r.pattern] = c.lru.PushFront(r)
	for c.lru.Len() > regexCacheSize {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.byPat, last.Value.(*compiled).pattern)
	}
}

// callPatterns is the per-call record of the patterns a call has used, so
// that each counts against the call's allocation budget once whether or
// not another call compiled it before: a call's budget does not depend
// on the cache.
type callPatterns map[string]bool

const patternsKey = "capability.regex"

// regexFor returns the compiled pattern of regex.<method>, compiling it
// when it is not cached; a pattern Go's regexp refuses fails the call.
func regexFor(th *eval.Thread, method string, pattern string) *compiled {
	r, msg := regexOrErr(th, method, pattern)
	if r == nil {
		th.Failf("%s", msg)
	}
	return r
}

// regexOrErr is regexFor giving the reason a pattern is refused instead
// of failing the call (regex.compile returns it as an Err).
func regexOrErr(th *eval.Thread, method string, pattern string) (*compiled, string) {
	if len(pattern) > maxPatternBytes {
		return nil, fmt.Sprintf("regex.%s: the pattern is %d bytes long; at most %d are allowed", method, len(pattern), maxPatternBytes)
	}
	r := cache.get(pattern)
	if r == nil {
		var msg string
		if r, msg = compile(th, method, pattern); r == nil {
			return nil, msg
		}
		cache.put(r)
	}
	seen, _ := th.Local(patternsKey).(callPatterns)
	if seen == nil {
		seen = callPatterns{}
		th.SetLocal(patternsKey, seen)
	}
	if !seen[pattern] {
		seen[pattern] = true
		th.Charge(int64(len(pattern)) + r.insts*instCost)
	}
	return r, ""
}

// regexCompile is regex.compile: Ok(Regex) or Err(why the pattern is
// refused), as the reference's.
func regexCompile(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	r, msg := regexOrErr(th, "compile", strArg(th, "regex", "compile", args[0]))
	if r == nil {
		return eval.ErrVal(eval.Str(msg))
	}
	return eval.OkVal(eval.RegexValue(r.re))
}

func compile(th *eval.Thread, method, pattern string) (*compiled, string) {
	th.Work(int64(len(pattern)) * 16)
	if what, at := unsupported(pattern); what != "" {
		return nil, fmt.Sprintf("regex.%s: the pattern uses %s at byte %d, which RE2 (Go's regexp) cannot express; see docs/vox-language.md, Regular expressions", method, what, at)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Sprintf("regex.%s: invalid pattern: %s", method, syntaxMessage(err))
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Sprintf("regex.%s: invalid pattern: %s", method, syntaxMessage(err))
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Sprintf("regex.%s: invalid pattern: %s", method, syntaxMessage(err))
	}
	return &compiled{pattern: pattern, re: re, insts: int64(len(prog.Inst))}, ""
}

// syntaxMessage is Go's error without its "error parsing regexp: " prefix.
func syntaxMessage(err error) string {
	if se, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// unsupported finds the first construct of Perl or PCRE syntax that RE2
// does not have, and names it with its byte offset; "" when there is
// none. It skips escaped characters and character classes, where these
// characters are literal.
func unsupported(p string) (string, int) {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) {
				return "", 0
			}
			switch n := p[i+1]; {
			case '1' <= n && n <= '9':
				return fmt.Sprintf("a backreference %q", p[i:i+2]), i
			case n == 'k' || n == 'g':
				return fmt.Sprintf("a backreference %q", p[i:i+2]), i
			case n == 'G':
				return `the match-start anchor "\G"`, i
			case n == 'Z':
				return `the anchor "\Z" (write \z or $)`, i
			case n == 'K':
				return `the match reset "\K"`, i
			case n == 'R' || n == 'X' || n == 'h' || n == 'H':
				return fmt.Sprintf("the escape %q", p[i:i+2]), i
			case n == 'Q': // quoted text up to \E is literal
				if k := strings.Index(p[i+2:], `\E`); k >= 0 {
					i += k + 3
				} else {
					return "", 0
				}
				continue
			}
			i++
		case '[':
			i = classEnd(p, i)
		case '(':
			if i+2 < len(p) && p[i+1] == '?' {
				rest := p[i+2:]
				for _, g := range groupKinds {
					if strings.HasPrefix(rest, g.prefix) {
						return g.name, i
					}
				}
			}
		case '*', '+', '?', '}':
			if i+1 < len(p) && p[i+1] == '+' && (c != '}' || closesRepeat(p[:i+1])) {
				return fmt.Sprintf("a possessive quantifier %q", p[i:i+2]), i
			}
		}
	}
	return "", 0
}

// closesRepeat reports whether p ends with a repeat {n}, {n,} or {n,m}
// (a } that ends anything else is a literal).
var closesRepeat = regexp.MustCompile(`\{[0-9]+(,[0-9]*)?\}$`).MatchString

// groupKinds are the "(?" groups RE2 lacks, longest prefixes first.
var groupKinds = []struct{ prefix, name string }{
	{"<=", `a lookbehind "(?<="`},
	{"<!", `a negative lookbehind "(?<!"`},
	{"=", `a lookahead "(?="`},
	{"!", `a negative lookahead "(?!"`},
	{">", `an atomic group "(?>"`},
	{"|", `a branch reset group "(?|"`},
	{"(", `a conditional "(?("`},
	{"R)", `a recursion "(?R)"`},
	{"&", `a subroutine call "(?&"`},
	{"P=", `a named backreference "(?P="`},
	{"P>", `a subroutine call "(?P>"`},
	{"#", `a comment group "(?#"`},
}

// classEnd returns the index of the ] that closes the class opened at
// p[i], or the last index when it is not closed (Go reports that).
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++ // a leading ] is literal
	}
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '[':
			if j+1 < len(p) && p[j+1] == ':' { // [:alpha:]
				if k := strings.Index(p[j+2:], ":]"); k >= 0 {
					j += k + 3
				}
			}
		case ']':
			return j
		}
	}
	return len(p) - 1
}

// regexArgs checks the text and pattern of regex.<method> and prices the
// match before it runs, since Go's regexp cannot be interrupted: a match
// takes time linear in the text times the size of the pattern's program,
// plus a cost per match. For every 512 bytes of text a match counts a
// step per instruction of the compiled pattern, and 100 more for the
// per-match cost; measured on Go's slowest engine that is at most a few
// microseconds per step, so the step limit also bounds a call's time
// inside regexp.
func regexArgs(th *eval.Thread, method string, args []eval.Value) (string, *compiled) {
	s := strArg(th, "regex", method, args[0])
	r := regexFor(th, method, strArg(th, "regex", method, args[1]))
	r.price(th, s)
	return s, r
}

// price counts the steps of one pass of r over s (see regexArgs); Work
// counts one step per KiB.
func (r *compiled) price(th *eval.Thread, s string) {
	th.Work(int64(len(s)) * (r.insts + 100) * 2)
}

func regexIsMatch(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "is_match", args)
	return eval.Bool(r.re.MatchString(s))
}

func regexFind(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "find", args)
	loc := r.re.FindStringIndex(s)
	if loc == nil {
		return eval.None
	}
	return eval.Some(eval.Str(s[loc[0]:loc[1]]))
}

func regexCaptures(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "captures", args)
	loc := r.re.FindStringSubmatchIndex(s)
	if loc == nil {
		return eval.None
	}
	groups := make([]string, len(loc)/2)
	for i := range groups {
		if loc[2*i] >= 0 {
			groups[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return eval.Some(strList(th, groups))
}

// maxElems is how many elements a list may have within the value-size
// limit (16 bytes each), plus one to tell that it would be over; -1 when
// there is no limit. Go's regexp then stops after that many matches, so
// a pattern that matches everywhere cannot make a huge list first.
func maxElems(th *eval.Thread) int {
	if lim := th.MaxValueBytes(); lim > 0 {
		return int(min(lim/16+1, 1<<40))
	}
	return -1
}

func regexFindAll(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "find_all", args)
	return strList(th, r.re.FindAllString(s, maxElems(th)))
}

func regexSplit(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "split", args)
	return strList(th, r.re.Split(s, maxElems(th)))
}

func regexReplace(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s, r := regexArgs(th, "replace", args)
	repl := strArg(th, "regex", "replace", args[2])
	// Bound the result before building it, without keeping the matches:
	// each match adds at most the replacement with every group expanded,
	// and a group is at most the match. The first pass fails the call as
	// soon as that bound passes the value-size limit.
	if lim := th.MaxValueBytes(); lim > 0 {
		size := int64(len(s))
		dollars := int64(strings.Count(repl, "$"))
		r.re.ReplaceAllStringFunc(s, func(m string) string {
			size += int64(len(repl)) + dollars*int64(len(m))
			if size > lim {
				th.CheckSize(size)
			}
			return ""
		})
		th.Charge(int64(len(s)))
		r.price(th, s)
	}
	out := r.re.ReplaceAllString(s, repl)
	th.CheckSize(int64(len(out)))
	th.Charge(int64(len(out)))
	return eval.Str(out)
}

func regexEscape(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "regex", "escape", args[0])
	out := regexp.QuoteMeta(s)
	th.CheckSize(int64(len(out)))
	th.Charge(int64(len(out)))
	return eval.Str(out)
}

// strList makes a list of strings, checked against the value-size limit
// and counted against the allocation budget (16 bytes per element plus
// the characters, as lists count).
func strList(th *eval.Thread, parts []string) eval.Value {
	size := 16 * int64(len(parts))
	for _, p := range parts {
		size += int64(len(p))
	}
	th.CheckSize(size)
	th.Charge(size)
	elems := make([]eval.Value, len(parts))
	for i, p := range parts {
		elems[i] = eval.Str(p)
	}
	return eval.NewList(elems)
}
