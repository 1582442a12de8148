package eval

import (
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
)

// Signature and Param are the library's signature types, owned by the leaf
// package libsig so that the checker and the language server read them
// without the interpreter.
type (
	Signature = libsig.Signature
	Param     = libsig.Param
)

// BuiltinSpec is one entry of the builtins table.
type BuiltinSpec struct {
	Name  string
	Sig   Signature
	Value bool // a predeclared value (Unit), not a function

	fn       func(th *Thread, args []Value) Value
	min, max int
	val      Value // the builtin as a first-class value
}

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
