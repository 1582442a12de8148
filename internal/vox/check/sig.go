package check

import (
	"strings"
	"sync"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
)

// sigType is a type of the library's signatures (libsig.Signature), parsed
// from the text the tables write: a name with arguments, a union "A | B",
// a type variable (one capital letter) or a constrained variable "N: int
// | float".
type sigType struct {
	alts  []*sigType // a union when set
	name  string     // str, int, list, map, fn, any, ... or the variable
	isVar bool
	args  []*sigType
	ret   *sigType // fn
	bound *sigType // the constraint of a variable
}

// parseSig parses a signature's type text; what it does not understand is
// any.
func parseSig(s string) *sigType {
	p := &sigParser{s: s}
	t := p.union()
	if t == nil {
		return &sigType{name: "any"}
	}
	return t
}

type sigParser struct {
	s string
	i int
}

func (p *sigParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sigParser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *sigParser) word() string {
	p.skip()
	j := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || 'a' <= p.s[p.i] && p.s[p.i] <= 'z' || 'A' <= p.s[p.i] && p.s[p.i] <= 'Z' || '0' <= p.s[p.i] && p.s[p.i] <= '9') {
		p.i++
	}
	return p.s[j:p.i]
}

func (p *sigParser) union() *sigType {
	first := p.one()
	if first == nil {
		return nil
	}
	if p.peek() != '|' {
		return first
	}
	u := &sigType{alts: []*sigType{first}}
	for p.eat('|') {
		if t := p.one(); t != nil {
			u.alts = append(u.alts, t)
		}
	}
	return u
}

func (p *sigParser) peek() byte {
	p.skip()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sigParser) one() *sigType {
	w := p.word()
	if w == "" {
		return nil
	}
	t := &sigType{name: w}
	if len(w) == 1 && 'A' <= w[0] && w[0] <= 'Z' {
		t.isVar = true
		if p.peek() == ':' {
			p.i++
			t.bound = p.union()
		}
		return t
	}
	switch {
	case w == "fn" && p.eat('('):
		for p.peek() != ')' && p.peek() != 0 {
			if a := p.union(); a != nil {
				t.args = append(t.args, a)
			}
			if !p.eat(',') {
				break
			}
		}
		p.eat(')')
		p.skip()
		if strings.HasPrefix(p.s[p.i:], "to ") {
			p.i += 3
			t.ret = p.one() // the result of a parameter's fn type is not a union
		}
	case p.eat('['):
		for p.peek() != ']' && p.peek() != 0 {
			if a := p.union(); a != nil {
				t.args = append(t.args, a)
			}
			if !p.eat(',') {
				break
			}
		}
		p.eat(']')
	}
	return t
}

// bindings are the type variables a call has bound: a few, so a small
// array rather than a map (a call of the library allocates nothing for
// them).
type bindings struct {
	names [6]string
	types [6]*Type
	n     int
}

func (b *bindings) get(name string) (*Type, bool) {
	if b == nil {
		return nil, false
	}
	for i := 0; i < b.n; i++ {
		if b.names[i] == name {
			return b.types[i], true
		}
	}
	return nil, false
}

func (b *bindings) set(name string, t *Type) {
	if b == nil {
		return
	}
	for i := 0; i < b.n; i++ {
		if b.names[i] == name {
			b.types[i] = t
			return
		}
	}
	if b.n < len(b.names) {
		b.names[b.n], b.types[b.n] = name, t
		b.n++
	}
}

// fits reports whether a value of type got fits the signature type s,
// binding the variables it meets. Unknown fits everything.
func (s *sigType) fits(got *Type, b *bindings, depth int) bool {
	if got == nil || got.Kind == KUnknown || got.Kind == KNever || depth > 16 {
		return true
	}
	if s.alts != nil {
		for _, a := range s.alts {
			if a.fits(got, b, depth+1) {
				return true
			}
		}
		return false
	}
	if s.isVar {
		if s.bound != nil && !s.bound.fits(got, b, depth+1) {
			return false
		}
		if prev, ok := b.get(s.name); ok && prev.known() {
			if assignable(prev, got) {
				return true
			}
			if assignable(got, prev) {
				b.set(s.name, got)
				return true
			}
			b.set(s.name, tUnknown) // mixed: say nothing
			return true
		}
		b.set(s.name, got)
		return true
	}
	switch s.name {
	case "any":
		return true
	case "int":
		return got.Kind == KInt
	case "float":
		return got.Kind == KFloat || got.Kind == KInt
	case "dec":
		return got.Kind == KDec || got.Kind == KInt
	case "str":
		return got.Kind == KStr
	case "bool":
		return got.Kind == KBool
	case "Unit":
		return got.Kind == KUnit
	case "tuple":
		return got.Kind == KTuple
	case "fn":
		if got.Kind != KFunc {
			return false
		}
		if s.ret != nil && got.Ret != nil {
			s.ret.fits(got.Ret, b, depth+1)
		}
		return true
	case "list":
		if got.Kind == KTuple {
			return true // the interpreter takes a tuple where it takes a list
		}
		if got.Kind != KList {
			return false
		}
		if len(s.args) == 1 {
			s.args[0].fits(got.arg(0), b, depth+1)
		}
		return true
	case "map":
		if got.Kind != KMap && got.Kind != KRecord {
			return false
		}
		if len(s.args) == 2 && got.Kind == KMap {
			s.args[1].fits(got.arg(0), b, depth+1)
		}
		return true
	case "Option":
		if got.Kind == KUnit {
			return true
		}
		if got.Kind != KOption {
			return false
		}
		if len(s.args) == 1 {
			s.args[0].fits(got.arg(0), b, depth+1)
		}
		return true
	case "Result":
		if got.Kind != KResult {
			return false
		}
		for i, a := range s.args {
			a.fits(got.arg(i), b, depth+1)
		}
		return true
	}
	return true
}

// inst is the static type of s with the variables bound by a call;
// unions and unbound variables are Unknown.
func (s *sigType) inst(b *bindings, depth int) *Type {
	if depth > 16 || s.alts != nil {
		return tUnknown
	}
	if s.isVar {
		if t, ok := b.get(s.name); ok {
			return t
		}
		return tUnknown
	}
	arg := func(i int) *Type {
		if i < len(s.args) {
			return s.args[i].inst(b, depth+1)
		}
		return tUnknown
	}
	switch s.name {
	case "int":
		return tInt
	case "float":
		return tFloat
	case "dec":
		return tDec
	case "str":
		return tStr
	case "bool":
		return tBool
	case "Unit":
		return tUnit
	case "tuple":
		return tTupleAny
	case "list":
		return listOf(arg(0))
	case "map":
		return mapOf(arg(1))
	case "Option":
		return optionOf(arg(0))
	case "Result":
		return &Type{Kind: KResult, Args: []*Type{arg(0), arg(1)}}
	case "Regex", "Match":
		return &Type{Kind: KNamed, Name: s.name, Lib: true}
	case "fn":
		out := &Type{Kind: KFunc, Ret: tUnknown}
		for i := range s.args {
			out.Args = append(out.Args, arg(i))
		}
		if s.ret != nil {
			out.Ret = s.ret.inst(b, depth+1)
		}
		return out
	}
	return tUnknown
}

// libSig is a library signature with its types parsed.
type libSig struct {
	name    string
	sig     libsig.Signature
	params  []*sigType // of the longest form
	results []*sigType // per form, in order of Forms
	arities [][2]int   // per form
	notes   string
	value   bool  // a builtin value (Unit), not a function
	typ     *Type // a builtin as a value: a function of its first form's result
}

func newLibSig(name string, sig libsig.Signature) *libSig {
	ls := &libSig{name: name, sig: sig, notes: sig.Notes}
	longest := sig.Params
	for _, f := range sig.Forms() {
		if len(f.Params) > len(longest) {
			longest = f.Params
		}
		ls.results = append(ls.results, parseSig(f.Result))
		lo, hi := f.Arity()
		ls.arities = append(ls.arities, [2]int{lo, hi})
	}
	for _, p := range longest {
		ls.params = append(ls.params, parseSig(p.Type))
	}
	return ls
}

// paramsOf returns the parameters of the longest form.
func (ls *libSig) paramsOf() []libsig.Param {
	ps := ls.sig.Params
	for _, o := range ls.sig.Overloads {
		if len(o.Params) > len(ps) {
			ps = o.Params
		}
	}
	return ps
}

// library is the library table as the checker reads it: builtins,
// methods per receiver and capability functions per namespace.
type library struct {
	builtins map[string]*libSig
	methods  map[string]map[string]*libSig // receiver table (str, list[T], ...) -> name
	recv     map[string]*sigType           // receiver table -> its parsed type
	ns       map[string]*nsInfo
}

type nsInfo struct {
	ns    *libsig.Namespace
	funcs map[string]*libSig
}

var (
	libOnce sync.Once
	lib     *library
)

// theLibrary builds the tables once; they never change.
func theLibrary() *library {
	libOnce.Do(func() {
		l := &library{builtins: map[string]*libSig{}, methods: map[string]map[string]*libSig{},
			recv: map[string]*sigType{}, ns: map[string]*nsInfo{}}
		for _, b := range libsig.Builtins() {
			ls := newLibSig(b.Name, b.Sig)
			ls.value = b.Value
			ls.typ = &Type{Kind: KFunc, Ret: ls.results[0].inst(&bindings{}, 0)}
			l.builtins[b.Name] = ls
		}
		for _, t := range libsig.Receivers() {
			ms := map[string]*libSig{}
			for _, m := range t.Methods {
				ms[m.Name] = newLibSig(m.Name, m.Sig)
			}
			l.methods[t.Type] = ms
			l.recv[t.Type] = parseSig(t.Type)
		}
		namespaces := libsig.Namespaces()
		for i := range namespaces {
			n := &namespaces[i]
			info := &nsInfo{ns: n, funcs: map[string]*libSig{}}
			for _, f := range n.Funcs {
				info.funcs[f.Name] = newLibSig(n.Name+"."+f.Name, f.Sig)
			}
			l.ns[n.Name] = info
		}
		// std.X (std.json) has X's functions besides its own.
		for name, info := range l.ns {
			if base, ok := strings.CutPrefix(name, "std."); ok && l.ns[base] != nil {
				for fname, f := range l.ns[base].funcs {
					if info.funcs[fname] == nil {
						info.funcs[fname] = f
					}
				}
			}
		}
		lib = l
	})
	return lib
}

// receiverTable names the method table of a receiver type ("" when the
// type has only the methods of every value).
func receiverTable(t *Type) string {
	switch t.Kind {
	case KStr:
		return "str"
	case KList:
		return "list[T]"
	case KTuple:
		return "tuple"
	case KMap, KRecord:
		return "map[str, V]"
	case KInt, KFloat:
		return "N: int | float"
	case KOption:
		return "Option[T]"
	case KResult:
		return "Result[T, E]"
	case KUnit:
		return "Unit"
	case KNamed:
		if t.Lib { // the library's Regex and Match
			return t.Name
		}
	}
	return ""
}
