// Package libsig holds the types of the standard library's signatures
// (Signature, Param, arity) and the signature table generated from
// contracts/library/library.v1.yaml. It is a leaf: the interpreter
// implements the entries, while the resolver, the checker, the language
// server and the docs read their types from here without linking the
// interpreter.
package libsig

import (
	"math"
	"strings"
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

// LongestParams returns the parameters of the form that has the most;
// methods bind named arguments by them.
func (s Signature) LongestParams() []Param {
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
