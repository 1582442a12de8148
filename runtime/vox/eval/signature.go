package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/vox-lang/vox-mcp/runtime/vox/resolve"
)

// Signatures describe builtins, methods and capability functions in one
// form, rich enough for a static type checker and for the reference
// tables of docs/vox-language.md, which are generated from them.
//
// Types are written in Vox type syntax with three additions: "A | B" is a
// union, a single capital letter (T, V, E) is a type variable bound by the
// call, and "N: int | float" introduces a variable constrained to a union.

// Param is a parameter.
type Param struct {
	Name     string
	Type     string
	Optional bool   // may be left out
	Default  string // what a left-out argument means, as Vox source; "" when not a plain value
	Variadic bool   // any number of arguments, at least Min
	Min      int
}

// Signature is the parameters, the result type and what a reader or a
// checker must know besides the types.
type Signature struct {
	Params []Param
	Result string
	Notes  string
	// Overloads are further forms of the same call, each with its own
	// parameters and result, where the result type depends on how many
	// arguments are given (round(x) to int, round(x, digits) to float).
	// Their parameters extend the first form's: a method binds named
	// arguments by the longest form.
	Overloads []Signature
}

// Arity returns the least and the most number of arguments over every
// form (math.MaxInt when variadic).
func (s Signature) Arity() (least, most int) {
	least, most = s.arity()
	for _, o := range s.Overloads {
		lo, hi := o.arity()
		least, most = min(least, lo), max(most, hi)
	}
	return least, most
}

// arity is the arity of this form alone.
func (s Signature) arity() (min, max int) {
	for _, p := range s.Params {
		switch {
		case p.Variadic:
			return min + p.Min, math.MaxInt
		case !p.Optional:
			min++
		}
		max++
	}
	return min, max
}

// Forms returns the signature's forms: itself first, then its overloads.
func (s Signature) Forms() []Signature {
	return append([]Signature{{Params: s.Params, Result: s.Result, Notes: s.Notes}}, s.Overloads...)
}

// longestParams returns the parameters of the form that has the most;
// methods bind named arguments by them.
func (s Signature) longestParams() []Param {
	ps := s.Params
	for _, o := range s.Overloads {
		if len(o.Params) > len(ps) {
			ps = o.Params
		}
	}
	return ps
}

// Format writes the signature as Vox source: name(a: int, b?: str) to T;
// the overloads follow, each on a line of its own.
func (s Signature) Format(name string) string {
	out := s.format(name)
	for _, o := range s.Overloads {
		out += "\n" + o.format(name)
	}
	return out
}

func (s Signature) format(name string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, p := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.Variadic {
			b.WriteString("...")
		}
		b.WriteString(p.Name)
		if p.Optional && p.Default == "" {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(p.Type)
		if p.Default != "" {
			b.WriteString(" = ")
			b.WriteString(p.Default)
		}
	}
	b.WriteString(") to ")
	b.WriteString(s.Result)
	return b.String()
}

// BuiltinSpec is one entry of the builtins table.
type BuiltinSpec struct {
	Name  string
	Sig   Signature
	Value bool // a predeclared value (Unit), not a function

	fn       func(th *Thread, args []Value) Value
	min, max int
	val      Value // the builtin as a first-class value
}

// Builtins returns the builtins table, in the order of the universe.
// The entries must not be changed.
func Builtins() []*BuiltinSpec { return builtins }

// builtinIndex finds a builtin by name (for the interpreter's own fast
// paths, such as for-over-range).
func builtinIndex(name string) int {
	for i, b := range builtins {
		if b.Name == name {
			return i
		}
	}
	panic("eval: no builtin " + name)
}

// rangeBuiltin is the index of range, which a for loop runs without
// building a list.
var rangeBuiltin = builtinIndex("range")

func init() {
	for _, b := range builtins {
		if b.Value {
			if b.fn != nil {
				panic("eval: builtin value " + b.Name + " has a function")
			}
			continue // Unit: the zero Value
		}
		if b.fn == nil {
			panic("eval: builtin " + b.Name + " has no function")
		}
		b.min, b.max = b.Sig.Arity()
		b.val = builtinValue(&Builtin{name: b.Name, spec: b, fn: func(th *Thread, self *Builtin, args []Value, names []string) Value {
			spec := self.spec
			th.checkArity(spec, args, names)
			return spec.fn(th, args)
		}})
	}
}

// checkArity checks the arguments of a builtin against its signature:
// positional only, as many as the parameters allow.
func (th *Thread) checkArity(b *BuiltinSpec, args []Value, names []string) {
	for _, n := range names {
		if n != "" {
			th.Failf("%s: unknown argument %s", b.Name, n)
		}
	}
	switch n := len(args); {
	case n < b.min && b.min == b.max:
		th.Failf("%s takes %d argument(s), got %d", b.Name, b.min, n)
	case n < b.min:
		th.Failf("%s takes at least %d argument(s), got %d", b.Name, b.min, n)
	case n > b.max:
		th.Failf("%s takes at most %d argument(s), got %d", b.Name, b.max, n)
	}
}

// Universe returns the predeclared names for the resolver: the builtins
// of this package and the capability namespaces the caller provides
// (package capability's table; the interpreter knows no namespace by
// name).
func Universe(namespaces []string) resolve.Universe {
	return resolve.Universe{Builtins: builtinNames, Namespaces: namespaces}
}

// builtinNames are the names of the builtins table, in its order.
var builtinNames = func() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.Name
	}
	return names
}()

// String is the signature for messages and docs.
func (b *BuiltinSpec) String() string {
	if b.Value {
		return fmt.Sprintf("%s: %s", b.Name, b.Sig.Result)
	}
	return b.Sig.Format(b.Name)
}
