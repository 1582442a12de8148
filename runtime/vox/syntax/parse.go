// Package syntax is the front end of the Vox subset: the scanner, the
// syntax tree and the parser (docs/vox-language.md: lexical rules, statements and expressions).
//
// The parser reads a whole .vox file and collects every diagnostic instead
// of stopping at the first. It recognises tools, resources, plain
// functions, algebraic types, module constants and imports, and tolerates
// the rest of the Vox language (components, tables, routes, workflows, UI
// markup, ...) by skipping each such declaration as one opaque unit with
// the raw skippers of skip.go, which drive the scanner past text that is
// not Vox code. A plain function whose body uses syntax outside the subset
// is recorded as unavailable with a warning; the resolver turns that into
// an error only when a tool or resource reaches it.
package syntax

import (
	"fmt"
	"strings"

	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/vox/internal/slab"
)

// maxDepth bounds the height of the syntax tree so that parsing and every
// recursive pass after it (resolving, schemas, compiling, evaluating)
// never exhaust the Go stack. Each level of nesting counts (parentheses,
// lists, objects, blocks, if and match, unary operators, lambdas, types,
// patterns), and so does each link of a chain that builds a tree one
// level deeper per link: a binary operator (a + b + c is ((a + b) + c)),
// a call, an index, a field access, a '?' or a pipe.
const maxDepth = 512

// Parse parses a file. path is used in diagnostics. It never fails: every
// problem is a diagnostic, and the tree holds whatever parsed.
func Parse(path string, src []byte) (f *File, diags diag.List) {
	p := &parser{path: path}
	defer func() {
		if r := recover(); r != nil {
			diags = append(p.diags, diag.Diagnostic{Path: path, Line: 1, Col: 1, Severity: diag.Error,
				Code: "vox/internal/panic", Message: fmt.Sprintf("internal error while parsing: %v", r)})
			if f == nil {
				f = &File{Path: path}
			}
		}
	}()
	p.sc.init(src, p.errh)
	f = &File{Path: path}
	p.next()
	for p.tok != EOF {
		p.topDecl(f)
	}
	return f, p.diags
}

type parser struct {
	sc    scanner
	path  string
	diags diag.List
	depth int // the nesting levels entered
	// peak is the greatest depth a subtree parsed since it was last reset
	// reaches, counting chain links: binary and postfix reset it to their
	// base to learn the height of an operand.
	peak int

	// spec is set while parsing a plain function: its first error aborts
	// it (bailout) and makes it unavailable instead of failing the file.
	spec       bool
	specErr    *Unavailable
	quiet      int   // > 0 during lookahead: diagnostics are dropped
	noBrace    int   // > 0 in if/while/for/match heads: '{' ends the expression
	errLine    int32 // line of the last error reported
	prevTokEnd int   // end offset of the previous token

	// Shortcuts to the scanner's current token.
	tok Token
	pos Pos

	// Stacks of the lists being parsed (see take).
	stmts    []Stmt
	paramBuf []*Param
	argBuf   []*Arg

	// The tree's nodes are allocated in chunks, a few dozen at a time: a
	// workspace refresh parses every file, and one allocation per node
	// was most of the parser's cost.
	idents      slab.Slab[Ident]
	literals    slab.Slab[Literal]
	exprStmts   slab.Slab[ExprStmt]
	blocks      slab.Slab[Block]
	paramNodes  slab.Slab[Param]
	types       slab.Slab[Type]
	ifs         slab.Slab[IfExpr]
	lets        slab.Slab[LetStmt]
	bindPats    slab.Slab[BindPat]
	binaries    slab.Slab[BinaryExpr]
	calls       slab.Slab[CallExpr]
	argNodes    slab.Slab[Arg]
	dots        slab.Slab[DotExpr]
	returns     slab.Slab[ReturnStmt]
	fnDecls     slab.Slab[FnDecl]
	indexes     slab.Slab[IndexExpr]
	assigns     slab.Slab[AssignStmt]
	lists       slab.Slab[ListExpr]
	objects     slab.Slab[ObjectExpr]
	unaries     slab.Slab[UnaryExpr]
	templates   slab.Slab[TemplateLit]
	funcLits    slab.Slab[FuncLit]
	tuples      slab.Slab[TupleExpr]
	matches     slab.Slab[MatchExpr]
	arms        slab.Slab[MatchArm]
	fors        slab.Slab[ForStmt]
	literalPats slab.Slab[LiteralPat]
}

// bailout unwinds the parser to the nearest recovery point.
type bailout struct{}

func (p *parser) next() {
	p.prevTokEnd = p.sc.end
	p.sc.next()
	p.tok, p.pos = p.sc.tok, p.sc.pos
}

func (p *parser) save() scanState { return p.sc.save() }

func (p *parser) restore(st scanState) {
	p.sc.restore(st)
	p.tok, p.pos = p.sc.tok, p.sc.pos
}

// errh receives every diagnostic of the scanner and the parser.
func (p *parser) errh(pos Pos, code, msg string, warn bool) {
	if p.quiet > 0 {
		return
	}
	if p.spec && !warn {
		if p.specErr == nil {
			p.specErr = &Unavailable{Pos: pos, Reason: msg}
		}
		panic(bailout{})
	}
	sev := diag.Error
	if warn {
		sev = diag.Warning
	} else {
		// One syntax error per line: later ones on the line are mostly
		// consequences of the first.
		if code == "vox/parse/syntax" && pos.Line == p.errLine {
			return
		}
		p.errLine = pos.Line
	}
	p.diags.Add(diag.Diagnostic{Path: p.path, Line: int(pos.Line), Col: int(pos.Col), Severity: sev, Code: code, Message: msg})
}

func (p *parser) warn(pos Pos, code, format string, args ...any) {
	p.errh(pos, code, fmt.Sprintf(format, args...), true)
}

// errorAt reports an error and carries on.
func (p *parser) errorAt(pos Pos, code, format string, args ...any) {
	p.errh(pos, code, fmt.Sprintf(format, args...), false)
}

// fail reports a syntax error and unwinds to the recovery point.
func (p *parser) fail(pos Pos, code, format string, args ...any) {
	p.errh(pos, code, fmt.Sprintf(format, args...), false)
	panic(bailout{})
}

func (p *parser) syntaxError(format string, args ...any) {
	pos := p.pos
	if p.tok == NEWLINE || p.tok == EOF {
		// Point just after the last token, not past a trailing comment.
		pos = p.sc.posAt(p.prevTokEnd)
	}
	p.fail(pos, "vox/parse/syntax", format, args...)
}

// describe names the current token for messages.
func (p *parser) describe() string {
	switch p.tok {
	case IDENT:
		return "name " + p.sc.text
	case INT, FLOAT:
		return "number " + p.sc.text
	case STRING:
		return "string"
	case TEMPLATE:
		return "template string"
	case DECORATOR:
		return "decorator " + p.sc.text
	case NEWLINE, EOF:
		return p.tok.String()
	}
	if p.tok.IsKeyword() {
		return "keyword " + p.tok.String()
	}
	return "'" + p.tok.String() + "'"
}

func (p *parser) expect(t Token) Pos {
	pos := p.pos
	if p.tok != t {
		p.syntaxError("expected %s, found %s", describeToken(t), p.describe())
	}
	p.next()
	return pos
}

func describeToken(t Token) string {
	switch t {
	case IDENT:
		return "a name"
	case NEWLINE, EOF:
		return t.String()
	}
	return "'" + t.String() + "'"
}

func (p *parser) expectIdent() (Pos, string) {
	pos, name := p.pos, p.sc.text
	if p.tok != IDENT {
		p.syntaxError("expected a name, found %s", p.describe())
	}
	p.next()
	return pos, name
}

func (p *parser) skipNewlines() {
	for p.tok == NEWLINE || p.tok == SEMI {
		p.next()
	}
}

// enter counts one level of syntactic nesting.
func (p *parser) enter() {
	p.depth++
	p.peak = max(p.peak, p.depth)
	if p.depth > maxDepth {
		p.fail(p.pos, "vox/parse/too-deep", "nesting deeper than %d levels", maxDepth)
	}
}

// chainLink records that a chain (binary operators, or calls, indexing
// and field accesses) grew a tree of height h above base, and fails when
// that passes maxDepth.
func (p *parser) chainLink(pos Pos, base, h int) {
	if base+h > maxDepth {
		p.fail(pos, "vox/parse/too-deep", "expression nested deeper than %d levels: each operator, call, index or field access of a chain counts one level; split it with let", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// ---- top level ----

func (p *parser) topDecl(f *File) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.spec, p.specErr, p.depth, p.peak, p.noBrace = false, nil, 0, 0, 0
			p.syncTop(p.sc.start)
		}
	}()
	p.sc.brackets = p.sc.brackets[:0]
	switch p.tok {
	case NEWLINE, SEMI:
		p.next()
	case DECORATOR:
		p.decorated(f)
	case FN, ASYNC:
		p.plainFn(f, p.pos, nil)
	case PUB:
		head := p.pos
		st := p.save()
		p.next()
		switch p.tok {
		case FN, ASYNC:
			p.restore(st)
			p.plainFn(f, head, nil)
		case TYPE:
			p.typeDecl(f, head, st.start)
		case LET:
			p.constDecl(f)
		case IDENT:
			if toleratedWords[p.sc.text] {
				p.skipDecl(f, head, p.sc.text, st.start)
				return
			}
			fallthrough
		default:
			p.fail(p.pos, "vox/parse/unexpected-top-level", "unexpected %s after pub: expected fn, type or a declaration", p.describe())
		}
	case TYPE:
		p.typeDecl(f, p.pos, p.sc.start)
	case LET:
		p.constDecl(f)
	case IMPORT:
		p.importDecl(f)
	case IDENT:
		switch w := p.sc.text; {
		case w == "tool":
			p.bareTool(f)
		case w == "resource":
			p.bareResource(f)
		case toleratedWords[w]:
			p.skipDecl(f, p.pos, w, p.sc.start)
		default:
			p.fail(p.pos, "vox/parse/unexpected-top-level", "unexpected %s at top level: expected fn, tool, resource, let, import or a declaration", w)
		}
	case RBRACE:
		p.fail(p.pos, "vox/parse/unexpected-top-level", "unexpected '}' at top level: no block is open")
	default:
		p.fail(p.pos, "vox/parse/unexpected-top-level", "unexpected %s at top level: expected fn, tool, resource, let, import or a declaration", p.describe())
	}
}

// syncTop resumes after an error at the next line, after offset off, that
// starts a declaration in column 1.
func (p *parser) syncTop(off int) {
	src := p.sc.src
	if off > len(src) {
		off = len(src)
	}
	i := lineEnd(src, off)
	if i < len(src) {
		i++
	}
	p.sc.seek(nextDeclLine(src, i))
	p.next()
}

// skipDecl skips the tolerated declaration whose head starts at offset off.
func (p *parser) skipDecl(f *File, head Pos, word string, off int) {
	end, brace := skipOpaque(p.sc.src, off)
	if end < 0 {
		p.sc.seek(brace)
		bp := p.sc.posAt(brace)
		p.errorAt(bp, "vox/parse/unclosed", "unclosed '{': the body of %s never closes", word)
		p.syncTop(brace)
		return
	}
	f.Decls = append(f.Decls, &SkippedDecl{Pos: head, Word: word})
	p.sc.seek(end)
	p.next()
}

// decorated parses a run of decorators and what follows it.
func (p *parser) decorated(f *File) {
	head := p.pos
	var decs []Decorator
	// The heads point into heads rather than at the loop's variable,
	// which would then be allocated for every decorator.
	var heads [2]Decorator
	var toolHead, resHead *Decorator
	var desc, uri string
	skipFn := ""
	for p.tok == DECORATOR {
		d := Decorator{Pos: p.pos, Name: p.sc.text, End: p.sc.posAt(p.sc.end)}
		p.next()
		switch d.Name {
		case "@tool", "@mcp.tool":
			if toolHead != nil || resHead != nil {
				p.fail(d.Pos, "vox/decl/conflict", "%s repeats the declaration head %s", d.Name, headName(toolHead, resHead))
			}
			heads[0] = d
			toolHead = &heads[0]
			switch p.tok {
			case STRING, TEMPLATE:
				desc = p.plainString("a description")
			case LPAREN: // the legacy call form @mcp.tool("description")
				p.next()
				if p.tok != RPAREN {
					desc = p.plainString("a description")
				}
				p.expect(RPAREN)
			}
		case "@resource", "@mcp.resource":
			if toolHead != nil || resHead != nil {
				p.fail(d.Pos, "vox/decl/conflict", "%s repeats the declaration head %s", d.Name, headName(toolHead, resHead))
			}
			heads[1] = d
			resHead = &heads[1]
			if p.tok == LPAREN {
				p.next()
				uri = p.plainString("a URI")
				p.expect(COMMA)
				desc = p.plainString("a description")
				p.expect(RPAREN)
			} else {
				uri = p.plainString("a URI")
				desc = p.plainString("a description")
			}
		default:
			switch d.Name {
			case "@endpoint", "@test", "@table":
				skipFn = d.Name
			}
			if p.tok == LPAREN {
				p.skipParens()
			} else if p.tok == STRING || p.tok == TEMPLATE {
				p.next()
			}
		}
		decs = append(decs, d)
		p.skipNewlines()
	}
	isFn := p.tok == FN || p.tok == PUB || p.tok == ASYNC
	switch {
	case isFn && (toolHead != nil || resHead != nil):
		fn := p.fnDecls.Make(FnDecl{Head: head, Decorators: decs, Description: desc, URI: uri})
		hd := toolHead
		fn.Kind = ToolFn
		if resHead != nil {
			fn.Kind, hd = ResourceFn, resHead
		}
		p.ignoreDecorators(decs, hd)
		if hd.Name == "@mcp.tool" {
			p.diags.Add(diag.Diagnostic{
				Path: p.path, Line: int(hd.Pos.Line), Col: int(hd.Pos.Col), Severity: diag.Warning,
				Code: "vox/decorator/mcp-tool-deprecated", Message: "`@mcp.tool` is deprecated; use `@tool`",
				Fix: &diag.Fix{Line: int(hd.Pos.Line), Col: int(hd.Pos.Col), EndLine: int(hd.End.Line), EndCol: int(hd.End.Col), NewText: "@tool"},
			})
		}
		p.fnModifiers()
		p.fnRest(fn)
		f.Decls = append(f.Decls, fn)
	case toolHead != nil || resHead != nil:
		p.syntaxError("expected fn after %s, found %s", headName(toolHead, resHead), p.describe())
	case isFn && skipFn == "":
		p.ignoreDecorators(decs, nil)
		p.plainFn(f, head, decs)
	case p.tok == EOF:
		f.Decls = append(f.Decls, &SkippedDecl{Pos: head, Word: decs[0].Name})
	default:
		p.skipDecl(f, head, decs[0].Name, p.sc.start)
	}
}

func headName(t, r *Decorator) string {
	if t != nil {
		return t.Name
	}
	return r.Name
}

func (p *parser) ignoreDecorators(decs []Decorator, keep *Decorator) {
	for _, d := range decs {
		if keep != nil && d.Pos == keep.Pos {
			continue
		}
		p.warn(d.Pos, "vox/decorator/ignored", "decorator %s is ignored here", d.Name)
	}
}

// plainString parses a string literal that must not interpolate
// (descriptions and URIs).
func (p *parser) plainString(what string) string {
	switch p.tok {
	case STRING:
		s := p.sc.str
		p.next()
		return s
	case TEMPLATE:
		p.errorAt(p.pos, "vox/decl/template-string", "descriptions are plain strings: write {{ and }} for literal braces")
		s := p.sc.str
		p.next()
		return s
	}
	p.syntaxError("expected %s string, found %s", what, p.describe())
	return ""
}

// skipParens skips the balanced arguments of an ignored decorator; the
// current token is '('.
func (p *parser) skipParens() {
	j := skipBalanced(p.sc.src, p.sc.start)
	if j < 0 {
		p.fail(p.pos, "vox/parse/unclosed", "unclosed '(' in decorator arguments")
	}
	p.sc.pop('(')
	p.sc.advanceTo(j)
	p.next()
}

func (p *parser) fnModifiers() {
	if p.tok == PUB {
		p.next()
	}
	if p.tok == ASYNC {
		p.next()
	}
	p.expect(FN)
}

// plainFn parses a plain function speculatively: the first lexical or
// syntax error makes it unavailable, and its text is skipped by brace
// matching.
func (p *parser) plainFn(f *File, head Pos, decs []Decorator) {
	st := p.save()
	ndiags := len(p.diags)
	fn := p.fnDecls.Make(FnDecl{Head: head, Kind: PlainFn, Decorators: decs})
	ok := func() (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, isBail := r.(bailout); !isBail {
					panic(r)
				}
				ok = false
			}
		}()
		p.spec = true
		p.fnModifiers()
		p.fnRest(fn)
		return true
	}()
	p.spec = false
	if ok {
		f.Decls = append(f.Decls, fn)
		return
	}
	reason := p.specErr
	p.specErr = nil
	p.diags = p.diags[:ndiags]
	p.depth, p.peak, p.noBrace = 0, 0, 0
	p.restore(st)
	fn.Unavailable, fn.Body, fn.Params, fn.Result = reason, nil, nil, nil
	name := "function"
	if fn.Name != "" {
		name = "function " + fn.Name
	}
	p.warn(reason.Pos, "vox/parse/fn-unsupported", "%s is unavailable: %s", name, reason.Reason)
	end, brace := skipOpaque(p.sc.src, p.sc.start)
	if end < 0 {
		p.sc.seek(brace)
		p.errorAt(p.sc.posAt(brace), "vox/parse/unclosed", "unclosed '{': the body of %s never closes", name)
		p.syncTop(brace)
	} else {
		p.sc.seek(end)
		p.next()
	}
	if fn.Name != "" {
		f.Decls = append(f.Decls, fn)
	}
}

// fnRest parses NAME [typeparams] (params) [to T] { body }.
func (p *parser) fnRest(fn *FnDecl) {
	fn.NamePos, fn.Name = p.expectIdent()
	if p.tok == LBRACK {
		p.next()
		for {
			_, tp := p.expectIdent()
			fn.TypeParams = append(fn.TypeParams, tp)
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RBRACK)
	}
	fn.Params = p.params(LPAREN, RPAREN)
	fn.Result = p.resultType()
	if p.tok != LBRACE {
		p.syntaxError("expected '{' to begin the body of %s, found %s", fn.Name, p.describe())
	}
	fn.Body = p.block()
}

func (p *parser) resultType() *Type {
	switch p.tok {
	case TO:
		p.next()
		return p.typeExpr()
	case ARROW:
		pos := p.pos
		end := p.sc.posAt(p.sc.end)
		p.next()
		p.diags.Add(diag.Diagnostic{Path: p.path, Line: int(pos.Line), Col: int(pos.Col), Severity: diag.Warning,
			Code: "vox/parse/arrow-return-type", Message: "`->` before a return type is accepted: use `to`",
			Fix: &diag.Fix{Line: int(pos.Line), Col: int(pos.Col), EndLine: int(end.Line), EndCol: int(end.Col), NewText: "to"}})
		return p.typeExpr()
	}
	return nil
}

// params parses a parenthesised parameter list.
func (p *parser) params(open, close Token) []*Param {
	p.expect(open)
	mark := len(p.paramBuf) // defaults can hold lambdas with parameters
	defer truncate(&p.paramBuf, mark)
	for p.tok != close {
		prm := p.paramNodes.Make(Param{})
		prm.NamePos, prm.Name = p.expectIdent()
		prm.Ident = p.idents.Make(Ident{NamePos: prm.NamePos, Name: prm.Name})
		if p.tok == COLON {
			p.next()
			prm.Type = p.typeExpr()
		}
		if p.tok == ASSIGN {
			p.next()
			start := p.sc.start
			prm.Default = p.expr()
			prm.DefaultText = strings.TrimSpace(p.sc.srcStr[start:p.prevEnd()])
		}
		p.paramBuf = append(p.paramBuf, prm)
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(close)
	return take(p.paramBuf, mark)
}

// prevEnd is the end offset of the token before the current one: the
// current token's start less the blanks before it.
func (p *parser) prevEnd() int {
	i := p.sc.start
	for i > 0 {
		c := p.sc.src[i-1]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		i--
	}
	return i
}

func (p *parser) typeExpr() *Type {
	p.enter()
	defer p.leave()
	t := p.types.Make(Type{Pos: p.pos})
	if p.tok == LPAREN {
		p.next()
		t.Tuple = true
		for p.tok != RPAREN {
			t.Args = append(t.Args, p.typeExpr())
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RPAREN)
		return t
	}
	_, t.Name = p.expectIdent()
	if p.tok == LBRACK {
		p.next()
		for p.tok != RBRACK {
			t.Args = append(t.Args, p.typeExpr())
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RBRACK)
	}
	return t
}

func (p *parser) bareTool(f *File) {
	fn := p.fnDecls.Make(FnDecl{Head: p.pos, Kind: ToolFn})
	p.next()
	if p.tok == STRING || p.tok == TEMPLATE {
		fn.Description = p.plainString("a description")
	}
	p.skipNewlines()
	if p.tok == FN {
		p.next()
	}
	p.fnRest(fn)
	f.Decls = append(f.Decls, fn)
}

func (p *parser) bareResource(f *File) {
	fn := p.fnDecls.Make(FnDecl{Head: p.pos, Kind: ResourceFn})
	p.next()
	fn.URI = p.plainString("a URI")
	fn.Description = p.plainString("a description")
	p.skipNewlines()
	if p.tok == FN {
		p.next()
	}
	p.fnRest(fn)
	f.Decls = append(f.Decls, fn)
}

// typeDecl parses an algebraic type or skips a record-like one; off is the
// offset where the declaration starts.
func (p *parser) typeDecl(f *File, head Pos, off int) {
	p.expect(TYPE)
	d := &TypeDecl{Pos: head}
	_, d.Name = p.expectIdent()
	if p.tok == LBRACK {
		p.next()
		for p.tok != RBRACK {
			_, tp := p.expectIdent()
			d.Params = append(d.Params, tp)
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RBRACK)
	}
	algebraic := false
	if p.tok == ASSIGN {
		st := p.save()
		p.quiet++
		p.next()
		for p.tok == NEWLINE {
			p.next()
		}
		algebraic = p.tok == BAR
		p.quiet--
		if !algebraic {
			p.restore(st)
		}
	}
	if !algebraic {
		p.skipDecl(f, head, "type", off)
		return
	}
	for p.tok == BAR {
		p.next()
		v := &Variant{Pos: p.pos}
		_, v.Name = p.expectIdent()
		if p.tok == LPAREN {
			v.Fields = p.params(LPAREN, RPAREN)
		}
		d.Variants = append(d.Variants, v)
		if p.tok == NEWLINE {
			st := p.save()
			for p.tok == NEWLINE {
				p.next()
			}
			if p.tok != BAR {
				p.restore(st)
			}
		}
	}
	f.Decls = append(f.Decls, d)
	p.endOfDecl()
}

func (p *parser) endOfDecl() {
	switch p.tok {
	case NEWLINE, SEMI, EOF:
		return
	}
	p.syntaxError("expected newline after declaration, found %s", p.describe())
}

func (p *parser) constDecl(f *File) {
	d := &ConstDecl{Pos: p.pos}
	p.expect(LET)
	if p.tok == MUT {
		p.syntaxError("module constants cannot be mut")
	}
	_, d.Name = p.expectIdent()
	if p.tok == COLON {
		p.next()
		d.Type = p.typeExpr()
	}
	p.expect(ASSIGN)
	d.Value = p.expr()
	f.Decls = append(f.Decls, d)
	p.endOfDecl()
}

func (p *parser) importDecl(f *File) {
	d := &ImportDecl{Pos: p.pos}
	end := lineEnd(p.sc.src, p.sc.start)
	d.Path = strings.TrimSpace(p.sc.srcStr[p.sc.end:end])
	if i := strings.Index(d.Path, "//"); i >= 0 {
		d.Path = strings.TrimSpace(d.Path[:i])
	}
	p.warn(d.Pos, "vox/import/unresolved", "import %s is recorded but not resolved: imported names are undefined", d.Path)
	f.Decls = append(f.Decls, d)
	p.sc.seek(end)
	p.next()
}

// ---- statements ----

// block parses { stmts }. A declaration starting in column 1 means the
// block's '}' is missing: the error points at the '{' and the declaration
// is parsed normally.
func (p *parser) block() *Block {
	p.enter()
	defer p.leave()
	saved := p.noBrace
	p.noBrace = 0
	defer func() { p.noBrace = saved }()
	b := p.blocks.Make(Block{Lbrace: p.pos})
	mark := len(p.stmts) // blocks nest
	defer truncate(&p.stmts, mark)
	p.expect(LBRACE)
	for {
		p.skipNewlines()
		switch {
		case p.tok == RBRACE:
			p.next()
			b.Stmts = take(p.stmts, mark)
			return b
		case p.tok == EOF:
			p.fail(b.Lbrace, "vox/parse/unclosed", "unclosed '{': missing '}' before the end of the file")
		case p.pos.Col == 1 && p.startsDecl():
			// Formatted code starts declarations in column 1 and
			// statements further right: the '}' is missing.
			p.errorAt(b.Lbrace, "vox/parse/unclosed", "unclosed '{': missing '}' before the declaration at line %d", p.pos.Line)
			if p.spec {
				panic(bailout{})
			}
			b.Stmts = take(p.stmts, mark)
			return b
		}
		if s := p.stmtRecover(); s != nil {
			p.stmts = append(p.stmts, s)
		}
	}
}

// The statements of a block, the parameters of a function and the
// arguments of a call gather on the parser's stacks (stmts, paramBuf,
// argBuf) and are copied out once, at their final number, instead of
// growing a slice of their own. A list starts at a mark; take copies what
// was gathered since, and truncate, deferred, drops it however the list's
// parsing ends (an error unwinds through it).

// take returns a copy of buf[mark:] (nil when empty).
func take[T any](buf []T, mark int) []T {
	if len(buf) == mark {
		return nil
	}
	return append([]T(nil), buf[mark:]...)
}

// truncate drops what was gathered on *buf since mark.
func truncate[T any](buf *[]T, mark int) {
	clear((*buf)[mark:])
	*buf = (*buf)[:mark]
}

// startsDecl reports whether the current token begins a top-level
// declaration (used only in column 1).
func (p *parser) startsDecl() bool {
	switch p.tok {
	case DECORATOR, PUB, ASYNC, TYPE, IMPORT:
		return true
	case FN:
		return p.sc.peek(0) == ' ' && isIdentStart(p.sc.peek(1))
	case IDENT:
		return p.sc.text == "tool" || p.sc.text == "resource" || toleratedWords[p.sc.text] && p.sc.peek(0) == ' '
	}
	return false
}

// stmtRecover parses a statement and its terminator. After a syntax error
// outside a plain function, it skips to the end of the statement and
// returns nil so that the rest of the block is still checked.
func (p *parser) stmtRecover() (s Stmt) {
	if p.spec {
		s = p.stmt()
		p.stmtEnd()
		return s
	}
	depth, nb := p.depth, len(p.sc.brackets)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.depth, p.peak, p.noBrace = depth, depth, 0
			p.syncStmt(nb)
			s = nil
		}
	}()
	s = p.stmt()
	p.stmtEnd()
	return s
}

func (p *parser) stmtEnd() {
	switch p.tok {
	case NEWLINE, SEMI:
		p.next()
	case RBRACE, EOF:
	default:
		p.syntaxError("expected newline after statement, found %s", p.describe())
	}
}

// syncStmt skips to the newline ending the statement, or to the '}' that
// closes the enclosing block (nb brackets were open at the statement's
// start).
func (p *parser) syncStmt(nb int) {
	for {
		switch {
		case p.tok == EOF:
			return
		case p.tok == NEWLINE && len(p.sc.brackets) <= nb:
			p.next()
			return
		case p.tok == RBRACE && len(p.sc.brackets) < nb:
			return
		case p.pos.Col == 1 && p.startsDecl():
			return
		}
		p.next()
	}
}

func (p *parser) stmt() Stmt {
	p.enter()
	defer p.leave()
	switch p.tok {
	case LET:
		s := p.lets.Make(LetStmt{Pos: p.pos})
		p.next()
		if p.tok == MUT {
			s.Mut = true
			p.next()
		}
		s.Pattern = p.pattern()
		if p.tok == COLON {
			p.next()
			s.Type = p.typeExpr()
		}
		p.expect(ASSIGN)
		s.Value = p.expr()
		return s
	case RETURN:
		s := p.returns.Make(ReturnStmt{Pos: p.pos})
		p.next()
		switch p.tok {
		case NEWLINE, SEMI, RBRACE, EOF:
		default:
			s.Value = p.expr()
		}
		return s
	case BREAK, CONTINUE:
		s := &BranchStmt{Pos: p.pos, Tok: p.tok}
		p.next()
		return s
	case WHILE:
		s := &WhileStmt{Pos: p.pos}
		p.next()
		s.Cond = p.headExpr()
		s.Body = p.block()
		return s
	case LOOP:
		s := &LoopStmt{Pos: p.pos}
		p.next()
		s.Body = p.block()
		return s
	case FOR:
		s := p.fors.Make(ForStmt{Pos: p.pos})
		p.next()
		pos, name := p.expectIdent()
		s.Vars = append(s.Vars, p.idents.Make(Ident{NamePos: pos, Name: name}))
		if p.tok == COMMA {
			p.next()
			pos, name := p.expectIdent()
			s.Vars = append(s.Vars, p.idents.Make(Ident{NamePos: pos, Name: name}))
		}
		p.expect(IN)
		s.Iter = p.headExpr()
		s.Body = p.block()
		return s
	}
	x := p.expr()
	switch p.tok {
	case ASSIGN, PLUS_EQ, MINUS_EQ, STAR_EQ, SLASH_EQ:
		s := p.assigns.Make(AssignStmt{Pos: p.pos, Op: p.tok, LHS: x})
		switch x.(type) {
		case *Ident, *IndexExpr, *DotExpr:
		default:
			p.syntaxError("cannot assign to this expression")
		}
		p.next()
		s.RHS = p.expr()
		return s
	}
	return p.exprStmts.Make(ExprStmt{X: x})
}

// ---- expressions ----

// headExpr parses the expression of an if, while, for or match head, where
// '{' begins the body rather than an object.
func (p *parser) headExpr() Expr {
	p.noBrace++
	x := p.expr()
	p.noBrace--
	return x
}

func (p *parser) expr() Expr { return p.binary(1) }

func precedence(t Token) int {
	switch t {
	case PIPE:
		return 1
	case OR:
		return 2
	case AND:
		return 3
	case EQL, NEQ, IS, ISNT:
		return 4
	case LT, GT, LE, GE:
		return 5
	case PLUS, MINUS:
		return 6
	case STAR, SLASH, PERCENT:
		return 7
	}
	return 0
}

// binary parses by precedence climbing; its recursion is bounded by the
// number of precedence levels, so only primary and unary count nesting.
//
// A chain a + b + c is parsed by a loop but builds a tree one level deeper
// per operator, which the passes after the parser walk recursively: the
// loop tracks the height of the tree it builds (h, in levels above base)
// and stops it at maxDepth.
func (p *parser) binary(min int) Expr {
	base, outer := p.depth, p.peak
	p.peak = base
	x := p.unary()
	h := p.peak - base
	for {
		prec := precedence(p.tok)
		if prec < min || prec == 0 {
			p.peak = max(outer, base+h)
			return x
		}
		op, pos := p.tok, p.pos
		p.next()
		p.peak = base
		y := p.binary(prec + 1)
		h = max(h, p.peak-base) + 1
		p.chainLink(pos, base, h)
		x = p.binaries.Make(BinaryExpr{X: x, OpPos: pos, Op: op, Y: y})
	}
}

func (p *parser) unary() Expr {
	switch p.tok {
	case NOT, MINUS, BANG:
		p.enter()
		defer p.leave()
		pos, op := p.pos, p.tok
		if op == BANG {
			op = NOT
		}
		p.next()
		x := p.unary()
		if lit, ok := x.(*Literal); ok && op == MINUS && (lit.Tok == INT || lit.Tok == FLOAT) && lit.Pos == p.afterMinus(pos) {
			lit.Int, lit.Float, lit.Pos = -lit.Int, -lit.Float, pos
			return lit
		}
		return p.unaries.Make(UnaryExpr{Pos: pos, Op: op, X: x})
	}
	base, outer := p.depth, p.peak
	p.peak = base
	x := p.primary()
	x = p.postfix(x, base)
	p.peak = max(outer, p.peak)
	return x
}

// afterMinus is the position just after a '-' at pos: a literal there is
// folded into a negative literal.
func (p *parser) afterMinus(pos Pos) Pos { return Pos{pos.Line, pos.Col + 1} }

// postfix parses the calls, indexing, field accesses and '?' after x, a
// tree of height p.peak-base, and leaves p.peak at base plus the height
// of the result (see binary).
func (p *parser) postfix(x Expr, base int) Expr {
	h := p.peak - base
	for {
		pos := p.pos
		switch p.tok {
		case LPAREN, DOT, LBRACK, QUESTION:
			h++
			p.chainLink(pos, base, h)
		}
		p.peak = base
		switch p.tok {
		case LPAREN:
			x = p.calls.Make(CallExpr{Fn: x, Lparen: p.pos, Args: p.args()})
		case DOT:
			p.next()
			pos, name := p.pos, p.sc.text
			if p.tok != IDENT && !p.tok.IsKeyword() {
				p.syntaxError("expected a name after '.', found %s", p.describe())
			}
			if p.tok.IsKeyword() {
				name = p.tok.String()
			}
			p.next()
			x = p.dots.Make(DotExpr{X: x, NamePos: pos, Name: name})
		case LBRACK:
			pos := p.pos
			p.next()
			saved := p.noBrace
			p.noBrace = 0
			idx := p.expr()
			p.noBrace = saved
			p.expect(RBRACK)
			x = p.indexes.Make(IndexExpr{X: x, Lbrack: pos, Index: idx})
		case QUESTION:
			x = &TryExpr{X: x, QPos: p.pos}
			p.next()
		case NEWLINE:
			// A method chain may continue on the next line with a leading
			// dot: items\n  .map(f).
			if !p.dotContinues() {
				p.peak = base + h
				return x
			}
			for p.tok == NEWLINE {
				p.next()
			}
		default:
			p.peak = base + h
			return x
		}
		// The arguments or the index are one level below the new node.
		h = max(h, p.peak-base+1)
		p.chainLink(pos, base, h)
	}
}

// dotContinues reports whether the next non-blank line starts with
// ".name".
func (p *parser) dotContinues() bool {
	src := p.sc.src
	i := p.sc.off
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '.':
			return i+1 < len(src) && isIdentStart(src[i+1])
		default:
			return false
		}
	}
	return false
}

// args parses (arg, ...) where an argument is expr or name = expr.
func (p *parser) args() []*Arg {
	saved := p.noBrace
	p.noBrace = 0
	defer func() { p.noBrace = saved }()
	p.expect(LPAREN)
	mark := len(p.argBuf) // arguments can hold calls
	defer truncate(&p.argBuf, mark)
	for p.tok != RPAREN {
		a := p.argNodes.Make(Arg{})
		if p.tok == IDENT && p.namedArg() {
			a.NamePos, a.Name = p.pos, p.sc.text
			p.next()
			p.expect(ASSIGN)
		}
		a.Value = p.expr()
		p.argBuf = append(p.argBuf, a)
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(RPAREN)
	return take(p.argBuf, mark)
}

// namedArg reports whether the identifier just scanned is followed by '='
// (and not '==' or '=>').
func (p *parser) namedArg() bool {
	src := p.sc.src
	i := p.sc.end
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i < len(src) && src[i] == '=' && (i+1 >= len(src) || src[i+1] != '=' && src[i+1] != '>')
}

// arrowFollows reports whether the identifier just scanned is followed by
// '=>' (a one-parameter lambda).
func (p *parser) arrowFollows() bool {
	src := p.sc.src
	i := p.sc.end
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i+1 < len(src) && src[i] == '=' && src[i+1] == '>'
}

func (p *parser) primary() Expr {
	p.enter()
	defer p.leave()
	switch p.tok {
	case INT:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: INT, Int: p.sc.ival})
		p.next()
		return x
	case FLOAT:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: FLOAT, Float: p.sc.fval})
		p.next()
		return x
	case STRING:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: STRING, Str: p.sc.str})
		p.next()
		return x
	case TRUE, FALSE:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: p.tok})
		p.next()
		return x
	case TEMPLATE:
		t := p.sc.tmpl
		x := p.templates.Make(TemplateLit{Pos: p.pos, Parts: t.Parts})
		for _, v := range t.Vars {
			x.Vars = append(x.Vars, p.idents.Make(Ident{NamePos: v.Pos, Name: v.Name}))
		}
		p.next()
		return x
	case IDENT:
		id := p.idents.Make(Ident{NamePos: p.pos, Name: p.sc.text})
		if p.arrowFollows() {
			p.next()
			p.expect(FATARROW)
			body := p.expr()
			return p.funcLits.Make(FuncLit{Pos: id.NamePos, Params: []*Param{{NamePos: id.NamePos, Name: id.Name, Ident: id}},
				Body: p.blocks.Make(Block{Lbrace: body.Span(), Stmts: []Stmt{p.exprStmts.Make(ExprStmt{X: body})}})})
		}
		p.next()
		return id
	case LPAREN:
		pos := p.pos
		saved := p.noBrace
		p.noBrace = 0
		defer func() { p.noBrace = saved }()
		p.next()
		if p.tok == RPAREN {
			p.next()
			return p.tuples.Make(TupleExpr{Pos: pos})
		}
		x := p.expr()
		if p.tok == RPAREN {
			p.next()
			return x
		}
		t := p.tuples.Make(TupleExpr{Pos: pos, Elems: []Expr{x}})
		for p.tok == COMMA {
			p.next()
			if p.tok == RPAREN {
				break
			}
			t.Elems = append(t.Elems, p.expr())
		}
		p.expect(RPAREN)
		return t
	case LBRACK:
		l := p.lists.Make(ListExpr{Pos: p.pos})
		saved := p.noBrace
		p.noBrace = 0
		defer func() { p.noBrace = saved }()
		p.next()
		for p.tok != RBRACK {
			l.Elems = append(l.Elems, p.expr())
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RBRACK)
		return l
	case LBRACE:
		if p.noBrace > 0 {
			break
		}
		if p.objectAhead() {
			return p.object()
		}
		return p.block()
	case IF:
		return p.ifExpr()
	case MATCH:
		return p.matchExpr()
	case FN:
		return p.lambda()
	}
	p.syntaxError("expected an expression, found %s", p.describe())
	return nil
}

// objectAhead reports whether the '{' at hand begins an object literal: it
// is followed by '}' or by a key and ':'.
func (p *parser) objectAhead() bool {
	st := p.save()
	p.quiet++
	defer func() {
		p.quiet--
		p.restore(st)
	}()
	p.next()
	for p.tok == NEWLINE {
		p.next()
	}
	switch {
	case p.tok == RBRACE:
		return true
	case p.tok == IDENT || p.tok == STRING || p.tok.IsKeyword():
		p.next()
		return p.tok == COLON
	}
	return false
}

func (p *parser) object() Expr {
	o := p.objects.Make(ObjectExpr{Pos: p.pos})
	p.expect(LBRACE)
	for {
		for p.tok == NEWLINE {
			p.next()
		}
		if p.tok == RBRACE {
			break
		}
		var key string
		switch {
		case p.tok == IDENT:
			key = p.sc.text
		case p.tok == STRING:
			key = p.sc.str
		case p.tok.IsKeyword():
			key = p.tok.String()
		default:
			p.syntaxError("expected an object key, found %s", p.describe())
		}
		p.next()
		p.expect(COLON)
		for p.tok == NEWLINE {
			p.next()
		}
		o.Keys = append(o.Keys, key)
		o.Values = append(o.Values, p.expr())
		for p.tok == NEWLINE {
			p.next()
		}
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(RBRACE)
	return o
}

func (p *parser) ifExpr() Expr {
	x := p.ifs.Make(IfExpr{Pos: p.pos})
	p.expect(IF)
	x.Cond = p.headExpr()
	x.Then = p.block()
	st := p.save()
	for p.tok == NEWLINE {
		p.next()
	}
	if p.tok != ELSE {
		p.restore(st)
		return x
	}
	p.next()
	if p.tok == IF {
		p.enter()
		x.Else = p.ifExpr()
		p.leave()
	} else {
		x.Else = p.block()
	}
	return x
}

func (p *parser) matchExpr() Expr {
	m := p.matches.Make(MatchExpr{Pos: p.pos})
	p.expect(MATCH)
	m.X = p.headExpr()
	p.expect(LBRACE)
	saved := p.noBrace
	p.noBrace = 0
	defer func() { p.noBrace = saved }()
	for {
		for p.tok == NEWLINE || p.tok == COMMA {
			p.next()
		}
		if p.tok == RBRACE {
			p.next()
			return m
		}
		arm := p.arms.Make(MatchArm{Pattern: p.pattern()})
		p.expect(FATARROW)
		arm.Body = p.armBody()
		m.Arms = append(m.Arms, arm)
		switch p.tok {
		case COMMA, NEWLINE, RBRACE:
		default:
			p.syntaxError("expected newline or ',' after a match arm, found %s", p.describe())
		}
	}
}

// armBody parses the body of a match arm: an expression, or an assignment
// (Yes => count += 1), which becomes a block whose value is Unit.
func (p *parser) armBody() Expr {
	x := p.expr()
	switch p.tok {
	case ASSIGN, PLUS_EQ, MINUS_EQ, STAR_EQ, SLASH_EQ:
		s := p.assigns.Make(AssignStmt{Pos: p.pos, Op: p.tok, LHS: x})
		switch x.(type) {
		case *Ident, *IndexExpr, *DotExpr:
		default:
			p.syntaxError("cannot assign to this expression")
		}
		p.next()
		s.RHS = p.expr()
		return p.blocks.Make(Block{Lbrace: x.Span(), Stmts: []Stmt{s, p.exprStmts.Make(ExprStmt{X: p.tuples.Make(TupleExpr{Pos: x.Span()})})}})
	}
	return x
}

func (p *parser) lambda() Expr {
	f := p.funcLits.Make(FuncLit{Pos: p.pos})
	p.expect(FN)
	f.Params = p.params(LPAREN, RPAREN)
	f.Result = p.resultType()
	if p.tok == LBRACE {
		f.Body = p.block()
	} else {
		body := p.expr()
		f.Body = p.blocks.Make(Block{Lbrace: body.Span(), Stmts: []Stmt{p.exprStmts.Make(ExprStmt{X: body})}})
	}
	return f
}

// ---- patterns ----

func (p *parser) pattern() Pattern {
	p.enter()
	defer p.leave()
	switch p.tok {
	case IDENT:
		id := p.idents.Make(Ident{NamePos: p.pos, Name: p.sc.text})
		p.next()
		if id.Name == "_" {
			return &WildcardPat{Pos: id.NamePos}
		}
		if p.tok != LPAREN {
			return p.bindPats.Make(BindPat{Ident: id})
		}
		c := &CtorPat{Name: id}
		p.next()
		for p.tok != RPAREN {
			c.Args = append(c.Args, p.pattern())
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RPAREN)
		return c
	case INT, FLOAT, STRING, TRUE, FALSE:
		lit := p.primary().(*Literal)
		return p.literalPats.Make(LiteralPat{Lit: lit})
	case MINUS:
		pos := p.pos
		p.next()
		if p.tok != INT && p.tok != FLOAT {
			p.syntaxError("expected a number after '-' in a pattern, found %s", p.describe())
		}
		lit := p.primary().(*Literal)
		lit.Int, lit.Float, lit.Pos = -lit.Int, -lit.Float, pos
		return p.literalPats.Make(LiteralPat{Lit: lit})
	case LPAREN:
		t := &TuplePat{Pos: p.pos}
		p.next()
		for p.tok != RPAREN {
			t.Elems = append(t.Elems, p.pattern())
			if p.tok != COMMA {
				break
			}
			p.next()
		}
		p.expect(RPAREN)
		if len(t.Elems) == 1 {
			return t.Elems[0]
		}
		return t
	}
	p.syntaxError("expected a pattern, found %s", p.describe())
	return nil
}
