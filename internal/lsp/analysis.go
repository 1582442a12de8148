package lsp

import (
	"bytes"
	"slices"
	"strings"

	voxlang "github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// analysis is what the server knows of one version of a document: the
// diagnostics of `vox check` (vox.Compile, so the two never disagree; the
// checker's included, with their help lines and fixes), the checker's
// record of every name's type, and an index of the resolved tree for the
// position queries.
type analysis struct {
	diags   []diag.Diagnostic
	res     *resolve.Module // nil after an internal error of the compiler
	checked *check.Result   // nil after an internal error of the compiler
	// occs are the names in the text with what each refers to, in order
	// of position.
	occs []occurrence
	// constNames are where each module constant's name is declared (the
	// first of a name).
	constNames map[string]syntax.Pos
	// locals are the local bindings with what declared them.
	locals map[*resolve.Binding]*local
	// captured maps a free variable's name to the binding it captures.
	captured map[*syntax.Ident]*resolve.Binding
	// decls are the top-level declarations in order: the one containing
	// a position is the last that starts before it.
	decls []syntax.Decl
	// complete is set when every function parsed (none is unavailable
	// and there is no syntax error).
	complete bool
	// size is the length of the text analyzed, which the limit on the
	// text the server holds counts (limits.go).
	size int
}

// occKind says what a name in the text is.
type occKind uint8

const (
	occIdent     occKind = iota // a name in an expression or a pattern, or a parameter
	occFnName                   // the name of a function declaration
	occMember                   // the name after a dot: a method, a field or a capability function
	occDecorator                // @tool and the like
	occType                     // a name in a type annotation
	occFieldInit                // a field name in a record literal
	occFieldDecl                // a field name in a record declaration
	occVariant                  // a constructor in a type declaration
	occTypeDecl                 // the name of a type or record declaration
	occConstName                // the name of a module constant where it is declared
)

// occurrence is one name at a position.
type occurrence struct {
	pos  syntax.Pos
	len  int32 // bytes, on pos's line
	kind occKind
	name string

	binding *resolve.Binding   // occIdent: what the name is bound to (a free variable: the binding it captures); occConstName: the constant
	fn      *syntax.FnDecl     // occFnName
	dot     *syntax.DotExpr    // occMember
	call    bool               // occMember, occIdent: the callee of a call
	record  *syntax.RecordDecl // occFieldInit, occFieldDecl, occTypeDecl of a record
	typ     *syntax.TypeDecl   // occVariant, occTypeDecl of an algebraic type
}

// local is a local binding: a parameter, a let, a for or match name.
type local struct {
	binding *resolve.Binding
	kind    string       // parameter, variable, loop variable, match binding
	typ     *syntax.Type // declared, when it was
	value   syntax.Expr  // a let's value (the whole value, for a plain name)
	mut     bool
	decl    int // index in analysis.decls
}

// analyzeLimit bounds the walk as the resolver bounds its own
// (docs/vox-language.md, Limits): the parser already refuses deeper
// nesting, so the limit is never reached by a tree it made.
const analyzeLimit = 4 * 512

func analyze(path string, src []byte) *analysis {
	m := voxlang.CompileWith(path, src, check.Options{Record: true})
	a := &analysis{diags: m.Diagnostics(), res: m.Resolved(), checked: m.Check(), locals: map[*resolve.Binding]*local{}, constNames: map[string]syntax.Pos{},
		captured: map[*syntax.Ident]*resolve.Binding{}, complete: true, size: len(src)}
	for _, d := range a.diags {
		if d.Severity == diag.Error && strings.HasPrefix(d.Code, "vox/parse/") {
			a.complete = false
		}
	}
	if a.res == nil {
		a.complete = false
		return a
	}
	w := walker{a: a, src: src, lines: lineStarts(src)}
	for i, d := range a.res.File.Decls {
		a.decls = append(a.decls, d)
		w.decl = i
		w.topDecl(d)
	}
	slices.SortStableFunc(a.occs, func(x, y occurrence) int {
		if x.pos.Line != y.pos.Line {
			return int(x.pos.Line - y.pos.Line)
		}
		return int(x.pos.Col - y.pos.Col)
	})
	return a
}

// walker indexes one tree.
type walker struct {
	a     *analysis
	src   []byte
	lines []int // byte offset of each line's start
	decl  int
	fns   []*resolve.Function // the enclosing functions, innermost last
	depth int
}

func (w *walker) add(o occurrence) {
	if o.pos.IsValid() && o.name != "" {
		if o.len == 0 {
			o.len = int32(len(o.name))
		}
		w.a.occs = append(w.a.occs, o)
	}
}

func (w *walker) topDecl(d syntax.Decl) {
	switch d := d.(type) {
	case *syntax.FnDecl:
		for i := range d.Decorators {
			dec := &d.Decorators[i]
			w.add(occurrence{pos: dec.Pos, kind: occDecorator, name: dec.Name})
		}
		w.add(occurrence{pos: d.NamePos, kind: occFnName, name: d.Name, fn: d})
		for _, p := range d.Params {
			w.typ(p.Type)
			if p.Default != nil {
				w.expr(p.Default)
			}
		}
		w.typ(d.Result)
		fn, _ := d.Function.(*resolve.Function)
		if fn == nil {
			return // unavailable
		}
		w.function(fn, d.Params, d.Body)
	case *syntax.ConstDecl:
		// The tree has the constant's let, not its name: the name is
		// the first word after it that is the name.
		if p := w.nameAfter(d.Pos, d.Name); p.IsValid() {
			if _, dup := w.a.constNames[d.Name]; !dup {
				w.a.constNames[d.Name] = p
			}
			w.add(occurrence{pos: p, kind: occConstName, name: d.Name,
				binding: &resolve.Binding{Scope: resolve.Const, Index: d.Index, Name: d.Name}})
		}
		w.typ(d.Type)
		w.expr(d.Value)
	case *syntax.RecordDecl:
		w.add(occurrence{pos: d.NamePos, kind: occTypeDecl, name: d.Name, record: d})
		for _, f := range d.Fields {
			w.add(occurrence{pos: f.NamePos, kind: occFieldDecl, name: f.Name, record: d})
			w.typ(f.Type)
		}
	case *syntax.TypeDecl:
		w.add(occurrence{pos: d.NamePos, kind: occTypeDecl, name: d.Name, typ: d})
		for _, v := range d.Variants {
			w.add(occurrence{pos: v.Pos, kind: occVariant, name: v.Name, typ: d})
			for _, f := range v.Fields {
				w.typ(f.Type)
			}
		}
	}
}

// nameAfter is the position of the first whole word name at most 256
// bytes after p on p's line (a constant's name after its let), or the
// zero Pos.
func (w *walker) nameAfter(p syntax.Pos, name string) syntax.Pos {
	line := int(p.Line) - 1
	if line < 0 || line >= len(w.lines) || name == "" {
		return syntax.Pos{}
	}
	start := w.lines[line] + int(p.Col) - 1
	end := len(w.src)
	if line+1 < len(w.lines) {
		end = w.lines[line+1]
	}
	end = min(end, start+256)
	for i := start; i >= 0 && i+len(name) <= end; {
		j := bytes.Index(w.src[i:end], []byte(name))
		if j < 0 {
			break
		}
		k := i + j
		if (k == 0 || !isNameByte(w.src[k-1])) && (k+len(name) == len(w.src) || !isNameByte(w.src[k+len(name)])) {
			return syntax.MakePos(line+1, k-w.lines[line]+1)
		}
		i = k + 1
	}
	return syntax.Pos{}
}

// lineStarts is the byte offset of each line's start.
func lineStarts(src []byte) []int {
	lines := []int{0}
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// function indexes a function's parameters and body.
func (w *walker) function(fn *resolve.Function, params []*syntax.Param, body *syntax.Block) {
	w.fns = append(w.fns, fn)
	for _, p := range params {
		if p.Ident != nil {
			w.binding(p.Ident, &local{kind: "parameter", typ: p.Type})
		}
	}
	w.block(body)
	w.fns = w.fns[:len(w.fns)-1]
}

// binding indexes a name that declares a local.
func (w *walker) binding(id *syntax.Ident, l *local) {
	b, _ := id.Binding.(*resolve.Binding)
	if b != nil && (b.Scope == resolve.Local || b.Scope == resolve.Cell) {
		l.binding, l.decl = b, w.decl
		w.a.locals[b] = l
	}
	w.ident(id, false)
}

// ident indexes a name; a free variable is followed out to the binding it
// captures, through the enclosing functions.
func (w *walker) ident(id *syntax.Ident, call bool) {
	b, _ := id.Binding.(*resolve.Binding)
	for i := len(w.fns) - 1; b != nil && b.Scope == resolve.Free && i >= 0; i-- {
		fv := w.fns[i].FreeVars
		if b.Index >= len(fv) {
			break
		}
		b = fv[b.Index]
	}
	if b != nil && b != id.Binding {
		w.a.captured[id] = b
	}
	w.add(occurrence{pos: id.NamePos, kind: occIdent, name: id.Name, binding: b, call: call})
}

func (w *walker) typ(t *syntax.Type) {
	if t == nil {
		return
	}
	defer w.leave()
	if !w.enter() {
		return
	}
	if t.Kind == syntax.NamedType {
		w.add(occurrence{pos: t.Pos, kind: occType, name: t.Name})
	}
	for _, a := range t.Args {
		w.typ(a)
	}
	w.typ(t.Result)
}

// enter counts a level of nesting and reports whether it is within the
// limit; every enter is matched by a deferred leave.
func (w *walker) enter() bool {
	w.depth++
	return w.depth <= analyzeLimit
}

func (w *walker) leave() { w.depth-- }

func (w *walker) block(b *syntax.Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		w.stmt(s)
	}
}

func (w *walker) stmt(s syntax.Stmt) {
	defer w.leave()
	if !w.enter() {
		return
	}
	switch s := s.(type) {
	case *syntax.LetStmt:
		w.typ(s.Type)
		w.expr(s.Value)
		if bp, ok := s.Pattern.(*syntax.BindPat); ok {
			w.binding(bp.Ident, &local{kind: "variable", typ: s.Type, value: s.Value, mut: s.Mut})
		} else {
			w.pattern(s.Pattern, "variable")
		}
	case *syntax.ReturnStmt:
		if s.Value != nil {
			w.expr(s.Value)
		}
	case *syntax.WhileStmt:
		w.expr(s.Cond)
		w.block(s.Body)
	case *syntax.LoopStmt:
		w.block(s.Body)
	case *syntax.ForStmt:
		w.expr(s.Iter)
		w.pattern(s.Pattern, "loop variable")
		if s.Index != nil {
			w.pattern(s.Index, "loop position")
		}
		if s.Key != nil {
			w.expr(s.Key)
		}
		w.block(s.Body)
	case *syntax.AssignStmt:
		w.expr(s.LHS)
		w.expr(s.RHS)
	case *syntax.ExprStmt:
		w.expr(s.X)
	}
}

func (w *walker) pattern(p syntax.Pattern, kind string) {
	defer w.leave()
	if !w.enter() {
		return
	}
	switch p := p.(type) {
	case *syntax.BindPat:
		w.binding(p.Ident, &local{kind: kind})
	case *syntax.CtorPat:
		w.ident(p.Name, false)
		for _, a := range p.Args {
			w.pattern(a, kind)
		}
	case *syntax.TuplePat:
		for _, e := range p.Elems {
			w.pattern(e, kind)
		}
	}
}

func (w *walker) expr(e syntax.Expr) {
	if e == nil {
		return
	}
	defer w.leave()
	if !w.enter() {
		return
	}
	switch e := e.(type) {
	case *syntax.Ident:
		w.ident(e, false)
	case *syntax.TemplateLit:
		for _, v := range e.Vars {
			w.ident(v, false)
		}
	case *syntax.ListExpr:
		for _, x := range e.Elems {
			w.expr(x)
		}
	case *syntax.TupleExpr:
		for _, x := range e.Elems {
			w.expr(x)
		}
	case *syntax.ObjectExpr:
		for _, x := range e.Values {
			w.expr(x)
		}
	case *syntax.Block:
		w.block(e)
	case *syntax.IfExpr:
		w.expr(e.Cond)
		w.block(e.Then)
		w.expr(e.Else)
	case *syntax.MatchExpr:
		w.expr(e.X)
		for _, arm := range e.Arms {
			w.pattern(arm.Pattern, "match binding")
			w.expr(arm.Guard)
			w.expr(arm.Body)
		}
	case *syntax.ForStmt:
		w.stmt(e)
	case *syntax.WhileStmt:
		w.stmt(e)
	case *syntax.LoopStmt:
		w.stmt(e)
	case *syntax.WithExpr:
		w.expr(e.X)
		w.expr(e.Options)
	case *syntax.RecordLit:
		w.add(occurrence{pos: e.Type.NamePos, kind: occType, name: e.Type.Name})
		rec, _ := e.Record.(*syntax.RecordDecl)
		for _, f := range e.Fields {
			w.add(occurrence{pos: f.NamePos, kind: occFieldInit, name: f.Name, record: rec})
			w.expr(f.Value)
		}
	case *syntax.FuncLit:
		for _, p := range e.Params {
			w.typ(p.Type)
			w.expr(p.Default)
		}
		w.typ(e.Result)
		if fn, _ := e.Function.(*resolve.Function); fn != nil {
			w.function(fn, e.Params, e.Body)
		}
	case *syntax.CallExpr:
		switch fn := e.Fn.(type) {
		case *syntax.Ident:
			w.ident(fn, true)
		case *syntax.DotExpr:
			w.dot(fn, true)
		default:
			w.expr(e.Fn)
		}
		for _, a := range e.Args {
			w.expr(a.Value)
		}
	case *syntax.DotExpr:
		w.dot(e, false)
	case *syntax.IndexExpr:
		w.expr(e.X)
		w.expr(e.Index)
	case *syntax.TryExpr:
		w.expr(e.X)
	case *syntax.UnaryExpr:
		w.expr(e.X)
	case *syntax.BinaryExpr:
		w.expr(e.X)
		w.expr(e.Y)
	}
}

func (w *walker) dot(e *syntax.DotExpr, call bool) {
	w.expr(e.X)
	w.add(occurrence{pos: e.NamePos, kind: occMember, name: e.Name, dot: e, call: call})
}

// at returns the name at a position (the cursor on it or just after it),
// or nil.
func (a *analysis) at(p syntax.Pos) *occurrence {
	i, _ := slices.BinarySearchFunc(a.occs, p, func(o occurrence, p syntax.Pos) int {
		if o.pos.Line != p.Line {
			return int(o.pos.Line - p.Line)
		}
		return int(o.pos.Col - p.Col)
	})
	// The candidates are the occurrence starting at p and the one before.
	for _, j := range []int{i, i - 1} {
		if j < 0 || j >= len(a.occs) {
			continue
		}
		o := &a.occs[j]
		if o.pos.Line == p.Line && o.pos.Col <= p.Col && p.Col <= o.pos.Col+o.len {
			return o
		}
	}
	return nil
}

// checkedType is the static type the checker found for the name at p,
// or "" when it does not know it.
func (a *analysis) checkedType(p syntax.Pos) string {
	if a.checked == nil {
		return ""
	}
	if info, ok := a.checked.Lookup(int(p.Line), int(p.Col)); ok && info.Type != "unknown" {
		return info.Type
	}
	return ""
}

// checkedInfo is what the checker recorded for the name at p.
func (a *analysis) checkedInfo(p syntax.Pos) (check.Info, bool) {
	if a.checked == nil {
		return check.Info{}, false
	}
	return a.checked.Lookup(int(p.Line), int(p.Col))
}

// declAt returns the index of the top-level declaration containing p, or
// -1 before the first.
func (a *analysis) declAt(p syntax.Pos) int {
	i := -1
	for j, d := range a.decls {
		s := d.Span()
		if s.Line < p.Line || s.Line == p.Line && s.Col <= p.Col {
			i = j
		}
	}
	return i
}
