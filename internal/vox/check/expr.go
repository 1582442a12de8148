package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// expr checks an expression and returns its type.
func (c *checker) expr(e syntax.Expr) *Type { return c.exprWant(e, nil) }

// exprWant checks an expression where a value of type want is expected:
// a lambda's untyped parameters take their types from it.
func (c *checker) exprWant(e syntax.Expr, want *Type) *Type {
	if e == nil {
		return tUnknown
	}
	if !c.enter() {
		c.depth--
		return tUnknown
	}
	t := c.exprKind(e, want)
	c.depth--
	return t
}

// exprKind is exprWant by the kind of expression.
func (c *checker) exprKind(e syntax.Expr, want *Type) *Type {
	switch e := e.(type) {
	case *syntax.Ident:
		return c.ident(e, false)
	case *syntax.Literal:
		switch e.Tok {
		case syntax.INT:
			return tInt
		case syntax.FLOAT:
			return tFloat
		case syntax.DEC:
			return tDec
		case syntax.STRING:
			return tStr
		case syntax.TRUE, syntax.FALSE:
			return tBool
		}
		return tUnknown
	case *syntax.TemplateLit:
		for _, v := range e.Vars {
			c.valueUse(v)
		}
		return tStr
	case *syntax.ListExpr:
		var et *Type
		for i, x := range e.Elems {
			t := c.expr(x)
			if i == 0 {
				et = t
			} else {
				et = join(et, t)
			}
		}
		if et == nil {
			if want != nil && want.Kind == KList {
				return want
			}
			et = tUnknown
		}
		return listOf(et)
	case *syntax.TupleExpr:
		if len(e.Elems) == 0 {
			return tUnit
		}
		t := &Type{Kind: KTuple, Args: make([]*Type, len(e.Elems))}
		for i, x := range e.Elems {
			t.Args[i] = c.expr(x)
		}
		return t
	case *syntax.ObjectExpr:
		var vt *Type
		for i, x := range e.Values {
			t := c.expr(x)
			if i == 0 {
				vt = t
			} else {
				vt = join(vt, t)
			}
		}
		if vt == nil {
			vt = tUnknown
		}
		return mapOf(vt)
	case *syntax.RecordLit:
		return c.recordLit(e)
	case *syntax.Block:
		t, fl := c.block(e)
		c.leave = fl
		return t
	case *syntax.IfExpr:
		return c.ifExpr(e)
	case *syntax.MatchExpr:
		return c.match(e)
	case *syntax.ForStmt, *syntax.WhileStmt, *syntax.LoopStmt:
		if fl := c.loop(e); fl != flowNormal {
			c.leave = fl
			return tNever
		}
		return tUnit
	case *syntax.FuncLit:
		return c.lambda(e, want)
	case *syntax.CallExpr:
		return c.call(e)
	case *syntax.DotExpr:
		return c.field(e)
	case *syntax.IndexExpr:
		return c.index(e)
	case *syntax.TryExpr:
		return c.try(e)
	case *syntax.UnaryExpr:
		t := c.expr(e.X)
		if e.Op == syntax.NOT || e.Op == syntax.BANG {
			if t.known() && t.Kind != KBool {
				// The reference unifies not's operand with bool silently.
				c.warnf(e.X.Span(), "vox/type/operands", []string{"compare it: " + condHint(t)}, "not needs a bool, got %s", t)
			}
			return tBool
		}
		if t.known() && !t.numeric() {
			c.warnf(e.X.Span(), "vox/type/operands", nil, "cannot negate %s: - needs a number", t)
			return tUnknown
		}
		return t
	case *syntax.WithExpr:
		t := c.expr(e.X)
		c.expr(e.Options)
		return t
	case *syntax.ViewExpr:
		for _, a := range e.Attrs {
			c.expr(a.Value)
		}
		for _, x := range e.Children {
			c.expr(x)
		}
		c.warnf(e.NamePos, "vox/view/unsupported", []string{"vox-mcp does not render views: keep this function out of what tools call"},
			"%s(...) { ... } is a view element: the function is checked, but evaluating the element fails", e.Name)
		return tUnknown
	case *syntax.BinaryExpr:
		if e.Op == syntax.PIPE {
			call := &syntax.CallExpr{Fn: e.Y, Lparen: e.OpPos, Args: []*syntax.Arg{{Value: e.X}}}
			if inner, ok := e.Y.(*syntax.CallExpr); ok {
				call = &syntax.CallExpr{Fn: inner.Fn, Lparen: inner.Lparen, Args: append([]*syntax.Arg{{Value: e.X}}, inner.Args...)}
			}
			return c.call(call)
		}
		xt := c.operand(e.X)
		yt := c.operand(e.Y)
		c.posCheck(e.X, yt)
		c.posCheck(e.Y, xt)
		return c.binary(e.X, e.Y, xt, yt, e.Op, e.OpPos)
	}
	return tUnknown
}

// operand checks one side of a binary operator. A name is checked as a
// number use: posCheck decides once the other side's type is known.
func (c *checker) operand(x syntax.Expr) *Type {
	if id, ok := x.(*syntax.Ident); ok {
		return c.ident(id, true)
	}
	return c.expr(x)
}

// posCheck warns when x is a map loop's position and the other operand
// is not a number: the position is then used as a value.
func (c *checker) posCheck(x syntax.Expr, other *Type) {
	id, ok := x.(*syntax.Ident)
	if !ok || other.numeric() || other.Kind == KUnknown {
		return
	}
	b, _ := id.Binding.(*resolve.Binding)
	if l := c.localOf(b); l != nil && l.mapPos && !l.posWarn {
		l.posWarn = true
		c.positionNotValue(id, l)
	}
}

// valueUse checks a name used as a value (in a template, as a receiver).
func (c *checker) valueUse(id *syntax.Ident) *Type { return c.ident(id, false) }

// ident checks a name. asNumber says the use is as a number (a map
// loop's position may be used so).
func (c *checker) ident(id *syntax.Ident, asNumber bool) *Type {
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil {
		return tUnknown
	}
	switch b.Scope {
	case resolve.Local, resolve.Cell, resolve.Free:
		l := c.localOf(b)
		if l == nil {
			return tUnknown
		}
		l.used = true
		c.record(id.NamePos, id.Name, kindName(l.kind), l.t, l.pos, "")
		if l.mapPos && !asNumber && !l.posWarn {
			l.posWarn = true
			c.positionNotValue(id, l)
		}
		return l.t
	case resolve.Global:
		if b.Index < len(c.funcs) {
			c.edge(b.Index)
			s := c.funcs[b.Index]
			if c.rec != nil {
				c.record(id.NamePos, id.Name, "function", s.typ, s.decl.NamePos, fnSignature(s.decl))
			}
			return s.typ
		}
	case resolve.Const:
		if b.Index < len(c.consts) {
			c.edge(len(c.funcs) + b.Index)
			t := c.constType(b.Index)
			c.record(id.NamePos, id.Name, "constant", t, c.mod.Consts[b.Index].Pos, "")
			return t
		}
	case resolve.Ctor:
		t := c.ctorResult(b.Index)
		c.record(id.NamePos, id.Name, "constructor", t, c.ctorPos(b.Index), "")
		if b.Index == resolve.CtorNone || b.Index < len(c.mod.Ctors) && len(c.mod.Ctors[b.Index].Fields) == 0 && b.Index >= resolve.NumCoreCtors {
			return t
		}
		return &Type{Kind: KFunc, Ret: t}
	case resolve.Builtin:
		if s := c.lib.builtins[id.Name]; s != nil {
			if s.value {
				if id.Name == "null" {
					// The reference types null as Option[T] with a fresh
					// T (spec 22 §1.6); its run-time value stays Unit.
					c.record(id.NamePos, id.Name, "builtin", tOptionAny, syntax.Pos{}, "null: Option[T]")
					return tOptionAny
				}
				if c.rec != nil {
					c.record(id.NamePos, id.Name, "builtin", tUnit, syntax.Pos{}, id.Name+": Unit")
				}
				return tUnit
			}
			if c.rec != nil {
				c.record(id.NamePos, id.Name, "builtin", tFuncAny, syntax.Pos{}, s.sig.Format(id.Name))
			}
			return s.typ
		}
	case resolve.Namespace:
		c.record(id.NamePos, id.Name, "namespace", &Type{Kind: KNamespace, Name: id.Name}, syntax.Pos{}, "")
		return &Type{Kind: KNamespace, Name: id.Name}
	case resolve.Undefined:
		c.undefined(id)
	}
	return tUnknown
}

// positionNotValue warns of a for over a map whose second name, the
// position, is used as a value: for (k, v) in m is what was meant.
func (c *checker) positionNotValue(id *syntax.Ident, l *local) {
	c.add(diagWarn(l.pos, "vox/for/position-not-value",
		fmt.Sprintf("%s is the position of the entry (an int), not its value: a for over a map binds the (key, value) entry first", l.name),
		[]string{"take the entry apart: for " + l.loopFix + " in ...", fmt.Sprintf("used as a value at %d:%d", id.NamePos.Line, id.NamePos.Col)},
		fixAt(l.loopPos, l.loopEnd, l.loopFix)))
}

// undefined reports a name that is nothing: an error with a suggestion,
// a warning for the platform names, nothing for imported names.
func (c *checker) undefined(id *syntax.Ident) {
	if c.imports[id.Name] {
		return
	}
	if slices.Contains(PlatformNames, id.Name) && (!c.opts.Strict || id.Name == "db") {
		c.warnf(id.NamePos, "vox/name/platform", []string{"vox-mcp does not provide the platform's " + id.Name + ": a call that reaches this fails"},
			"%s is a name of the full Vox platform, undefined here", id.Name)
		return
	}
	var help []string
	if s := suggest(id.Name, c.namesInScope(), 2); s != "" {
		help = []string{"did you mean " + s + "?"}
		c.pending = append(c.pending, pendingDiag{c.item, diagErr(id.NamePos, "vox/name/undefined", "undefined: "+id.Name, help, fixAt(id.NamePos, endOf(id.NamePos, id.Name), s))})
		return
	}
	help = []string{"declare it (let " + id.Name + " = ...), pass it as a parameter, or import it"}
	c.pending = append(c.pending, pendingDiag{c.item, diagErr(id.NamePos, "vox/name/undefined", "undefined: "+id.Name, help, nil)})
}

// namesInScope lists the names a use could have meant.
func (c *checker) namesInScope() []string {
	var out []string
	for _, l := range c.scope {
		out = append(out, l.name)
	}
	for _, f := range c.mod.Funcs {
		out = append(out, f.Name)
	}
	for _, k := range c.mod.Consts {
		out = append(out, k.Name)
	}
	for _, k := range c.mod.Ctors {
		out = append(out, k.Name)
	}
	for name := range c.lib.builtins {
		out = append(out, name)
	}
	for name := range c.lib.ns {
		out = append(out, name)
	}
	return out
}

func (c *checker) recordLit(e *syntax.RecordLit) *Type {
	d, _ := e.Record.(*syntax.RecordDecl)
	for _, f := range e.Fields {
		t := c.expr(f.Value)
		if d == nil {
			continue
		}
		for _, df := range d.Fields {
			if df.Name != f.Name {
				continue
			}
			want := c.ts.fromSyntax(df.Type, 0)
			if !assignable(want, t) && !(want.Kind == KOption && assignable(want.arg(0), t)) {
				c.errorf(f.Value.Span(), "vox/type/mismatch", mismatchHelp(want, t), "field %s of %s is %s, but this value is %s", f.Name, d.Name, want, t)
			}
		}
	}
	if d == nil {
		return tUnknown
	}
	c.record(e.Type.NamePos, e.Type.Name, "record", &Type{Kind: KRecord, Name: d.Name}, d.NamePos, "")
	return &Type{Kind: KRecord, Name: d.Name}
}

func (c *checker) ifExpr(e *syntax.IfExpr) *Type {
	c.cond(e.Cond, "if")
	tt, tf := c.block(e.Then)
	if e.Else == nil {
		return tUnit
	}
	c.leave = flowNormal
	et := c.expr(e.Else)
	ef := c.leave
	if et.Kind != KNever {
		ef = flowNormal
	}
	if tf != flowNormal && ef != flowNormal {
		c.leave = max(tf, ef)
		return tNever
	}
	c.leave = flowNormal
	return join(tt, et)
}

func (c *checker) match(e *syntax.MatchExpr) *Type {
	xt := c.expr(e.X)
	var t *Type
	allLeave := len(e.Arms) > 0
	worst := flowReturns
	for _, arm := range e.Arms {
		mark := len(c.scope)
		c.bindPattern(arm.Pattern, xt, kMatch, false, false)
		if arm.Guard != nil {
			c.cond(arm.Guard, "a match guard")
		}
		c.leave = flowNormal
		at := c.expr(arm.Body)
		if at.Kind == KNever {
			if c.leave == flowBreaks {
				worst = flowBreaks
			}
		} else {
			allLeave = false
		}
		if t == nil {
			t = at
		} else {
			t = join(t, at)
		}
		c.unusedFrom(mark)
		c.scope = c.scope[:mark]
	}
	c.exhaustive(e, xt)
	if allLeave {
		c.leave = worst
		return tNever
	}
	c.leave = flowNormal
	if t == nil {
		return tUnknown
	}
	return t
}

// exhaustive reports a match over an algebraic type of the file, an
// Option, a Result or a bool that misses a case (no arm matching fails at
// run time).
func (c *checker) exhaustive(e *syntax.MatchExpr, xt *Type) {
	var all []string
	switch xt.Kind {
	case KNamed:
		for _, ct := range c.mod.Ctors[resolve.NumCoreCtors:] {
			if ct.Type == xt.Name {
				all = append(all, ct.Name)
			}
		}
	case KOption:
		all = []string{"Some", "None"}
	case KResult:
		all = []string{"Ok", "Err"}
	case KBool:
		all = []string{"true", "false"}
	default:
		return
	}
	covered := map[string]bool{}
	for _, arm := range e.Arms {
		if arm.Guard != nil {
			continue
		}
		switch p := arm.Pattern.(type) {
		case *syntax.WildcardPat:
			return
		case *syntax.BindPat:
			b, _ := p.Ident.Binding.(*resolve.Binding)
			if b == nil || b.Scope != resolve.Ctor {
				return // binds anything
			}
			covered[p.Ident.Name] = true
		case *syntax.CtorPat:
			if slices.IndexFunc(p.Args, refutable) < 0 {
				name := p.Name.Name
				if name == "Error" {
					name = "Err"
				}
				covered[name] = true
			}
		case *syntax.LiteralPat:
			if p.Lit.Tok == syntax.TRUE {
				covered["true"] = true
			} else if p.Lit.Tok == syntax.FALSE {
				covered["false"] = true
			}
		}
	}
	var missing []string
	for _, n := range all {
		if !covered[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return
	}
	what := xt.String()
	report := c.errorf
	if xt.Kind == KOption || xt.Kind == KResult {
		// The reference checks bools and types of the file only (spec 21
		// §5.4): a warning, the match fails at run time on the missing case.
		report = c.warnf
	}
	report(e.Pos, "vox/match/non-exhaustive", []string{"add an arm for " + strings.Join(missing, ", ") + ", or a catch-all arm: _ => ..."},
		"non-exhaustive match on type %s: missing %s", what, strings.Join(missing, ", "))
}

// refutable reports whether a pattern may fail to match.
func refutable(p syntax.Pattern) bool {
	switch p := p.(type) {
	case *syntax.WildcardPat:
		return false
	case *syntax.BindPat:
		b, _ := p.Ident.Binding.(*resolve.Binding)
		return b != nil && b.Scope == resolve.Ctor
	case *syntax.TuplePat:
		return slices.ContainsFunc(p.Elems, refutable)
	}
	return true
}

// lambda checks a function literal in its own frame.
func (c *checker) lambda(e *syntax.FuncLit, want *Type) *Type {
	fn, _ := e.Function.(*resolve.Function)
	ts := c.ts.withParams(c.fnTypeParams())
	ret := tUnknown
	if e.Result != nil {
		ret = ts.fromSyntax(e.Result, 0)
	}
	types := make([]*Type, len(e.Params))
	for i, p := range e.Params {
		types[i] = tUnknown
		if p.Type != nil {
			types[i] = ts.fromSyntax(p.Type, 0)
		}
	}
	var expected []*Type
	if want != nil && want.Kind == KFunc {
		expected = want.Args
	}
	saved := c.fn
	c.fn = &fnCtx{fn: fn, ret: ret, declared: e.Result != nil, name: "the lambda", parent: saved}
	mark := len(c.scope)
	c.params(e.Params, types, expected)
	for i, p := range e.Params {
		if p.Ident != nil {
			if b, _ := p.Ident.Binding.(*resolve.Binding); b != nil {
				if l := c.locals[b]; l != nil {
					types[i] = l.t
				}
			}
		}
	}
	savedLeave := c.leave
	t, ends := c.body(e.Body)
	c.finish(e.Pos, "the lambda", e.Body, ret, e.Result != nil, t, ends, syntax.PlainFn)
	c.unusedFrom(mark)
	c.scope = c.scope[:mark]
	c.fn = saved
	c.leave = savedLeave
	if e.Result == nil {
		ret = t
		if ends || t.Kind == KNever {
			ret = tUnknown // its value comes from return statements
		}
	}
	return &Type{Kind: KFunc, Args: types, Ret: ret}
}

func (c *checker) try(e *syntax.TryExpr) *Type {
	t := c.expr(e.X)
	f := c.fn
	switch t.Kind {
	case KOption, KResult:
	case KUnknown, KNever:
	default:
		c.errorf(e.QPos, "vox/try/operand", []string{"? unwraps an Option or a Result"}, "? needs an Option or a Result, got %s", t)
		return tUnknown
	}
	switch {
	case f == nil || !f.declared || !f.ret.known():
	case t.Kind == KOption && f.ret.Kind == KResult:
		c.errorf(e.QPos, "vox/try/outside-result", []string{"turn the Option into a Result first: x.ok_or(\"message\")?"},
			"? on an Option returns None early, but %s returns a Result", f.name)
	case t.Kind == KResult && f.ret.Kind == KOption:
		c.errorf(e.QPos, "vox/try/outside-result", []string{"turn the Result into an Option first: x.ok()?"},
			"? on a Result returns the Err early, but %s returns an Option", f.name)
	case f.ret.Kind == KResult || f.ret.Kind == KOption:
	case f.tool:
		// A tool or resource may: the Err it returns fails the call
		// (docs/vox-language.md, Arguments and results).
		if c.opts.Compat {
			c.warnf(e.QPos, "vox/compat/try-outside-result", []string{fmt.Sprintf("declare it to return Result[%s, str]", f.ret)},
				"the reference rejects ? in %s, which does not return a Result", f.name)
		}
	default:
		c.warnf(e.QPos, "vox/try/outside-result", []string{fmt.Sprintf("declare %s to return a Result (to Result[%s, str]), or handle the case with match or unwrap_or", f.name, f.ret)},
			"? returns an Err or None early, but %s is declared to return %s: its callers get a value of another type", f.name, f.ret)
	}
	return t.arg(0)
}

func (c *checker) field(e *syntax.DotExpr) *Type {
	xt := c.expr(e.X)
	switch xt.Kind {
	case KRecord:
		for _, d := range c.mod.File.Decls {
			rd, ok := d.(*syntax.RecordDecl)
			if !ok || rd.Name != xt.Name {
				continue
			}
			var names []string
			for _, f := range rd.Fields {
				if f.Name == e.Name {
					t := c.ts.fromSyntax(f.Type, 0)
					c.record(e.NamePos, e.Name, "field", t, f.NamePos, "")
					return t
				}
				names = append(names, f.Name)
			}
			help := []string{"its fields are " + strings.Join(names, ", ")}
			if s := suggest(e.Name, names, 2); s != "" {
				help = []string{"did you mean " + s + "?"}
			}
			c.errorf(e.NamePos, "vox/field/unknown", help, "record %s has no field %s", xt.Name, e.Name)
			return tUnknown
		}
	case KMap:
		return xt.arg(0)
	case KNamespace:
		if n := c.lib.ns[xt.Name]; n != nil && xt.Name == "std" {
			// std.X is the namespace std.X where the library has one
			// (std.json), else X; std's own members (args) are values.
			if c.lib.ns["std."+e.Name] != nil {
				return &Type{Kind: KNamespace, Name: "std." + e.Name}
			}
			if c.lib.ns[e.Name] != nil {
				return &Type{Kind: KNamespace, Name: e.Name}
			}
		}
	}
	return tUnknown
}

func (c *checker) index(e *syntax.IndexExpr) *Type {
	xt := c.expr(e.X)
	it := c.exprNumber(e.Index)
	switch xt.Kind {
	case KList, KStr:
		if it.known() && it.Kind != KInt {
			c.warnf(e.Index.Span(), "vox/index/type", nil, "a %s index must be an int, got %s", xt, it)
		}
		if xt.Kind == KStr {
			return tStr
		}
		return xt.arg(0)
	case KMap, KRecord:
		if it.known() && it.Kind != KStr {
			c.warnf(e.Index.Span(), "vox/index/type", nil, "a map key must be a str, got %s", it)
		}
		if xt.Kind == KMap {
			return xt.arg(0)
		}
	case KTuple:
		if lit, ok := e.Index.(*syntax.Literal); ok && lit.Tok == syntax.INT && xt.Args != nil && lit.Int >= 0 && int(lit.Int) < len(xt.Args) {
			return xt.Args[lit.Int]
		}
	case KInt, KFloat, KDec, KBool, KFunc, KOption, KResult, KNamed, KUnit:
		help := []string{"index a list, a string, a tuple or a map"}
		if xt.Kind == KOption || xt.Kind == KResult {
			help = []string{"unwrap it first: x.unwrap()[i] or x?[i]"}
		}
		c.warnf(e.Lbrack, "vox/index/type", help, "cannot index %s", xt)
	}
	return tUnknown
}

// exprNumber checks an expression used as a number (an index).
func (c *checker) exprNumber(x syntax.Expr) *Type {
	if id, ok := x.(*syntax.Ident); ok {
		return c.ident(id, true)
	}
	return c.expr(x)
}

// binary checks the operands of x op y.
func (c *checker) binary(xe, ye syntax.Expr, xt, yt *Type, op syntax.Token, pos syntax.Pos) *Type {
	bad := func(help ...string) *Type {
		// The reference checks + and has no in (spec 22 §1.3, spec 21
		// §5.6); it gives - * / % and the comparisons the error type
		// silently: a warning.
		if op == syntax.PLUS || op == syntax.IN || op == syntax.NOT_IN {
			c.errorf(pos, "vox/type/operands", help, "%s cannot be applied to %s and %s", opText(op), xt, yt)
		} else {
			c.warnf(pos, "vox/type/operands", help, "%s cannot be applied to %s and %s", opText(op), xt, yt)
		}
		return tUnknown
	}
	known := xt.known() && yt.known()
	switch op {
	case syntax.PLUS:
		if xt.Kind == KStr || yt.Kind == KStr {
			return tStr
		}
		if !known {
			if xt.Kind == KList || yt.Kind == KList {
				return tListAny
			}
			return tUnknown
		}
		if xt.Kind == KList && yt.Kind == KList {
			return join(xt, yt)
		}
		if t := numeric(xt, yt); t != nil {
			return t
		}
		return bad(plusHelp(xt, yt)...)
	case syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT:
		if !known {
			if xt.known() && !xt.numeric() || yt.known() && !yt.numeric() {
				return bad(arithHelp(op, xt, yt)...)
			}
			if xt.Kind == KFloat || yt.Kind == KFloat {
				return tFloat
			}
			return tUnknown
		}
		if t := numeric(xt, yt); t != nil {
			return t
		}
		return bad(arithHelp(op, xt, yt)...)
	case syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		if known && !(xt.numeric() && yt.numeric() || xt.Kind == KStr && yt.Kind == KStr) {
			return bad("< > <= >= compare numbers with numbers and strings with strings")
		}
		return tBool
	case syntax.AND, syntax.OR:
		for _, s := range []struct {
			t *Type
			e syntax.Expr
		}{{xt, xe}, {yt, ye}} {
			if s.t.known() && s.t.Kind != KBool {
				c.warnf(s.e.Span(), "vox/type/operands", []string{"compare it: " + condHint(s.t)}, "%s needs bools, got %s", opText(op), s.t)
			}
		}
		return tBool
	case syntax.IN, syntax.NOT_IN:
		switch yt.Kind {
		case KList, KTuple, KMap, KRecord, KUnknown, KNever:
		case KStr:
			if xt.known() && xt.Kind != KStr {
				return bad("x in s looks for a substring: x must be a str")
			}
		default:
			return bad("in looks in a list, a tuple, a map's keys or a string")
		}
		return tBool
	}
	return tBool
}

// numeric is the type of arithmetic on two numbers, nil when they do not
// mix.
func numeric(x, y *Type) *Type {
	switch {
	case x.Kind == KInt && y.Kind == KInt:
		return tInt
	case x.Kind == KFloat && (y.Kind == KFloat || y.Kind == KInt), y.Kind == KFloat && x.Kind == KInt:
		return tFloat
	case x.Kind == KDec && (y.Kind == KDec || y.Kind == KInt), y.Kind == KDec && x.Kind == KInt:
		return tDec
	}
	return nil
}

func plusHelp(x, y *Type) []string {
	if x.Kind == KDec && y.Kind == KFloat || x.Kind == KFloat && y.Kind == KDec {
		return []string{"a float never mixes with a dec: convert one, dec(x) or float(d)"}
	}
	return []string{"+ adds numbers, joins lists, and joins anything to a str: convert one side, str(x)"}
}

func arithHelp(op syntax.Token, x, y *Type) []string {
	if x.Kind == KStr || y.Kind == KStr {
		return []string{opText(op) + " needs numbers: a str is not repeated or split by it; convert with int(s) or parse_int(s)"}
	}
	return []string{opText(op) + " needs two numbers"}
}

func opText(op syntax.Token) string {
	switch op {
	case syntax.PLUS:
		return "+"
	case syntax.MINUS:
		return "-"
	case syntax.STAR:
		return "*"
	case syntax.SLASH:
		return "/"
	case syntax.PERCENT:
		return "%"
	case syntax.LT:
		return "<"
	case syntax.GT:
		return ">"
	case syntax.LE:
		return "<="
	case syntax.GE:
		return ">="
	case syntax.AND:
		return "and"
	case syntax.OR:
		return "or"
	case syntax.IN:
		return "in"
	case syntax.NOT_IN:
		return "not in"
	}
	return "the operator"
}
