package eval

import "slices"

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

// The method tables, one per receiver type, are generated from the
// library contract (contracts/library/library.v1.yaml) into methodTables
// (library.gen.go): a method is its row there, whose impl (and update) name
// its functions in methods_*.go, so that a row without its function does not
// compile and a function without a row is no method. The reference table of
// docs/vox-language.md is generated from the same rows.

// anyTable holds the methods of every value (to_str).
var anyTable *MethodTable

// methodsByKind is the table of each kind of receiver; anyTable's methods
// apply to every kind after it.
var methodsByKind [kindCount]*MethodTable

func init() {
	for _, t := range methodTables {
		t.index = make(map[string]*Method, len(t.Methods))
		for _, m := range t.Methods {
			// The generator has checked that a method has at most three
			// parameters and an update when it mutates.
			m.params = m.Sig.LongestParams()
			m.required, _ = m.Sig.Arity()
			t.index[m.Name] = m
		}
		for _, k := range t.kinds {
			methodsByKind[k] = t
		}
		if t.Receiver == "any" {
			anyTable = t
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
	if anyTable == nil {
		return nil
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
