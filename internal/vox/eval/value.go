package eval

import (
	"math"
	"slices"
	"unsafe"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of values (docs/vox-language.md, Values). Null is Unit.
const (
	KNull Kind = iota
	KBool
	KInt
	KFloat
	KStr
	KList
	KTuple
	KObject
	KNone
	KSome
	KOk
	KErr
	KTagged
	KDec       // an exact decimal (docs/vox-language.md, Values)
	KFunc      // a closure or a module function
	KBuiltin   // a builtin function or a bound method
	KNamespace // a capability namespace used as a value
	KRegex     // a compiled pattern (std.regex.compile)
	KMatch     // a match of a Regex with its groups
	kCell      // internal: a frame slot holding a captured variable

	kindCount // the number of kinds
)

// Value is a Vox value. It is a small struct rather than an interface so
// that integers, floats and booleans need no allocation: n holds their bits
// (and a string's length), p points to the heap part of the other kinds.
// The kind says what p points to; only this file converts p.
type Value struct {
	p unsafe.Pointer
	n uint64
	k Kind
}

// List is a list. Lists are values (docs/vox-language.md, Values): a
// change through one name is never seen through another. A list is
// changed in place only while one holder has it; shared is set once a
// second holder may have it (a variable read into another, an argument,
// an element taken out of a container: see share), and the next change
// through any holder copies it first (cow.go). size is the bytes it
// accounts for against the value-size limit: 16 per element plus the
// sizes of the elements added.
type List struct {
	elems  []Value
	size   int64
	shared bool
}

// Tuple is an immutable sequence.
type Tuple struct {
	elems []Value
	size  int64
}

// Object is a map from strings to values that keeps insertion order. Like
// a list it is a value, copied on write once shared.
type Object struct {
	keys   []string
	vals   []Value
	index  map[string]int // built once the object grows past a few keys
	size   int64          // accounted bytes, as for lists
	shared bool
}

// Tagged is a value built by a constructor of an algebraic type.
type Tagged struct {
	ctor   *resolve.Constructor
	fields []Value
	size   int64
}

// Closure is a function value: a compiled function and its captured cells.
type Closure struct {
	fn   *Func
	free []*Value
	size int64 // the sizes of the captured values when it was made
}

// box holds the value of Some, Ok and Err; v comes first so that a
// pointer to the box is a pointer to the value.
type box struct {
	v    Value
	size int64
}

// Builtin is a builtin function, or a method bound to its receiver.
type Builtin struct {
	name string
	spec *BuiltinSpec // the table entry of a builtin; nil for a bound method
	recv Value
	fn   func(th *Thread, b *Builtin, args []Value, names []string) Value
}

// Unit is the null value.
var Unit = Value{}

// Int returns an integer value.
func Int(i int64) Value { return Value{k: KInt, n: uint64(i)} }

// Float returns a float value.
func Float(f float64) Value { return Value{k: KFloat, n: math.Float64bits(f)} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value{k: KBool, n: 1}
	}
	return Value{k: KBool}
}

var (
	True  = Bool(true)
	False = Bool(false)
	None  = Value{k: KNone}
)

// Str returns a string value without copying s.
func Str(s string) Value {
	return Value{k: KStr, n: uint64(len(s)), p: unsafe.Pointer(unsafe.StringData(s))}
}

// NewList returns a list value owning elems.
func NewList(elems []Value) Value {
	l := &List{elems: elems, size: 16 * int64(len(elems))}
	for _, e := range elems {
		l.size += e.size()
	}
	return Value{k: KList, p: unsafe.Pointer(l)}
}

func listValue(l *List) Value { return Value{k: KList, p: unsafe.Pointer(l)} }

// NewTuple returns a tuple value owning elems.
func NewTuple(elems []Value) Value {
	t := &Tuple{elems: elems, size: 16 * int64(len(elems))}
	for _, e := range elems {
		t.size += e.size()
	}
	return Value{k: KTuple, p: unsafe.Pointer(t)}
}

// NewObject returns an empty object value.
func NewObject(o *Object) Value { return Value{k: KObject, p: unsafe.Pointer(o)} }

func boxed(k Kind, v Value) Value {
	return Value{k: k, p: unsafe.Pointer(&box{v: v, size: 16 + v.size()})}
}

// Some, Ok and Err wrap a value.
func Some(v Value) Value   { return boxed(KSome, v) }
func OkVal(v Value) Value  { return boxed(KOk, v) }
func ErrVal(v Value) Value { return boxed(KErr, v) }

func taggedValue(t *Tagged) Value {
	t.size = 16 * int64(len(t.fields))
	for _, f := range t.fields {
		t.size += f.size()
	}
	return Value{k: KTagged, p: unsafe.Pointer(t)}
}
func closureValue(c *Closure) Value { return Value{k: KFunc, p: unsafe.Pointer(c)} }
func builtinValue(b *Builtin) Value { return Value{k: KBuiltin, p: unsafe.Pointer(b)} }
func cellValue(c *Value) Value      { return Value{k: kCell, p: unsafe.Pointer(c)} }

// namespaceValue is a capability namespace used as a value; it holds the
// namespace's name as a string does.
func namespaceValue(name string) Value {
	return Value{k: KNamespace, n: uint64(len(name)), p: unsafe.Pointer(unsafe.StringData(name))}
}

// NamespaceValue returns the value of the capability namespace name, as
// the bare name would evaluate to (std.fs is the namespace fs).
func NamespaceValue(name string) Value { return namespaceValue(name) }

// Kind returns the kind of v.
func (v Value) Kind() Kind { return v.k }

// Int returns the integer of an Int.
func (v Value) Int() int64 { return int64(v.n) }

// Float returns the float of a Float.
func (v Value) Float() float64 { return math.Float64frombits(v.n) }

// Bool returns the boolean of a Bool.
func (v Value) Bool() bool { return v.n != 0 }

// Str returns the string of a Str.
func (v Value) Str() string { return unsafe.String((*byte)(v.p), int(v.n)) }

// List returns the list of a List.
func (v Value) List() *List { return (*List)(v.p) }

// Tuple returns the elements of a Tuple.
func (v Value) Tuple() []Value { return (*Tuple)(v.p).elems }

// Object returns the object of an Object.
func (v Value) Object() *Object { return (*Object)(v.p) }

// Inner returns the wrapped value of Some, Ok or Err.
func (v Value) Inner() Value { return *(*Value)(v.p) }

func (v Value) tagged() *Tagged   { return (*Tagged)(v.p) }
func (v Value) closure() *Closure { return (*Closure)(v.p) }
func (v Value) builtin() *Builtin { return (*Builtin)(v.p) }
func (v Value) cell() *Value      { return (*Value)(v.p) }

// Elems returns the elements of a list.
func (l *List) Elems() []Value { return l.elems }

// size is what a value accounts for inside a container (docs/vox-language.md, Limits: a
// list counts 16 bytes per element plus its elements): the bytes of a
// string, the accounted size of a container, nothing more for scalars.
// Containers record their size when they are built or grow, so this is
// O(1); a container changed after it was put into another is not
// re-counted there, but it is still checked on its own.
func (v Value) size() int64 {
	switch v.k {
	case KStr:
		return int64(v.n)
	case KList:
		return v.List().size
	case KTuple:
		return (*Tuple)(v.p).size
	case KObject:
		return v.Object().size
	case KSome, KOk, KErr:
		return (*box)(v.p).size
	case KTagged:
		return v.tagged().size
	case KFunc:
		return v.closure().size
	case KRegex:
		return int64(len(v.regex().String()))
	case KMatch:
		return v.match().size
	}
	return 0
}

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in insertion order.
func (o *Object) Keys() []string { return o.keys }

// Get returns the value of key.
func (o *Object) Get(key string) (Value, bool) {
	if o.index != nil {
		i, ok := o.index[key]
		if !ok {
			return Value{}, false
		}
		return o.vals[i], true
	}
	for i, k := range o.keys {
		if k == key {
			return o.vals[i], true
		}
	}
	return Value{}, false
}

// Set sets key, appending it when new.
func (o *Object) Set(key string, v Value) {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			o.size += v.size() - o.vals[i].size()
			o.vals[i] = v
			return
		}
	} else {
		for i, k := range o.keys {
			if k == key {
				o.size += v.size() - o.vals[i].size()
				o.vals[i] = v
				return
			}
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	o.size += 16 + int64(len(key)) + v.size()
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > 8 {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

// Delete removes key, keeping the order of the others.
func (o *Object) Delete(key string) {
	i := -1
	if o.index != nil {
		if j, ok := o.index[key]; ok {
			i = j
		}
	} else {
		for j, k := range o.keys {
			if k == key {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return
	}
	o.size -= 16 + int64(len(key)) + o.vals[i].size()
	o.keys = slices.Delete(o.keys, i, i+1)
	o.vals = slices.Delete(o.vals, i, i+1)
	if o.index != nil {
		delete(o.index, key)
		for j := i; j < len(o.keys); j++ {
			o.index[o.keys[j]] = j
		}
	}
}

// typeName is the name type_of returns and messages use.
func (v Value) typeName() string {
	switch v.k {
	case KNull:
		return "Unit"
	case KBool:
		return "bool"
	case KInt:
		return "int"
	case KFloat:
		return "float"
	case KStr:
		return "str"
	case KList:
		return "list"
	case KTuple:
		return "tuple"
	case KObject:
		return "map"
	case KNone, KSome:
		return "Option"
	case KOk, KErr:
		return "Result"
	case KTagged:
		return v.tagged().ctor.Type
	case KDec:
		return "dec"
	case KFunc, KBuiltin:
		return "fn"
	case KNamespace:
		return "namespace"
	case KRegex:
		return "Regex"
	case KMatch:
		return "Match"
	}
	return "internal"
}
