package check

import (
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Patterns and constructors: the names a let, for or match pattern binds
// and their types, and the fields, variant and result type of a
// constructor.

// bindPattern binds the names of a let, for or match pattern to the parts
// of t.
func (c *checker) bindPattern(p syntax.Pattern, t *Type, kind localKind, mut, typed bool) {
	if !c.enter() {
		c.depth--
		return
	}
	defer func() { c.depth-- }()
	switch p := p.(type) {
	case *syntax.BindPat:
		b, _ := p.Ident.Binding.(*resolve.Binding)
		if b == nil || b.Scope == resolve.Ctor {
			if b != nil {
				c.record(p.Ident.NamePos, p.Ident.Name, "constructor", c.ctorResult(b.Index), c.ctorPos(b.Index), "")
			}
			return
		}
		l := c.newLocal(local{name: p.Ident.Name, t: t, pos: p.Ident.NamePos, kind: kind, mut: mut, typed: typed})
		c.locals[b] = l
		c.scope = append(c.scope, l)
		c.record(p.Ident.NamePos, p.Ident.Name, kindName(kind), t, p.Ident.NamePos, "")
	case *syntax.TuplePat:
		for i, e := range p.Elems {
			et := tUnknown
			if t.Kind == KTuple && i < len(t.Args) {
				et = t.Args[i]
			} else if t.Kind == KList {
				et = t.arg(0)
			}
			c.bindPattern(e, et, kind, mut, false)
		}
		if t.Kind == KTuple && t.Args != nil && len(t.Args) != len(p.Elems) {
			c.errorf(p.Pos, "vox/pattern/shape", nil, "this pattern has %d elements, but the value is a tuple of %d", len(p.Elems), len(t.Args))
		}
	case *syntax.CtorPat:
		b, _ := p.Name.Binding.(*resolve.Binding)
		var fields []*Type
		if b != nil && b.Scope == resolve.Ctor {
			fields = c.ctorFields(b.Index, t)
			c.record(p.Name.NamePos, p.Name.Name, "constructor", c.ctorResult(b.Index), c.ctorPos(b.Index), "")
			if n := len(c.mod.Ctors[b.Index].Fields); b.Index >= resolve.NumCoreCtors && n != len(p.Args) {
				report := c.errorf
				if len(p.Args) < n {
					report = c.warnf // the reference ignores the fields left out (spec 21 §5.3)
				}
				report(p.Name.NamePos, "vox/pattern/shape", nil, "%s has %d field(s), but the pattern gives %d", p.Name.Name, n, len(p.Args))
			}
			if ct := c.ctorResult(b.Index); t.known() && !assignable(t, ct) && !(t.Kind == KResult && ct.Kind == KResult) {
				c.errorf(p.Name.NamePos, "vox/pattern/type", nil, "the pattern %s is %s, but the value matched is %s", p.Name.Name, ct, t)
			}
		} else if b != nil && b.Scope == resolve.Undefined {
			c.undefined(p.Name)
		}
		for i, a := range p.Args {
			ft := tUnknown
			if i < len(fields) {
				ft = fields[i]
			}
			c.bindPattern(a, ft, kind, mut, false)
		}
	}
}

// ctorFields is the types of a constructor's fields, given the type of
// the value matched.
func (c *checker) ctorFields(idx int, t *Type) []*Type {
	switch idx {
	case resolve.CtorNone:
		return nil
	case resolve.CtorSome:
		if t.Kind == KOption {
			return []*Type{t.arg(0)}
		}
		return []*Type{tUnknown}
	case resolve.CtorOk:
		if t.Kind == KResult {
			return []*Type{t.arg(0)}
		}
		return []*Type{tUnknown}
	case resolve.CtorErr:
		if t.Kind == KResult {
			return []*Type{t.arg(1)}
		}
		return []*Type{tUnknown}
	}
	v := c.variant(idx)
	if v == nil {
		return nil
	}
	out := make([]*Type, len(v.Fields))
	for i, f := range v.Fields {
		out[i] = c.ts.fromSyntax(f.Type, 0)
	}
	return out
}

// variant finds the declaration of a constructor of the file.
func (c *checker) variant(idx int) *syntax.Variant {
	if idx < resolve.NumCoreCtors || idx >= len(c.mod.Ctors) {
		return nil
	}
	ct := c.mod.Ctors[idx]
	for _, d := range c.mod.File.Decls {
		if td, ok := d.(*syntax.TypeDecl); ok && td.Name == ct.Type {
			for _, v := range td.Variants {
				if v.Name == ct.Name {
					return v
				}
			}
		}
	}
	return nil
}

func (c *checker) ctorPos(idx int) syntax.Pos {
	if v := c.variant(idx); v != nil {
		return v.Pos
	}
	return syntax.Pos{}
}

// ctorResult is the type a constructor makes.
func (c *checker) ctorResult(idx int) *Type {
	switch idx {
	case resolve.CtorNone, resolve.CtorSome:
		return tOptionAny
	case resolve.CtorOk, resolve.CtorErr:
		return tResultAny
	}
	if idx >= len(c.mod.Ctors) {
		return tUnknown
	}
	if c.ctorTypes == nil {
		c.ctorTypes = make([]*Type, len(c.mod.Ctors))
	}
	if c.ctorTypes[idx] == nil {
		c.ctorTypes[idx] = &Type{Kind: KNamed, Name: c.mod.Ctors[idx].Type}
	}
	return c.ctorTypes[idx]
}
