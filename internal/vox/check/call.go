package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// call checks a call: of a function of the file, a builtin, a
// constructor, a method or a capability function; anything else is
// checked for being callable.
func (c *checker) call(e *syntax.CallExpr) *Type {
	switch fn := e.Fn.(type) {
	case *syntax.DotExpr:
		return c.methodCall(e, fn)
	case *syntax.Ident:
		b, _ := fn.Binding.(*resolve.Binding)
		if b != nil {
			switch b.Scope {
			case resolve.Global:
				if b.Index < len(c.funcs) && c.funcs[b.Index].decl.Unavailable == nil {
					c.ident(fn, false)
					return c.fileCall(e, c.funcs[b.Index])
				}
			case resolve.Builtin:
				if s := c.lib.builtins[fn.Name]; s != nil {
					c.ident(fn, false)
					return c.libCall(e, "", fn.Name, s, &bindings{}, fn.NamePos)
				}
			case resolve.Ctor:
				c.ident(fn, false)
				return c.ctorCall(e, fn, b.Index)
			}
		}
		if (b == nil || b.Scope == resolve.Undefined) && syntax.IsSelfClosingView(e) && !c.imports[fn.Name] {
			for _, a := range e.Args {
				c.expr(a.Value)
			}
			c.warnf(fn.NamePos, "vox/view/unsupported", []string{"vox-mcp does not render views: keep this function out of what tools call"},
				"%s(...) is a view element: the function is checked, but evaluating the element fails", fn.Name)
			return tUnknown
		}
	}
	ft := c.expr(e.Fn)
	args := make([]*Type, len(e.Args))
	for i, a := range e.Args {
		var want *Type
		if ft.Kind == KFunc && i < len(ft.Args) {
			want = ft.Args[i]
		}
		args[i] = c.exprWant(a.Value, want)
	}
	switch ft.Kind {
	case KFunc:
		if ft.Ret != nil {
			return ft.Ret
		}
		return tUnknown
	case KUnknown, KNever, KNamespace:
		return tUnknown
	}
	c.errorf(callPos(e), "vox/call/not-callable", nil, "%s is not a function: it is %s", exprText(e.Fn), ft)
	return tUnknown
}

// callPos is where a call's errors point: the name called.
func callPos(e *syntax.CallExpr) syntax.Pos {
	if d, ok := e.Fn.(*syntax.DotExpr); ok {
		return d.NamePos
	}
	return e.Fn.Span()
}

func exprText(x syntax.Expr) string {
	switch x := x.(type) {
	case *syntax.Ident:
		return x.Name
	case *syntax.DotExpr:
		return exprText(x.X) + "." + x.Name
	}
	return "this value"
}

// fileCall checks a call of a function of the file: arity (defaults may
// be left out, named arguments bind by name) and argument types.
func (c *checker) fileCall(e *syntax.CallExpr, s *funcSig) *Type {
	d := s.decl
	params := d.Params
	given := make([]bool, len(params))
	pos := 0
	tooMany := false
	unknownNamed := false
	for _, a := range e.Args {
		j := -1
		if a.Name != "" {
			j = slices.IndexFunc(params, func(p *syntax.Param) bool { return p.Name == a.Name })
			if j < 0 {
				names := paramNames(params)
				help := []string{fmt.Sprintf("%s takes %s", d.Name, fnSignature(d))}
				if best := suggest(a.Name, names, 2); best != "" {
					help = append([]string{"did you mean " + best + "?"}, help...)
				}
				c.expr(a.Value)
				// The reference binds named arguments by position, names
				// ignored (spec 21 §6.5): a warning; the call fails here.
				c.warnf(a.NamePos, "vox/call/unknown-argument", help, "%s has no parameter %s", d.Name, a.Name)
				unknownNamed = true
				continue
			}
		} else {
			j = pos
			pos++
			if j >= len(params) {
				c.expr(a.Value)
				tooMany = true
				continue
			}
		}
		if given[j] {
			c.errorf(a.Value.Span(), "vox/call/arity", nil, "argument %s of %s is given twice", params[j].Name, d.Name)
		}
		given[j] = true
		at := c.exprWant(a.Value, s.params[j])
		if !assignable(s.params[j], at) {
			c.errorf(a.Value.Span(), "vox/call/argument", mismatchHelp(s.params[j], at), "argument %s of %s must be %s, but this is %s", params[j].Name, d.Name, s.params[j], at)
		}
	}
	var missing []string
	for j, p := range params {
		if !given[j] && p.Default == nil && !p.Type.IsNamed("Option") {
			missing = append(missing, p.Name)
		}
	}
	if tooMany || len(missing) > 0 {
		need := 0
		for _, p := range params {
			if p.Default == nil {
				need++
			}
		}
		msg := fmt.Sprintf("%s takes %s, but this call gives %d", d.Name, countText(need, len(params)), len(e.Args))
		if len(missing) > 0 {
			msg += ": missing " + strings.Join(missing, ", ")
		}
		report := c.errorf
		if unknownNamed && !tooMany {
			report = c.warnf // the reference binds the unknown name's argument by position
		}
		report(callPos(e), "vox/call/arity", []string{fmt.Sprintf("%s is declared at %d:%d: %s", d.Name, d.NamePos.Line, d.NamePos.Col, fnSignature(d))}, "%s", msg)
	}
	return s.ret
}

func countText(least, most int) string {
	switch {
	case most == math.MaxInt:
		return fmt.Sprintf("at least %d argument(s)", least)
	case least == most:
		return fmt.Sprintf("%d argument(s)", least)
	}
	return fmt.Sprintf("%d to %d arguments", least, most)
}

func paramNames(ps []*syntax.Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// fnSignature writes a function's head as declared.
func fnSignature(d *syntax.FnDecl) string {
	var b strings.Builder
	b.WriteString(d.Name)
	b.WriteByte('(')
	for i, p := range d.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Type != nil {
			b.WriteString(": ")
			b.WriteString(p.Type.String())
		}
		if p.Default != nil {
			b.WriteString(" = ")
			b.WriteString(p.DefaultText)
		}
	}
	b.WriteByte(')')
	if d.Result != nil {
		b.WriteString(" to ")
		b.WriteString(d.Result.String())
	}
	return b.String()
}

// ctorCall checks a constructor call: Some(x), Ok(x), Err(e) or a variant
// of the file with its fields.
func (c *checker) ctorCall(e *syntax.CallExpr, id *syntax.Ident, idx int) *Type {
	args := make([]*Type, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a.Value)
	}
	arg0 := tUnknown
	if len(args) > 0 {
		arg0 = args[0]
	}
	switch idx {
	case resolve.CtorSome:
		return optionOf(arg0)
	case resolve.CtorOk:
		return &Type{Kind: KResult, Args: []*Type{arg0, tUnknown}}
	case resolve.CtorErr:
		return &Type{Kind: KResult, Args: []*Type{tUnknown, arg0}}
	case resolve.CtorNone:
		return tOptionAny
	}
	v := c.variant(idx)
	res := c.ctorResult(idx)
	if v == nil {
		return res
	}
	if len(e.Args) != len(v.Fields) {
		c.errorf(callPos(e), "vox/call/arity", []string{fmt.Sprintf("%s is declared at %d:%d with %d field(s)", v.Name, v.Pos.Line, v.Pos.Col, len(v.Fields))},
			"%s takes %d argument(s), but this call gives %d", v.Name, len(v.Fields), len(e.Args))
		return res
	}
	for i, f := range v.Fields {
		want := c.ts.fromSyntax(f.Type, 0)
		if !assignable(want, args[i]) {
			c.errorf(e.Args[i].Value.Span(), "vox/call/argument", mismatchHelp(want, args[i]), "field %s of %s must be %s, but this is %s", f.Name, v.Name, want, args[i])
		}
	}
	return res
}

// methodCall checks recv.name(args): a capability function of a
// namespace, or a method from the library table of the receiver's type.
func (c *checker) methodCall(e *syntax.CallExpr, d *syntax.DotExpr) *Type {
	rt := c.receiver(d.X)
	if rt.Kind == KNamespace {
		return c.nsCall(e, d, rt.Name)
	}
	if !rt.known() || noReferenceMethods(rt, d.Name) {
		if rt.Kind != KNever {
			c.referenceRejects(d.NamePos, "vox/compat/method-receiver",
				[]string{"annotate the value's type upstream (a parameter's type, a let's type), or call a builtin instead"},
				"the reference rejects this: it has no method %s on %s", d.Name, receiverKind(rt))
		}
		if !rt.known() {
			c.args(e, nil)
			return tUnknown
		}
	}
	table := receiverTable(rt)
	var m *libSig
	if table != "" {
		m = c.lib.methods[table][d.Name]
	}
	if m == nil {
		m = c.lib.methods["any"][d.Name]
		table = "any"
	}
	if m == nil {
		c.args(e, nil)
		var names []string
		if t := receiverTable(rt); t != "" {
			for n := range c.lib.methods[t] {
				names = append(names, n)
			}
		}
		for n := range c.lib.methods["any"] {
			names = append(names, n)
		}
		help := []string{fmt.Sprintf("the methods of %s are listed in docs/vox-language.md, Methods", rt)}
		var fix = noFix
		if best := suggest(d.Name, names, 2); best != "" {
			help = []string{"did you mean " + best + "?"}
			fix = fixAt(d.NamePos, endOf(d.NamePos, d.Name), best)
		}
		if inner := unwrapped(rt); inner != nil && (c.lib.methods[receiverTable(inner)][d.Name] != nil || c.lib.methods["any"][d.Name] != nil && inner.known()) {
			// fs.read(p).lines(): the method is the value's, not the
			// Result's.
			verb := "`?` passes an Err on to the caller"
			if rt.Kind == KOption {
				verb = "`?` passes a None on to the caller"
			}
			help = []string{fmt.Sprintf("%s is the method of the %s inside: unwrap the %s first — %s (x?.%s(...)) — or match it", d.Name, inner, rt, verb, d.Name)}
			fix = noFix
		}
		if rt.Kind == KRecord && c.recordHasField(rt.Name, d.Name) {
			help = []string{fmt.Sprintf("%s is a field: call its value with (x.%s)(...)", d.Name, d.Name)}
		}
		c.add(diagErr(d.NamePos, "vox/method/unknown", fmt.Sprintf("no method %s on %s", d.Name, rt), help, fix))
		return tUnknown
	}
	var b bindings
	if r := c.lib.recv[table]; r != nil {
		r.fits(rt, &b, 0)
	}
	if c.rec != nil {
		c.record(d.NamePos, d.Name, "method", tFuncAny, syntax.Pos{}, m.sig.Format(rt.String()+"."+d.Name))
	}
	return c.libCall(e, table, d.Name, m, &b, d.NamePos)
}

func (c *checker) recordHasField(name, field string) bool {
	if rd, ok := c.mod.Records[name]; ok {
		return slices.ContainsFunc(rd.Fields, func(f *syntax.Field) bool { return f.Name == field })
	}
	return false
}

// receiver checks a method's receiver: a name used so is used as a value.
func (c *checker) receiver(x syntax.Expr) *Type {
	if id, ok := x.(*syntax.Ident); ok {
		return c.ident(id, false)
	}
	return c.expr(x)
}

// nsCall checks a capability function call, ns.name(args).
func (c *checker) nsCall(e *syntax.CallExpr, d *syntax.DotExpr, ns string) *Type {
	info := c.lib.ns[ns]
	if info == nil {
		c.args(e, nil)
		return tUnknown
	}
	f := info.funcs[d.Name]
	if f == nil {
		c.args(e, nil)
		var names []string
		for n := range info.funcs {
			names = append(names, n)
		}
		if slices.ContainsFunc(info.ns.Denied, func(x libsig.Denial) bool { return x.Name == d.Name }) || info.ns.DeniesOthers || len(info.funcs) == 0 {
			help := []string{"vox-mcp's " + ns + " offers " + strings.Join(sortedCopy(names), ", ")}
			if len(names) == 0 {
				help = []string{"vox-mcp grants no " + ns + " capability (docs/vox-language.md, Capabilities)"}
			}
			c.warnf(d.NamePos, "vox/capability/denied", help,
				"%s.%s is not granted here: the call fails with capability denied", ns, d.Name)
			return tUnknown
		}
		help := []string{"the functions of " + ns + " are " + strings.Join(sortedCopy(names), ", ")}
		fix := noFix
		if best := suggest(d.Name, names, 2); best != "" {
			help = []string{"did you mean " + ns + "." + best + "?"}
			fix = fixAt(d.NamePos, endOf(d.NamePos, d.Name), best)
		}
		c.add(diagErr(d.NamePos, "vox/method/unknown", fmt.Sprintf("%s has no function %s", ns, d.Name), help, fix))
		return tUnknown
	}
	if c.rec != nil {
		c.record(d.NamePos, d.Name, "capability function", tFuncAny, syntax.Pos{}, f.sig.Format(ns+"."+d.Name))
	}
	return c.libCall(e, ns, d.Name, f, &bindings{}, d.NamePos)
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// args checks the arguments of a call the checker knows nothing of.
func (c *checker) args(e *syntax.CallExpr, want []*Type) {
	for _, a := range e.Args {
		c.expr(a.Value)
	}
}

// libCall checks a call of a library function (builtin, method or
// capability function) against its signature.
// The name in messages is recv.name for a method or capability function
// (recv a receiver table or a namespace), name for a builtin; it is made
// only when a message needs it.
func (c *checker) libCall(e *syntax.CallExpr, recv, fname string, s *libSig, b *bindings, at syntax.Pos) *Type {
	name := fname
	if recv != "" {
		name = recvName(recv) + "." + fname
	}
	params := s.paramsOf()
	n := len(e.Args)
	types := make([]*Type, n)
	for i, a := range e.Args {
		j := i
		if a.Name != "" {
			j = slices.IndexFunc(params, func(p libsig.Param) bool { return p.Name == a.Name })
			if j < 0 || recv == "" {
				c.expr(a.Value)
				help := []string{"the signature is " + s.sig.Format(name)}
				c.warnf(a.NamePos, "vox/call/unknown-argument", help, "%s takes no argument named %s", name, a.Name)
				types[i] = tUnknown
				continue
			}
		}
		if j >= len(params) && len(params) > 0 && params[len(params)-1].Variadic {
			j = len(params) - 1
		}
		var want *Type
		if j < len(s.params) {
			want = s.params[j].inst(b, 0)
		}
		types[i] = c.exprWant(e.Args[i].Value, want)
		if j < len(s.params) && !s.params[j].fits(types[i], b, 0) {
			c.errorf(e.Args[i].Value.Span(), "vox/call/argument", []string{"the signature is " + s.sig.Format(name)},
				"argument %s of %s must be %s, but this is %s", params[j].Name, name, params[j].Type, types[i])
		}
	}
	form := -1
	for k, ar := range s.arities {
		if n >= ar[0] && n <= ar[1] {
			form = k
			break
		}
	}
	if form < 0 {
		lo, hi := s.sig.Arity()
		c.errorf(callPos(e), "vox/call/arity", []string{"the signature is " + strings.ReplaceAll(s.sig.Format(name), "\n", "; ")},
			"%s takes %s, but this call gives %d", name, countText(lo, hi), n)
		return tUnknown
	}
	if len(params) > 0 && params[0].Variadic && n == 1 && (types[0].Kind == KList || types[0].Kind == KTuple) {
		return tUnknown // min(xs): of a list's elements
	}
	return s.results[form].inst(b, 0)
}

// recvName is how messages name a receiver table: str, list, map, ...
func recvName(table string) string {
	switch table {
	case "list[T]":
		return "list"
	case "map[str, V]":
		return "map"
	case "N: int | float":
		return "number"
	case "Option[T]":
		return "Option"
	case "Result[T, E]":
		return "Result"
	}
	return table
}

// unwrapped is the value type inside a Result or an Option, nil for any
// other type.
func unwrapped(t *Type) *Type {
	if (t.Kind == KResult || t.Kind == KOption) && len(t.Args) > 0 && t.Args[0].known() {
		return t.Args[0]
	}
	return nil
}
