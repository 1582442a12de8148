package libsig

// Entry is one entry of the library: a builtin, a method or a capability
// function.
type Entry struct {
	Name    string
	Sig     Signature
	Value   bool // a predeclared value (Unit), not a function
	Mutates bool // a method that changes the place it is called on; a function that changes something outside the call
}

// Receiver is the methods of one receiver type, as docs and the checker
// write it ("str", "list[T]", "N: int | float").
type Receiver struct {
	Type    string
	Methods []Entry
}

// Denial is a function of the reference that vox-mcp denies by design:
// calling it fails with "capability denied: <ns>.<fn>".
type Denial struct {
	Name   string
	Reason string
}

// Namespace is a capability namespace.
type Namespace struct {
	Name  string
	Funcs []Entry
	// Denied are the reference's functions that exist here only to be
	// denied, with the reason.
	Denied []Denial
	// DeniesOthers: calling a function the namespace lacks is "capability
	// denied" rather than undefined.
	DeniesOthers bool
	// Members: the namespace's fields are the other namespaces (std).
	Members bool
	Notes   string
}

// Denies reports whether every call of the namespace fails with
// "capability denied".
func (ns *Namespace) Denies() bool { return len(ns.Funcs) == 0 && !ns.Members }

// Builtins returns the builtins, in the order of the resolver's universe.
// The entries must not be changed.
func Builtins() []Entry { return builtins }

// Receivers returns the method tables, in the order of the reference in
// docs/vox-language.md. The entries must not be changed.
func Receivers() []Receiver { return receivers }

// Namespaces returns the capability namespaces, in the order of the
// resolver's universe. The entries must not be changed.
func Namespaces() []Namespace { return namespaces }

// String is the entry for messages and docs: its signature, or a value's
// name and type.
func (e *Entry) String() string {
	if e.Value {
		return e.Name + ": " + e.Sig.Result
	}
	return e.Sig.Format(e.Name)
}
