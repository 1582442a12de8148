package check

import (
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Kind is the shape of a static type.
type Kind uint8

// The kinds. Unknown is the permissive type of everything the checker
// cannot know (untyped parameters, imports, platform names, any, type
// variables): it is compatible with every type, so no error is reported
// where the type is not known (docs/vox-language.md, The checker).
const (
	KUnknown Kind = iota
	KInt
	KFloat
	KDec
	KStr
	KBool
	KUnit
	KList   // Args[0]: the element
	KMap    // Args[0]: the value (keys are strings)
	KTuple  // Args: the elements; nil for a tuple of unknown shape
	KOption // Args[0]
	KResult // Args[0], Args[1]
	KFunc   // Args: the parameters; Ret: the result
	KNamed  // an algebraic type of the file: Name
	KRecord // a record type of the file: Name
	KNever  // an expression that does not finish (return, break, continue)
	KNamespace
)

// Type is a static type. Types are values shared freely: nothing changes
// one after it is made.
type Type struct {
	Kind Kind
	Name string // Named, Record, Namespace
	Args []*Type
	Ret  *Type // Func
	Lib  bool  // Named: a value type of the library (Regex, Match), not of the file
}

// The types without arguments are shared.
var (
	tUnknown   = &Type{Kind: KUnknown}
	tInt       = &Type{Kind: KInt}
	tFloat     = &Type{Kind: KFloat}
	tDec       = &Type{Kind: KDec}
	tStr       = &Type{Kind: KStr}
	tBool      = &Type{Kind: KBool}
	tUnit      = &Type{Kind: KUnit}
	tNever     = &Type{Kind: KNever}
	tListAny   = &Type{Kind: KList, Args: []*Type{tUnknown}}
	tTupleAny  = &Type{Kind: KTuple}
	tFuncAny   = &Type{Kind: KFunc}
	tOptionAny = &Type{Kind: KOption, Args: []*Type{tUnknown}}
	tResultAny = &Type{Kind: KResult, Args: []*Type{tUnknown, tUnknown}}
)

// The containers of the shared types are shared too: most lists, maps
// and Options hold one of them, and a check makes many.
var interned = func() map[Kind][]*Type {
	out := map[Kind][]*Type{}
	for _, k := range []Kind{KList, KMap, KOption} {
		out[k] = make([]*Type, KUnit+1)
		for _, t := range []*Type{tUnknown, tInt, tFloat, tDec, tStr, tBool, tUnit} {
			out[k][t.Kind] = &Type{Kind: k, Args: []*Type{t}}
		}
	}
	return out
}()

func container(k Kind, t *Type) *Type {
	if t != nil && t.Kind <= KUnit && len(t.Args) == 0 {
		if shared := interned[k][t.Kind]; shared != nil && shared.Args[0] == t {
			return shared
		}
	}
	return &Type{Kind: k, Args: []*Type{t}}
}

func listOf(t *Type) *Type   { return container(KList, t) }
func mapOf(t *Type) *Type    { return container(KMap, t) }
func optionOf(t *Type) *Type { return container(KOption, t) }

// arg returns type argument i, Unknown when absent.
func (t *Type) arg(i int) *Type {
	if t == nil || i >= len(t.Args) || t.Args[i] == nil {
		return tUnknown
	}
	return t.Args[i]
}

// known reports whether t says something: not Unknown nor Never.
func (t *Type) known() bool { return t != nil && t.Kind != KUnknown && t.Kind != KNever }

func (t *Type) numeric() bool { return t.Kind == KInt || t.Kind == KFloat || t.Kind == KDec }

// String writes t as Vox writes types.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b, 0)
	return b.String()
}

func (t *Type) write(b *strings.Builder, depth int) {
	if t == nil {
		b.WriteString("unknown")
		return
	}
	if depth > 8 {
		b.WriteString("...")
		return
	}
	args := func(open, close string) {
		b.WriteString(open)
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b, depth+1)
		}
		b.WriteString(close)
	}
	switch t.Kind {
	case KUnknown:
		b.WriteString("unknown")
	case KInt:
		b.WriteString("int")
	case KFloat:
		b.WriteString("float")
	case KDec:
		b.WriteString("dec")
	case KStr:
		b.WriteString("str")
	case KBool:
		b.WriteString("bool")
	case KUnit:
		b.WriteString("Unit")
	case KNever:
		b.WriteString("never")
	case KList:
		b.WriteString("list")
		args("[", "]")
	case KMap:
		b.WriteString("map[str, ")
		t.arg(0).write(b, depth+1)
		b.WriteString("]")
	case KTuple:
		if t.Args == nil {
			b.WriteString("tuple")
			return
		}
		args("(", ")")
	case KOption:
		b.WriteString("Option")
		args("[", "]")
	case KResult:
		b.WriteString("Result")
		args("[", "]")
	case KFunc:
		if t.Args == nil && t.Ret == nil {
			b.WriteString("fn")
			return
		}
		b.WriteString("fn")
		args("(", ")")
		if t.Ret != nil {
			b.WriteString(" to ")
			t.Ret.write(b, depth+1)
		}
	case KNamed, KRecord, KNamespace:
		b.WriteString(t.Name)
	}
}

// assignable reports whether a value of type got may stand where want is
// expected. Unknown on either side is always assignable; an int goes where
// a float or a dec is wanted (the interpreter mixes them); a record is a
// map.
func assignable(want, got *Type) bool { return assignableDepth(want, got, 0) }

func assignableDepth(want, got *Type, depth int) bool {
	if want == nil || got == nil || depth > 16 {
		return true
	}
	if want.Kind == KUnknown || got.Kind == KUnknown || got.Kind == KNever || want.Kind == KNever {
		return true
	}
	switch want.Kind {
	case KFloat, KDec:
		return got.Kind == want.Kind || got.Kind == KInt
	case KOption:
		if got.Kind == KUnit {
			return true // Unit == None
		}
	case KMap:
		if got.Kind == KRecord {
			return true
		}
	case KRecord:
		if got.Kind == KMap {
			return true
		}
	}
	if want.Kind != got.Kind {
		return false
	}
	switch want.Kind {
	case KNamed, KRecord:
		return want.Name == got.Name
	case KList, KMap, KOption, KResult:
		for i := range want.Args {
			if !assignableDepth(want.arg(i), got.arg(i), depth+1) {
				return false
			}
		}
	case KTuple:
		if want.Args == nil || got.Args == nil {
			return true
		}
		if len(want.Args) != len(got.Args) {
			return false
		}
		for i := range want.Args {
			if !assignableDepth(want.Args[i], got.Args[i], depth+1) {
				return false
			}
		}
	}
	return true
}

// join is the type of a value that is either a or b (the arms of an if or
// a match, the elements of a list): the one when they agree, float for
// ints mixed with floats, Unknown otherwise.
func join(a, b *Type) *Type {
	switch {
	case a == nil || a.Kind == KNever:
		return b
	case b == nil || b.Kind == KNever:
		return a
	case a.Kind == KUnknown:
		return a
	case b.Kind == KUnknown:
		return b
	case a.Kind == KInt && b.Kind == KFloat || a.Kind == KFloat && b.Kind == KInt:
		return tFloat
	case a.Kind == KOption && b.Kind == KUnit:
		return a
	case b.Kind == KOption && a.Kind == KUnit:
		return b
	}
	if assignable(a, b) && assignable(b, a) {
		if a.Kind == KList && a.arg(0).Kind == KUnknown {
			return b
		}
		if (a.Kind == KOption || a.Kind == KResult) && !b.fuller(a) {
			return a
		}
		if a.Kind == KOption || a.Kind == KResult {
			return b
		}
		return a
	}
	return tUnknown
}

// fuller reports whether t knows more of its arguments than u.
func (t *Type) fuller(u *Type) bool {
	n, m := 0, 0
	for i := range t.Args {
		if t.arg(i).known() {
			n++
		}
	}
	for i := range u.Args {
		if u.arg(i).known() {
			m++
		}
	}
	return n > m
}

// typeScope says what the names of annotations mean in one function: the
// file's algebraic and record types, and the function's type parameters
// (which are Unknown).
type typeScope struct {
	adts    map[string]bool
	records map[string]bool
	params  []*syntax.Ident
}

// fromSyntax converts an annotation. Names the checker does not know
// (imported types, type parameters, any, json) are Unknown.
func (s *typeScope) fromSyntax(t *syntax.Type, depth int) *Type {
	if t == nil {
		return tUnknown
	}
	if depth > 32 {
		return tUnknown
	}
	sub := func(i int) *Type {
		if i < len(t.Args) {
			return s.fromSyntax(t.Args[i], depth+1)
		}
		return tUnknown
	}
	switch t.Kind {
	case syntax.TupleType:
		if len(t.Args) == 0 {
			return tUnit
		}
		out := &Type{Kind: KTuple, Args: make([]*Type, len(t.Args))}
		for i := range t.Args {
			out.Args[i] = sub(i)
		}
		return out
	case syntax.FuncType:
		out := &Type{Kind: KFunc, Args: make([]*Type, len(t.Args)), Ret: tUnit}
		for i := range t.Args {
			out.Args[i] = sub(i)
		}
		if t.Result != nil {
			out.Ret = s.fromSyntax(t.Result, depth+1)
		}
		return out
	case syntax.IntType:
		return tUnknown
	}
	for _, p := range s.params {
		if p.Name == t.Name {
			return tUnknown
		}
	}
	switch t.Name {
	case "int", "i64", "i32":
		return tInt
	case "float", "f64", "f32":
		return tFloat
	case "dec":
		return tDec
	case "str", "string", "String":
		return tStr
	case "bool":
		return tBool
	case "Unit", "unit":
		return tUnit
	case "list", "List":
		return listOf(sub(0))
	case "map", "Map", "object", "Object", "dict":
		if len(t.Args) == 2 {
			return mapOf(sub(1))
		}
		return mapOf(sub(0))
	case "tuple", "Tuple":
		return tTupleAny
	case "Option":
		return optionOf(sub(0))
	case "Result":
		return &Type{Kind: KResult, Args: []*Type{sub(0), sub(1)}}
	case "fn":
		return tFuncAny
	}
	if s.adts[t.Name] {
		return &Type{Kind: KNamed, Name: t.Name}
	}
	if s.records[t.Name] {
		return &Type{Kind: KRecord, Name: t.Name}
	}
	return tUnknown
}
