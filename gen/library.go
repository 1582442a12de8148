package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// The library contract (contracts/library/library.v1.yaml) and what it
// compiles into: the signature table of internal/vox/libsig and the
// bindings of package eval (builtins) and package capability (capability
// functions), which name each row's implementation so that a row without
// one does not compile.
const (
	libraryContract = "contracts/library/library.v1.yaml"
	libsigPkg       = ProductModule + "/internal/vox/libsig"
	libsigFile      = "internal/vox/libsig/library.gen.go"
	evalLibFile     = "internal/vox/eval/library.gen.go"
	capLibFile      = "internal/vox/capability/library.gen.go"
)

type libParam struct {
	Name     string `yaml:"name"`
	Type     string `yaml:"type"`
	Optional bool   `yaml:"optional"`
	Default  string `yaml:"default"`
	Variadic bool   `yaml:"variadic"`
	Min      int    `yaml:"min"`
}

type libForm struct {
	Params []libParam `yaml:"params"`
	Result string     `yaml:"result"`
	Notes  string     `yaml:"notes"`
}

type libEntry struct {
	Name      string     `yaml:"name"`
	Params    []libParam `yaml:"params"`
	Result    string     `yaml:"result"`
	Overloads []libForm  `yaml:"overloads"`
	Value     bool       `yaml:"value"`
	Mutates   bool       `yaml:"mutates"`
	Impl      string     `yaml:"impl"`
	Update    string     `yaml:"update"`
	Notes     string     `yaml:"notes"`
	line, col int
}

type libReceiver struct {
	Receiver string     `yaml:"receiver"`
	Kinds    []string   `yaml:"kinds"`
	Methods  []libEntry `yaml:"methods"`
	line     int
}

type libDenial struct {
	Name   string `yaml:"name"`
	Reason string `yaml:"reason"`
	line   int
}

type libNamespace struct {
	Name         string      `yaml:"name"`
	DeniesOthers bool        `yaml:"denies_others"`
	Members      bool        `yaml:"members"`
	Denied       []libDenial `yaml:"denied"`
	Notes        string      `yaml:"notes"`
	Funcs        []libEntry  `yaml:"funcs"`
	line         int
}

type library struct {
	Version    int            `yaml:"version"`
	Builtins   []libEntry     `yaml:"builtins"`
	Receivers  []libReceiver  `yaml:"receivers"`
	Namespaces []libNamespace `yaml:"namespaces"`
}

// UnmarshalYAML keeps the row's position for errors.
func (e *libEntry) UnmarshalYAML(n *yaml.Node) error {
	type plain libEntry
	if err := knownKeys(n, plain{}); err != nil {
		return err
	}
	if err := n.Decode((*plain)(e)); err != nil {
		return err
	}
	e.line, e.col = n.Line, n.Column
	return nil
}

// UnmarshalYAML keeps the receiver's position for errors.
func (r *libReceiver) UnmarshalYAML(n *yaml.Node) error {
	type plain libReceiver
	if err := knownKeys(n, plain{}); err != nil {
		return err
	}
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	r.line = n.Line
	return nil
}

// UnmarshalYAML keeps the row's position for errors.
func (d *libDenial) UnmarshalYAML(n *yaml.Node) error {
	type plain libDenial
	if err := knownKeys(n, plain{}); err != nil {
		return err
	}
	if err := n.Decode((*plain)(d)); err != nil {
		return err
	}
	d.line = n.Line
	return nil
}

// UnmarshalYAML keeps the row's position for errors.
func (ns *libNamespace) UnmarshalYAML(n *yaml.Node) error {
	type plain libNamespace
	if err := knownKeys(n, plain{}); err != nil {
		return err
	}
	if err := n.Decode((*plain)(ns)); err != nil {
		return err
	}
	ns.line = n.Line
	return nil
}

// knownKeys rejects a key of mapping n that is no field of v (a custom
// UnmarshalYAML does not inherit the decoder's KnownFields).
func knownKeys(n *yaml.Node, v any) error {
	t := reflect.TypeOf(v)
	known := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		known[name] = true
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !known[k.Value] {
			return fmt.Errorf("line %d: field %s not found", k.Line, k.Value)
		}
	}
	return nil
}

// ParseLibrary reads and validates the library contract; errors carry the
// contract's path and the row's line.
func ParseLibrary(path string, src []byte) (*library, error) {
	var lib library
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&lib); err != nil {
		return nil, Errors{{Path: path, Message: "library contract: " + err.Error()}}
	}
	var errs Errors
	bad := func(line, col int, format string, args ...any) {
		errs = append(errs, Error{Path: path, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
	}
	if lib.Version != 1 {
		bad(0, 0, "version must be 1, not %d", lib.Version)
	}
	entries := func(kind string, es []libEntry, method bool) {
		seen := map[string]bool{}
		for _, e := range es {
			switch {
			case e.Name == "":
				bad(e.line, e.col, "%s: an entry without a name", kind)
			case seen[e.Name]:
				bad(e.line, e.col, "%s: %s is listed twice", kind, e.Name)
			case e.Result == "":
				bad(e.line, e.col, "%s.%s: result is missing (write Unit for none)", kind, e.Name)
			case e.Value && (e.Impl != "" || method):
				bad(e.line, e.col, "%s.%s: a value has no impl and is no method", kind, e.Name)
			case !method && e.Update != "":
				bad(e.line, e.col, "%s.%s: only a method has an update", kind, e.Name)
			case method && e.Mutates && (e.Impl != "" || !token.IsIdentifier(e.Update)):
				bad(e.line, e.col, "%s.%s: a method with mutates has no impl and its update must name the Go function changing the receiver in place, not %q", kind, e.Name, e.Update)
			case method && e.Update != "" && !token.IsIdentifier(e.Update):
				bad(e.line, e.col, "%s.%s: update must name the Go function changing the receiver in place, not %q", kind, e.Name, e.Update)
			case (!method || !e.Mutates) && !e.Value && !token.IsIdentifier(e.Impl):
				bad(e.line, e.col, "%s.%s: impl must name the Go function implementing it, not %q", kind, e.Name, e.Impl)
			case method && e.maxParams() > 3:
				bad(e.line, e.col, "%s.%s: a method takes at most 3 parameters, not %d", kind, e.Name, e.maxParams())
			}
			seen[e.Name] = true
		}
	}
	entries("builtins", lib.Builtins, false)
	seenRecv := map[string]bool{}
	for _, r := range lib.Receivers {
		switch {
		case r.Receiver == "" || seenRecv[r.Receiver]:
			bad(r.line, 1, "receiver %q is empty or listed twice", r.Receiver)
		case r.Receiver == "any" && len(r.Kinds) > 0:
			bad(r.line, 1, "receiver any: its methods are every value's; kinds is not allowed")
		case r.Receiver != "any" && len(r.Kinds) == 0:
			bad(r.line, 1, "receiver %s: kinds must list the eval.Kind constants of its values (KStr, ...)", r.Receiver)
		}
		for _, k := range r.Kinds {
			if !token.IsIdentifier(k) {
				bad(r.line, 1, "receiver %s: kind %q is no Go identifier", r.Receiver, k)
			}
		}
		seenRecv[r.Receiver] = true
		entries(r.Receiver, r.Methods, true)
	}
	seen := map[string]bool{}
	for _, ns := range lib.Namespaces {
		if seen[ns.Name] || ns.Name == "" {
			bad(ns.line, 1, "namespace %q is empty or listed twice", ns.Name)
		}
		seen[ns.Name] = true
		entries(ns.Name, ns.Funcs, false)
		for _, d := range ns.Denied {
			if d.Name == "" || d.Reason == "" {
				bad(d.line, 1, "%s: a denied entry needs a name and the reason it is denied", ns.Name)
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return &lib, nil
}

// produceLibrary compiles the library contract; a repository without one
// (a user's repository) gets nothing.
func produceLibrary(in *inputs) ([]output, error) {
	src, err := os.ReadFile(filepath.Join(in.root, filepath.FromSlash(libraryContract)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lib, err := ParseLibrary(libraryContract, src)
	if err != nil {
		return nil, err
	}
	var outs []output
	for _, f := range []struct {
		path string
		file *jen.File
	}{
		{libsigFile, lib.sigTable()},
		{evalLibFile, lib.evalBinding()},
		{capLibFile, lib.capBinding()},
	} {
		var b bytes.Buffer
		if err := f.file.Render(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		o := output{path: f.path, data: b.Bytes()}
		if err := in.settle(&o); err != nil {
			return nil, err
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func libFile(pkg string) *jen.File {
	f := jen.NewFile(pkg)
	f.HeaderComment(commentSafe("Code generated by \"" + regenerateCommand + "\"; DO NOT EDIT."))
	f.HeaderComment(commentSafe("Source: " + libraryContract))
	f.ImportName(libsigPkg, "libsig")
	return f
}

// sig is a Signature literal; q qualifies the type names (libsig's own
// file does not).
func (e libEntry) sig(q func(string) *jen.Statement) jen.Code {
	d := jen.Dict{}
	if len(e.Params) > 0 {
		d[jen.Id("Params")] = params(e.Params, q)
	}
	d[jen.Id("Result")] = jen.Lit(e.Result)
	if e.Notes != "" {
		d[jen.Id("Notes")] = jen.Lit(e.Notes)
	}
	if len(e.Overloads) > 0 {
		var os []jen.Code
		for _, o := range e.Overloads {
			od := jen.Dict{jen.Id("Result"): jen.Lit(o.Result)}
			if len(o.Params) > 0 {
				od[jen.Id("Params")] = params(o.Params, q)
			}
			if o.Notes != "" {
				od[jen.Id("Notes")] = jen.Lit(o.Notes)
			}
			os = append(os, jen.Values(od))
		}
		d[jen.Id("Overloads")] = jen.Index().Add(q("Signature")).Values(os...)
	}
	return q("Signature").Values(d)
}

func params(ps []libParam, q func(string) *jen.Statement) jen.Code {
	var out []jen.Code
	for _, p := range ps {
		d := jen.Dict{jen.Id("Name"): jen.Lit(p.Name), jen.Id("Type"): jen.Lit(p.Type)}
		if p.Optional {
			d[jen.Id("Optional")] = jen.True()
		}
		if p.Default != "" {
			d[jen.Id("Default")] = jen.Lit(p.Default)
		}
		if p.Variadic {
			d[jen.Id("Variadic")] = jen.True()
		}
		if p.Min != 0 {
			d[jen.Id("Min")] = jen.Lit(p.Min)
		}
		out = append(out, jen.Values(d))
	}
	return jen.Index().Add(q("Param")).Values(out...)
}

func (e libEntry) entry(q func(string) *jen.Statement) jen.Code {
	d := jen.Dict{jen.Id("Name"): jen.Lit(e.Name), jen.Id("Sig"): e.sig(q)}
	if e.Value {
		d[jen.Id("Value")] = jen.True()
	}
	if e.Mutates {
		d[jen.Id("Mutates")] = jen.True()
	}
	return jen.Values(d)
}

// maxParams is the number of parameters of the entry's longest form.
func (e libEntry) maxParams() int {
	n := len(e.Params)
	for _, o := range e.Overloads {
		n = max(n, len(o.Params))
	}
	return n
}

// sigTable is internal/vox/libsig/library.gen.go: every entry's signature.
func (lib *library) sigTable() *jen.File {
	f := libFile("libsig")
	q := func(name string) *jen.Statement { return jen.Id(name) }
	entries := func(es []libEntry) jen.Code {
		var out []jen.Code
		for _, e := range es {
			out = append(out, e.entry(q))
		}
		return jen.Index().Id("Entry").ValuesFunc(func(g *jen.Group) {
			for _, c := range out {
				g.Add(c)
			}
		})
	}
	f.Comment("builtins are the builtins, in the order of the universe.")
	f.Var().Id("builtins").Op("=").Add(entries(lib.Builtins))
	f.Comment("receivers are the method tables.")
	f.Var().Id("receivers").Op("=").Index().Id("Receiver").ValuesFunc(func(g *jen.Group) {
		for _, r := range lib.Receivers {
			g.Values(jen.Dict{jen.Id("Type"): jen.Lit(r.Receiver), jen.Id("Methods"): entries(r.Methods)})
		}
	})
	f.Comment("namespaces are the capability namespaces, in the order of the universe.")
	f.Var().Id("namespaces").Op("=").Index().Id("Namespace").ValuesFunc(func(g *jen.Group) {
		for _, ns := range lib.Namespaces {
			d := jen.Dict{jen.Id("Name"): jen.Lit(ns.Name)}
			if len(ns.Funcs) > 0 {
				d[jen.Id("Funcs")] = entries(ns.Funcs)
			}
			if len(ns.Denied) > 0 {
				d[jen.Id("Denied")] = jen.Index().Id("Denial").ValuesFunc(func(g *jen.Group) {
					for _, x := range ns.Denied {
						g.Values(jen.Dict{jen.Id("Name"): jen.Lit(x.Name), jen.Id("Reason"): jen.Lit(x.Reason)})
					}
				})
			}
			if ns.DeniesOthers {
				d[jen.Id("DeniesOthers")] = jen.True()
			}
			if ns.Members {
				d[jen.Id("Members")] = jen.True()
			}
			if ns.Notes != "" {
				d[jen.Id("Notes")] = jen.Lit(ns.Notes)
			}
			g.Values(d)
		}
	})
	return f
}

// evalBinding is internal/vox/eval/library.gen.go: the builtins table and
// the method tables, each row's signature from libsig and its
// implementation by name.
func (lib *library) evalBinding() *jen.File {
	f := libFile("eval")
	f.Comment("builtins is the builtins table: each entry's signature comes from")
	f.Comment("the library contract and its implementation is the function its row")
	f.Comment("names, so that a row without one does not compile.")
	f.Var().Id("builtins").Op("=").Index().Op("*").Id("BuiltinSpec").ValuesFunc(func(g *jen.Group) {
		for i, b := range lib.Builtins {
			d := jen.Dict{
				jen.Id("Name"): jen.Lit(b.Name),
				jen.Id("Sig"):  jen.Qual(libsigPkg, "Builtins").Call().Index(jen.Lit(i)).Dot("Sig"),
			}
			if b.Value {
				d[jen.Id("Value")] = jen.True()
			} else {
				d[jen.Id("fn")] = jen.Id(b.Impl)
			}
			g.Values(d)
		}
	})
	f.Comment("methodTables is the method tables, one per receiver type, as")
	f.Comment("go.starlark.net keeps stringMethods and listMethods: each method's")
	f.Comment("signature comes from the library contract and its implementation is")
	f.Comment("the function its row names (impl, and update for one that changes its")
	f.Comment("receiver in place), so that a row without one does not compile.")
	f.Var().Id("methodTables").Op("=").Index().Op("*").Id("MethodTable").ValuesFunc(func(g *jen.Group) {
		for i, r := range lib.Receivers {
			d := jen.Dict{jen.Id("Receiver"): jen.Lit(r.Receiver)}
			if len(r.Kinds) > 0 {
				d[jen.Id("kinds")] = jen.Index().Id("Kind").ValuesFunc(func(g *jen.Group) {
					for _, k := range r.Kinds {
						g.Id(k)
					}
				})
			}
			d[jen.Id("Methods")] = jen.Index().Op("*").Id("Method").ValuesFunc(func(g *jen.Group) {
				for j, m := range r.Methods {
					md := jen.Dict{
						jen.Id("Name"): jen.Lit(m.Name),
						jen.Id("Sig"):  jen.Qual(libsigPkg, "Receivers").Call().Index(jen.Lit(i)).Dot("Methods").Index(jen.Lit(j)).Dot("Sig"),
					}
					if m.Mutates {
						md[jen.Id("Mutates")] = jen.True()
					} else {
						md[jen.Id("fn")] = jen.Id(m.Impl)
					}
					if m.Update != "" {
						md[jen.Id("update")] = jen.Id(m.Update)
					}
					g.Values(md)
				}
			})
			g.Values(d)
		}
	})
	return f
}

// capBinding is internal/vox/capability/library.gen.go: the namespaces,
// each function's signature from libsig and its implementation by name.
func (lib *library) capBinding() *jen.File {
	f := libFile("capability")
	f.Comment("table is every namespace, one entry each, from the library contract:")
	f.Comment("the resolver's universe, the dispatch of calls and the reference table")
	f.Comment("in docs/vox-language.md come from it. A row whose implementation does")
	f.Comment("not exist does not compile.")
	f.Var().Id("table").Op("=").Index().Op("*").Id("Namespace").ValuesFunc(func(g *jen.Group) {
		for i, ns := range lib.Namespaces {
			src := jen.Qual(libsigPkg, "Namespaces").Call().Index(jen.Lit(i))
			d := jen.Dict{jen.Id("Name"): jen.Lit(ns.Name), jen.Id("lib"): jen.Op("&").Add(src)}
			if len(ns.Funcs) > 0 {
				d[jen.Id("Funcs")] = jen.Index().Op("*").Id("Func").ValuesFunc(func(g *jen.Group) {
					for j, fn := range ns.Funcs {
						fd := jen.Dict{
							jen.Id("Name"): jen.Lit(fn.Name),
							jen.Id("Sig"):  jen.Qual(libsigPkg, "Namespaces").Call().Index(jen.Lit(i)).Dot("Funcs").Index(jen.Lit(j)).Dot("Sig"),
							jen.Id("fn"):   jen.Id(fn.Impl),
						}
						if fn.Mutates {
							fd[jen.Id("mutates")] = jen.True()
						}
						g.Values(fd)
					}
				})
			}
			g.Values(d)
		}
	})
	return f
}
