// Package syntax is the front end of the Vox subset: the scanner, the
// syntax tree and the parser (docs/vox-language.md: lexical rules, statements and expressions).
//
// The parser reads a whole .vox file and collects every diagnostic instead
// of stopping at the first. It recognises tools, resources, plain
// functions, algebraic and record types, module constants and imports
// (and, for scripts, top-level statements), and tolerates
// the rest of the Vox language (components, tables, routes, workflows, UI
// markup, ...) by skipping each such declaration as one opaque unit with
// the raw skippers of skip.go, which drive the scanner past text that is
// not Vox code. A plain function whose body uses syntax outside the subset
// is recorded as unavailable with a warning; the resolver turns that into
// an error only when a tool or resource reaches it.
package syntax

import (
	"bytes"
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
	return parse(path, src, false)
}

// ParseScript parses a file in script mode (vox run FILE): a top-level
// line that does not start a declaration is a statement, and the
// statements, in order, are the body of a synthetic function main
// (File.Script). A top-level let is then a statement too, not a module
// constant. A script with statements must not declare its own main.
func ParseScript(path string, src []byte) (f *File, diags diag.List) {
	return parse(path, src, true)
}

// ParseText is Parse (ParseScript when script is set) of src whose text,
// string(src), the caller already has: the names and strings of the tree
// are slices of text, so that a caller keeping text keeps the file's
// source once (runtime/vox's lean modules).
func ParseText(path string, src []byte, text string, script bool) (f *File, diags diag.List) {
	if len(text) != len(src) {
		text = string(src)
	}
	return parseText(path, src, text, script)
}

func parse(path string, src []byte, script bool) (f *File, diags diag.List) {
	return parseText(path, src, string(src), script)
}

// ParseInto is ParseText that allocates the tree's nodes in nodes, which
// the tree then shares: nodes must not be Reset while the tree is used.
func ParseInto(nodes *Nodes, path string, src []byte, text string, script bool) (f *File, diags diag.List) {
	if len(text) != len(src) {
		text = string(src)
	}
	return parseInto(nodes, path, src, text, script)
}

func parseText(path string, src []byte, text string, script bool) (f *File, diags diag.List) {
	return parseInto(new(Nodes), path, src, text, script)
}

func parseInto(nodes *Nodes, path string, src []byte, text string, script bool) (f *File, diags diag.List) {
	p := &parser{path: path, script: script, Nodes: nodes}
	defer func() {
		if r := recover(); r != nil {
			diags = append(p.diags, diag.Diagnostic{Path: path, Line: 1, Col: 1, Severity: diag.Error,
				Code: "vox/internal/panic", Message: fmt.Sprintf("internal error while parsing: %v", r)})
			if f == nil {
				f = &File{Path: path}
			}
		}
	}()
	p.sc.init(src, text, p.errh)
	f = &File{Path: path}
	p.next()
	for p.tok != EOF {
		p.topDecl(f)
	}
	if len(p.scriptStmts) > 0 {
		p.scriptMain(f)
	}
	return f, p.diags
}

// scriptMain makes the statements of a script the body of its synthetic
// function main.
func (p *parser) scriptMain(f *File) {
	first := p.scriptStmts[0].Span()
	for _, d := range f.Decls {
		if fn, ok := d.(*FnDecl); ok && fn.Name == "main" {
			p.errorAt(fn.NamePos, "vox/parse/script-main",
				"a script with top-level statements (the first at line %d) cannot also declare fn main: its statements are main's body", first.Line)
			return
		}
	}
	main := &FnDecl{Head: first, Kind: PlainFn, NamePos: first, Name: "main",
		Body: &Block{Lbrace: first, Stmts: p.scriptStmts}}
	f.Decls = append(f.Decls, main)
	f.Script = main
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

	// script is set by ParseScript: top-level statements gather in
	// scriptStmts.
	script      bool
	scriptStmts []Stmt

	// spec is set while parsing a plain function: its first error aborts
	// it (bailout) and makes it unavailable instead of failing the file.
	spec       bool
	specErr    *Unavailable
	quiet      int   // > 0 during lookahead: diagnostics are dropped
	noBrace    int   // > 0 in if/while/for/match heads: '{' ends the expression
	noArrow    int   // > 0 in a match guard: name => is the arm's arrow, not a lambda
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
	*Nodes
}

// Nodes holds the chunks a parse allocates the tree's nodes from. A
// caller that keeps nothing of a tree once done with it can Reset them
// and parse the next file into the same chunks (ParseInto), so that the
// nodes are not garbage made per file (runtime/vox's lean modules,
// docs/benchmarks.md, Refresh).
type Nodes struct {
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

// Reset zeroes every node parsed into n and makes the room free for the
// next parse. Nothing of the trees parsed into n may be used after.
func (n *Nodes) Reset() {
	n.idents.Reset()
	n.literals.Reset()
	n.exprStmts.Reset()
	n.blocks.Reset()
	n.paramNodes.Reset()
	n.types.Reset()
	n.ifs.Reset()
	n.lets.Reset()
	n.bindPats.Reset()
	n.binaries.Reset()
	n.calls.Reset()
	n.argNodes.Reset()
	n.dots.Reset()
	n.returns.Reset()
	n.fnDecls.Reset()
	n.indexes.Reset()
	n.assigns.Reset()
	n.lists.Reset()
	n.objects.Reset()
	n.unaries.Reset()
	n.templates.Reset()
	n.funcLits.Reset()
	n.tuples.Reset()
	n.matches.Reset()
	n.arms.Reset()
	n.fors.Reset()
	n.literalPats.Reset()
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
			p.spec, p.specErr, p.depth, p.peak, p.noBrace, p.noArrow = false, nil, 0, 0, 0, 0
			p.syncTop(p.sc.start)
		}
	}()
	p.sc.brackets = p.sc.brackets[:0]
	if p.script && p.tok != NEWLINE && p.tok != SEMI && !p.scriptDecl() {
		if s := p.stmtRecover(); s != nil {
			p.scriptStmts = append(p.scriptStmts, s)
		}
		return
	}
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

// scriptDecl reports whether the current top-level token of a script
// begins a declaration rather than a statement.
func (p *parser) scriptDecl() bool {
	switch p.tok {
	case DECORATOR, PUB, ASYNC, TYPE, IMPORT, EOF:
		return true
	case FN:
		return !p.lambdaAhead()
	case IDENT:
		w := p.sc.text
		next := p.sc.peekToken()
		switch {
		case w == "tool":
			return next == '"' || isIdentStart(next)
		case w == "resource":
			return next == '"'
		case toleratedWords[w]:
			return isIdentStart(next) || next == '{' || next == '"'
		}
	}
	return false
}

// lambdaAhead reports whether the current token fn begins a lambda (fn
// followed by '(') rather than a declaration.
func (p *parser) lambdaAhead() bool { return p.sc.peekToken() == '(' }

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
	var heads [3]Decorator
	var toolHead, resHead, promptHead *Decorator
	var desc, uri, mimeType string
	var mimePos, uriPos Pos
	var inputSchema string
	var inputSchemaPos Pos
	var effects []*Effect // of @uses(...)
	var completions []Completion
	skipFn := ""
	for p.tok == DECORATOR {
		d := Decorator{Pos: p.pos, Name: p.sc.text, End: p.sc.posAt(p.sc.end)}
		p.next()
		switch d.Name {
		case "@tool", "@mcp.tool":
			if toolHead != nil || resHead != nil || promptHead != nil {
				p.fail(d.Pos, "vox/decl/conflict", "%s repeats the declaration head %s", d.Name, headName(toolHead, resHead, promptHead))
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
		case "@mcp.prompt":
			// A workspace prompt (docs/vox-language.md, Prompts): the
			// description in the call form or bare, like @tool's.
			if toolHead != nil || resHead != nil || promptHead != nil {
				p.fail(d.Pos, "vox/decl/conflict", "%s repeats the declaration head %s", d.Name, headName(toolHead, resHead, promptHead))
			}
			heads[2] = d
			promptHead = &heads[2]
			switch p.tok {
			case STRING, TEMPLATE:
				desc = p.plainString("a description")
			case LPAREN:
				p.next()
				if p.tok != RPAREN {
					desc = p.plainString("a description")
				}
				p.expect(RPAREN)
			}
		case "@resource", "@mcp.resource":
			if toolHead != nil || resHead != nil || promptHead != nil {
				p.fail(d.Pos, "vox/decl/conflict", "%s repeats the declaration head %s", d.Name, headName(toolHead, resHead, promptHead))
			}
			heads[1] = d
			resHead = &heads[1]
			if p.tok == LPAREN {
				p.next()
				uriPos = p.pos
				uri = p.plainString("a URI")
				p.expect(COMMA)
				desc = p.plainString("a description")
				if p.tok == COMMA { // an explicit MIME type
					p.next()
					mimePos = p.pos
					mimeType = p.plainString("a MIME type")
				}
				p.expect(RPAREN)
			} else {
				uriPos = p.pos
				uri = p.plainString("a URI")
				desc = p.plainString("a description")
				if p.tok == STRING || p.tok == TEMPLATE {
					mimePos = p.pos
					mimeType = p.plainString("a MIME type")
				}
			}
		case "@input_schema":
			// A tool's explicit input schema (docs/vox-language.md,
			// Arguments and results): one string, usually raw.
			p.expect(LPAREN)
			inputSchemaPos = p.pos
			inputSchema = p.plainString("a JSON Schema")
			p.expect(RPAREN)
		case "@mcp.complete":
			// @mcp.complete("param", fn): fn gives the completion
			// candidates of a prompt's or a resource template's argument
			// (docs/vox-language.md, Completion); the checker checks both.
			p.expect(LPAREN)
			c := Completion{ParamPos: p.pos}
			c.Param = p.plainString("a parameter name")
			p.expect(COMMA)
			c.FuncPos, c.Func = p.expectIdent()
			p.expect(RPAREN)
			completions = append(completions, c)
		case "@uses":
			// Its effects join the function's uses clause; arguments that
			// are not effect names are skipped with a warning, as the
			// decorator was before.
			if es, ok := p.usesArgs(); ok {
				effects = append(effects, es...)
			} else {
				p.warn(d.Pos, "vox/decorator/ignored", "decorator @uses is ignored here: its arguments are not effect names (net, fs, ...)")
				if p.tok == LPAREN {
					p.skipParens()
				}
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
	case isFn && (toolHead != nil || resHead != nil || promptHead != nil):
		fn := p.fnDecls.Make(FnDecl{Head: head, Decorators: decs, Description: desc, URI: uri, URIPos: uriPos, MIMEType: mimeType, MIMEPos: mimePos,
			InputSchema: inputSchema, InputSchemaPos: inputSchemaPos, Completions: completions})
		hd := toolHead
		fn.Kind = ToolFn
		switch {
		case resHead != nil:
			fn.Kind, hd = ResourceFn, resHead
		case promptHead != nil:
			fn.Kind, hd = PromptFn, promptHead
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
		fn.Effects = append(fn.Effects, effects...)
		f.Decls = append(f.Decls, fn)
	case toolHead != nil || resHead != nil || promptHead != nil:
		p.syntaxError("expected fn after %s, found %s", headName(toolHead, resHead, promptHead), p.describe())
	case isFn && skipFn == "":
		p.ignoreDecorators(decs, nil)
		p.plainFn(f, head, decs)
		if n := len(f.Decls); n > 0 && len(effects) > 0 {
			if fn, ok := f.Decls[n-1].(*FnDecl); ok && fn.Head == head {
				fn.Effects = append(fn.Effects, effects...)
			}
		}
	case p.tok == EOF:
		f.Decls = append(f.Decls, &SkippedDecl{Pos: head, Word: decs[0].Name})
	default:
		p.skipDecl(f, head, decs[0].Name, p.sc.start)
	}
}

func headName(t, r, pr *Decorator) string {
	switch {
	case t != nil:
		return t.Name
	case r != nil:
		return r.Name
	}
	return pr.Name
}

func (p *parser) ignoreDecorators(decs []Decorator, keep *Decorator) {
	for _, d := range decs {
		if keep != nil && d.Pos == keep.Pos || d.Name == "@uses" {
			continue
		}
		if d.Name == "@input_schema" {
			if keep == nil || keep.Name != "@tool" && keep.Name != "@mcp.tool" {
				p.errorAt(d.Pos, "vox/decl/input-schema", "@input_schema gives a tool's input schema: put it on a @tool function")
			}
			continue
		}
		if d.Name == "@mcp.complete" {
			if keep == nil || keep.Name != "@mcp.prompt" && keep.Name != "@mcp.resource" && keep.Name != "@resource" {
				p.errorAt(d.Pos, "vox/decl/complete", "@mcp.complete completes an argument of a prompt or a resource template: put it on an @mcp.prompt or @mcp.resource function")
			}
			continue
		}
		p.warn(d.Pos, "vox/decorator/ignored", "decorator %s is ignored here", d.Name)
	}
}

// plainString parses a string literal that never interpolates
// (descriptions and URIs): a string that would be a template elsewhere
// is taken with every brace literal, so "notes://{id}" is a URI with a
// parameter.
func (p *parser) plainString(what string) string {
	switch p.tok {
	case STRING, TEMPLATE:
		p.quiet++
		p.sc.rescanPlain()
		p.quiet--
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
	p.depth, p.peak, p.noBrace, p.noArrow = 0, 0, 0, 0
	p.restore(st)
	fn.Unavailable, fn.Body, fn.Params, fn.Result = reason, nil, nil, nil
	name := "function"
	if fn.Name != "" {
		name = "function " + fn.Name
	}
	if c := outsideConstruct(p.sc.src, reason.Pos); c != "" {
		reason.Reason = "it uses " + c + ", which vox-mcp does not run"
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

// outsideConstructs name the constructs of the wider language, outside
// what vox-mcp runs, by the word that begins them.
var outsideConstructs = map[string]string{
	"spawn": "actors", "actor": "actors", "on": "actors",
	"workflow": "durable workflows", "activity": "durable workflows", "side_effect": "durable workflows",
	"view": "UI components", "component": "UI components", "state": "UI components", "derived": "UI components",
	"effect": "UI components", "mount": "UI components", "cleanup": "UI components", "when": "UI components",
	"fetching": "UI components", "empty": "UI components", "fragment": "UI components",
	"migrate": "database migrations", "table": "database tables", "query": "database queries", "mutation": "database mutations",
}

// outsideConstruct names the construct of the wider language that begins
// at pos, where parsing a plain function failed, or returns "" when the
// failure is a plain syntax error.
func outsideConstruct(src []byte, pos Pos) string {
	off, line := 0, int32(1)
	for line < pos.Line {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return ""
		}
		off += i + 1
		line++
	}
	off += int(pos.Col) - 1
	if off < 0 || off >= len(src) {
		return ""
	}
	if src[off] == '<' && off+1 < len(src) && (isIdentStart(src[off+1]) || src[off+1] == '>' || src[off+1] == '/') {
		end := off + 1
		for end < len(src) && end < off+32 && (isIdentByte(src[end]) || src[end] == '/') {
			end++
		}
		return "UI markup (`" + string(src[off:end]) + "`)"
	}
	end := off
	for end < len(src) && isIdentByte(src[end]) {
		end++
	}
	if what, ok := outsideConstructs[string(src[off:end])]; ok {
		return what + " (`" + string(src[off:end]) + "`)"
	}
	// The word before, on the same line: spawn Counter() fails at Counter.
	i := off
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	start := i
	for start > 0 && isIdentByte(src[start-1]) {
		start--
	}
	if start < i {
		if what, ok := outsideConstructs[string(src[start:i])]; ok {
			return what + " (`" + string(src[start:i]) + "`)"
		}
	}
	return ""
}

// fnRest parses NAME [<T, ...>] (params) [uses effects] [to T] { body }.
func (p *parser) fnRest(fn *FnDecl) {
	fn.NamePos, fn.Name = p.expectIdent()
	switch p.tok {
	case LT:
		fn.TypeParams = p.typeParams(LT, GT)
	case LBRACK:
		pos := p.pos
		fn.TypeParams = p.typeParams(LBRACK, RBRACK)
		p.warn(pos, "vox/parse/generic-brackets", "generic parameters are written fn %s<T>(...): the reference rejects [T]", fn.Name)
	}
	fn.Params = p.params(LPAREN, RPAREN)
	if p.tok == IDENT && p.sc.text == "uses" {
		p.next()
		fn.Effects = p.effects(fn.Effects)
	}
	fn.Result = p.resultType()
	if p.tok != LBRACE {
		p.syntaxError("expected '{' to begin the body of %s, found %s", fn.Name, p.describe())
	}
	fn.Body = p.block()
}

// typeParams parses the generic parameters <T, U> (or [T, U]) of a
// function or a type.
func (p *parser) typeParams(open, close Token) []*Ident {
	p.expect(open)
	var out []*Ident
	for {
		pos, name := p.expectIdent()
		out = append(out, p.idents.Make(Ident{NamePos: pos, Name: name}))
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(close)
	return out
}

// usesArgs parses the arguments of @uses(...) as effects, or consumes
// nothing and returns false when they are not a list of effect names.
func (p *parser) usesArgs() (out []*Effect, ok bool) {
	if p.tok != LPAREN {
		return nil, false
	}
	st, nd := p.save(), len(p.diags)
	spec, specErr := p.spec, p.specErr
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, isBail := r.(bailout); !isBail {
					panic(r)
				}
			}
		}()
		p.spec = false
		p.quiet++
		defer func() { p.quiet-- }()
		p.next()
		out = p.effects(nil)
		p.expect(RPAREN)
		ok = true
	}()
	p.spec, p.specErr = spec, specErr
	if !ok {
		p.restore(st)
		p.diags = p.diags[:nd]
		return nil, false
	}
	// Parse again, loudly, for the warnings of unknown effects.
	p.restore(st)
	p.next()
	out = p.effects(nil)
	p.expect(RPAREN)
	return out, true
}

// effects parses the effects of a uses clause or of @uses(...): names
// separated by commas, mcp taking a tool name in parentheses.
func (p *parser) effects(out []*Effect) []*Effect {
	for {
		e := &Effect{Pos: p.pos, Name: p.sc.text}
		if p.tok != IDENT {
			p.syntaxError("expected an effect name after uses, found %s: one of %s", p.describe(), strings.Join(Effects, ", "))
		}
		known := false
		for _, k := range Effects {
			known = known || k == e.Name
		}
		if !known {
			// A warning, not the reference's error: effects grant
			// nothing here, so an unknown one changes nothing that runs.
			p.warn(e.Pos, "vox/parse/unknown-effect", "unknown effect %s: expected one of %s", e.Name, strings.Join(Effects, ", "))
		}
		p.next()
		if e.Name == "mcp" && p.tok == LPAREN {
			p.next()
			_, e.Arg = p.expectIdent()
			p.expect(RPAREN)
		}
		out = append(out, e)
		if p.tok != COMMA {
			return out
		}
		p.next()
	}
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

// typeExpr parses a type: Name, Name[Args] (an argument may be an
// integer: Tensor[2]), a tuple (A, B), or a function type fn(A) to B.
func (p *parser) typeExpr() *Type {
	p.enter()
	defer p.leave()
	t := p.types.Make(Type{Pos: p.pos})
	switch p.tok {
	case LPAREN:
		t.Kind = TupleType
		t.Args = p.typeList(LPAREN, RPAREN)
		return t
	case FN:
		p.next()
		t.Kind = FuncType
		t.Args = p.typeList(LPAREN, RPAREN)
		if p.tok == TO || p.tok == ARROW {
			t.Result = p.resultType()
		}
		return t
	case INT:
		t.Kind, t.Name = IntType, p.sc.text
		p.next()
		return t
	}
	_, t.Name = p.expectIdent()
	if p.tok == LBRACK {
		t.Args = p.typeList(LBRACK, RBRACK)
	}
	return t
}

// typeList parses types separated by commas between open and close.
func (p *parser) typeList(open, close Token) []*Type {
	p.expect(open)
	var out []*Type
	for p.tok != close {
		out = append(out, p.typeExpr())
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(close)
	return out
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
	fn.URIPos = p.pos
	fn.URI = p.plainString("a URI")
	fn.Description = p.plainString("a description")
	if p.tok == STRING || p.tok == TEMPLATE {
		fn.MIMEPos = p.pos
		fn.MIMEType = p.plainString("a MIME type")
	}
	p.skipNewlines()
	if p.tok == FN {
		p.next()
	}
	p.fnRest(fn)
	f.Decls = append(f.Decls, fn)
}

// typeDecl parses an algebraic type (type T = | A | B(x: int)) or a
// record type (type T { x: int, y: str }); off is the offset where the
// declaration starts. Anything else after the name (type Alias = str) is
// skipped as a declaration of the wider language.
func (p *parser) typeDecl(f *File, head Pos, off int) {
	p.expect(TYPE)
	d := &TypeDecl{Pos: head, NamePos: p.pos}
	_, d.Name = p.expectIdent()
	if p.tok == LBRACK {
		pos := p.pos
		d.Params = p.typeParams(LBRACK, RBRACK)
		p.warn(pos, "vox/parse/generic-brackets", "type %s has generic parameters: the reference's types have none", d.Name)
	}
	if p.tok == LBRACE && d.Params == nil {
		p.recordDecl(f, d)
		return
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

// recordDecl parses the fields of a record type: name: type, separated by
// commas or newlines.
func (p *parser) recordDecl(f *File, d *TypeDecl) {
	r := &RecordDecl{Pos: d.Pos, NamePos: d.NamePos, Name: d.Name}
	p.enter()
	p.expect(LBRACE)
	seen := map[string]bool{}
	for {
		for p.tok == NEWLINE || p.tok == COMMA {
			p.next()
		}
		if p.tok == RBRACE {
			break
		}
		fld := &Field{NamePos: p.pos, Name: p.sc.text}
		if p.tok != IDENT && !p.tok.IsKeyword() {
			p.syntaxError("expected a field name in record %s, found %s", r.Name, p.describe())
		}
		if p.tok.IsKeyword() {
			fld.Name = p.tok.String()
		}
		p.next()
		p.expect(COLON)
		fld.Type = p.typeExpr()
		if seen[fld.Name] {
			p.errorAt(fld.NamePos, "vox/parse/duplicate-field", "record %s declares field %s twice", r.Name, fld.Name)
		}
		seen[fld.Name] = true
		r.Fields = append(r.Fields, fld)
		switch p.tok {
		case NEWLINE, COMMA, RBRACE:
		default:
			p.syntaxError("expected ',' or a newline after field %s, found %s", fld.Name, p.describe())
		}
	}
	p.expect(RBRACE)
	p.leave()
	f.Decls = append(f.Decls, r)
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
	defer p.restrict(p.unrestrict())
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
			p.depth, p.peak, p.noBrace, p.noArrow = depth, depth, 0, 0
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
		case NEWLINE, SEMI, RBRACE, EOF, COMMA:
		default:
			s.Value = p.expr()
		}
		return s
	case BREAK, CONTINUE:
		s := &BranchStmt{Pos: p.pos, Tok: p.tok}
		p.next()
		return s
	case WHILE, LOOP, FOR:
		return p.loop()
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

// loop parses a while, loop or for loop (a statement, also allowed where
// an expression is wanted: its value is Unit).
func (p *parser) loop() Stmt {
	switch p.tok {
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
	}
	s := p.fors.Make(ForStmt{Pos: p.pos})
	p.expect(FOR)
	s.Pattern = p.forPattern()
	if p.tok == COMMA {
		p.next()
		switch id := p.sc.text; {
		case p.tok == IDENT && id == "_":
			s.Index = &WildcardPat{Pos: p.pos}
		case p.tok == IDENT:
			s.Index = p.bindPats.Make(BindPat{Ident: p.idents.Make(Ident{NamePos: p.pos, Name: id})})
		default:
			p.syntaxError("expected the name of the position after ',' in a for loop, found %s", p.describe())
		}
		p.next()
	}
	p.expect(IN)
	s.Iter = p.headExpr()
	if p.tok == IDENT && p.sc.text == "key" && p.sc.peekToken() == '=' {
		p.next()
		p.expect(ASSIGN)
		s.Key = p.headExpr()
	}
	s.Body = p.block()
	return s
}

// forPattern parses what a for loop binds to each element: a name, _, or
// a tuple of those ((k, v) for the entries of a map).
func (p *parser) forPattern() Pattern {
	pat := p.pattern()
	var check func(Pattern)
	check = func(q Pattern) {
		switch q := q.(type) {
		case *BindPat, *WildcardPat:
		case *TuplePat:
			for _, e := range q.Elems {
				check(e)
			}
		default:
			p.fail(q.Span(), "vox/parse/syntax", "a for loop binds names, _ or tuples of them ((k, v)), not this pattern")
		}
	}
	check(pat)
	return pat
}

// ---- expressions ----

// restrictions are the rules of a head (noBrace) and of a match guard
// (noArrow), which brackets lift for what they enclose.
type restrictions struct{ noBrace, noArrow int }

// unrestrict lifts the restrictions for a bracketed part and returns
// them for restrict.
func (p *parser) unrestrict() restrictions {
	r := restrictions{p.noBrace, p.noArrow}
	p.noBrace, p.noArrow = 0, 0
	return r
}

func (p *parser) restrict(r restrictions) { p.noBrace, p.noArrow = r.noBrace, r.noArrow }

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
	case LT, GT, LE, GE, IN, NOT_IN:
		return 5
	case PLUS, MINUS:
		return 6
	case STAR, SLASH, PERCENT:
		return 7
	}
	return 0
}

// withPrec is the precedence of x with options: that of and.
const withPrec = 3

// binaryOp returns the binary operator at hand and its precedence (0 when
// there is none). Two operators are words that are not tokens of their
// own: "not in" and the contextual "with" (isWith).
func (p *parser) binaryOp() (op Token, prec int, isWith bool) {
	switch p.tok {
	case IDENT:
		if p.sc.text == "with" {
			return IDENT, withPrec, true
		}
		return p.tok, 0, false
	case NOT:
		if p.sc.peekWord() == "in" {
			return NOT_IN, precedence(NOT_IN), false
		}
		return p.tok, 0, false
	}
	return p.tok, precedence(p.tok), false
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
		op, prec, isWith := p.binaryOp()
		if prec < min || prec == 0 {
			p.peak = max(outer, base+h)
			return x
		}
		pos := p.pos
		p.next()
		if op == NOT_IN {
			p.next() // the in
		}
		p.peak = base
		y := p.binary(prec + 1)
		h = max(h, p.peak-base) + 1
		p.chainLink(pos, base, h)
		if isWith {
			p.checkWith(y)
			x = &WithExpr{X: x, WithPos: pos, Options: y}
			continue
		}
		x = p.binaries.Make(BinaryExpr{X: x, OpPos: pos, Op: op, Y: y})
	}
}

// WithOptions are the options a with expression knows, and the type of
// each: vox-mcp evaluates and checks them, then ignores them (it runs a
// call once, without retries or timeouts).
var WithOptions = []struct{ Name, Type string }{
	{"retries", "int"}, {"timeout", "str"}, {"activity_id", "str"}, {"id", "str"},
	{"meta", "str"}, {"mens", "str"}, {"initial_backoff", "str"},
}

// checkWith checks the options of a with expression written as an
// object literal: an unknown option is an error, and a warning names the
// options that are ignored.
func (p *parser) checkWith(opts Expr) {
	o, ok := opts.(*ObjectExpr)
	if !ok {
		return // checked when evaluated
	}
	var names []string
	for i, k := range o.Keys {
		known := false
		for _, w := range WithOptions {
			known = known || w.Name == k
		}
		if !known {
			p.errorAt(o.KeyPos[i], "vox/with/unknown-option", "unknown with option %s: the options are %s", k, withOptionNames())
			continue
		}
		names = append(names, k)
	}
	if len(names) > 0 {
		p.warn(o.Pos, "vox/with/ignored", "with options %s are ignored: vox-mcp runs a call once, without retries or timeouts", strings.Join(names, ", "))
	}
}

func withOptionNames() string {
	var b strings.Builder
	for i, w := range WithOptions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w.Name)
	}
	return b.String()
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
			saved := p.unrestrict()
			idx := p.expr()
			p.restrict(saved)
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
	defer p.restrict(p.unrestrict())
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
	case DEC:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: DEC, Str: p.sc.text})
		p.next()
		return x
	case FOR, WHILE, LOOP:
		return p.loop().(Expr)
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
		if p.noArrow == 0 && p.arrowFollows() {
			p.next()
			p.expect(FATARROW)
			return p.arrowBody(id.NamePos, []*Param{{NamePos: id.NamePos, Name: id.Name, Ident: id}})
		}
		p.next()
		if p.tok == LBRACE && isUpper(id.Name) && p.objectAhead(p.noBrace == 0) {
			return p.recordLit(id)
		}
		return id
	case LPAREN:
		pos := p.pos
		if params := p.arrowParams(); params != nil {
			return p.arrowBody(pos, params)
		}
		defer p.restrict(p.unrestrict())
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
		defer p.restrict(p.unrestrict())
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
		// In a head ('{' begins the body), only a brace followed by a
		// key and ':' is an object: a body never starts so.
		if p.objectAhead(p.noBrace == 0) {
			return p.object()
		}
		if p.noBrace > 0 {
			break
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

func isUpper(name string) bool { return name != "" && 'A' <= name[0] && name[0] <= 'Z' }

// arrowBody parses the body of an arrow lambda (x => body, (a, b) =>
// body) whose parameters are parsed.
func (p *parser) arrowBody(pos Pos, params []*Param) Expr {
	body := p.expr()
	return p.funcLits.Make(FuncLit{Pos: pos, Params: params,
		Body: p.blocks.Make(Block{Lbrace: body.Span(), Stmts: []Stmt{p.exprStmts.Make(ExprStmt{X: body})}})})
}

// arrowParams parses the parameters of a lambda (a, b) => ... when the
// '(' at hand begins one (names separated by commas, then ')' and '=>'),
// and returns nil, having consumed nothing, otherwise.
func (p *parser) arrowParams() []*Param {
	if p.noArrow > 0 {
		return nil
	}
	st := p.save()
	p.quiet++
	p.next()
	ok := false
	for p.tok == IDENT {
		p.next()
		if p.tok == RPAREN {
			p.next()
			ok = p.tok == FATARROW
			break
		}
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.quiet--
	p.restore(st)
	if !ok {
		return nil
	}
	p.next()
	var params []*Param
	for p.tok == IDENT {
		id := p.idents.Make(Ident{NamePos: p.pos, Name: p.sc.text})
		params = append(params, p.paramNodes.Make(Param{NamePos: id.NamePos, Name: id.Name, Ident: id}))
		p.next()
		if p.tok == COMMA {
			p.next()
		}
	}
	p.expect(RPAREN)
	p.expect(FATARROW)
	return params
}

// recordLit parses the fields of a record literal Name { field: value,
// ... } whose name is parsed.
func (p *parser) recordLit(name *Ident) Expr {
	r := &RecordLit{Type: name, Lbrace: p.pos}
	p.enter()
	defer p.leave()
	p.expect(LBRACE)
	for {
		for p.tok == NEWLINE {
			p.next()
		}
		if p.tok == RBRACE {
			break
		}
		fi := &FieldInit{NamePos: p.pos, Name: p.sc.text}
		switch {
		case p.tok == IDENT:
		case p.tok.IsKeyword():
			fi.Name = p.tok.String()
		default:
			p.syntaxError("expected a field name in a %s literal, found %s", name.Name, p.describe())
		}
		p.next()
		p.expect(COLON)
		for p.tok == NEWLINE {
			p.next()
		}
		fi.Value = p.expr()
		r.Fields = append(r.Fields, fi)
		for p.tok == NEWLINE {
			p.next()
		}
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	p.expect(RBRACE)
	return r
}

// objectAhead reports whether the '{' at hand begins an object literal: it
// is followed by a key and ':', or by '}' when empty is set.
func (p *parser) objectAhead(empty bool) bool {
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
		return empty
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
		kpos := p.pos
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
		o.KeyPos = append(o.KeyPos, kpos)
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
	defer p.restrict(p.unrestrict())
	for {
		for p.tok == NEWLINE || p.tok == COMMA {
			p.next()
		}
		if p.tok == RBRACE {
			p.next()
			return m
		}
		arm := p.arms.Make(MatchArm{Pattern: p.pattern()})
		if p.tok == IF {
			p.next()
			p.noArrow++
			arm.Guard = p.expr()
			p.noArrow--
		}
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

// armBody parses the body of a match arm: an expression, or a statement
// that becomes a block holding it: return [value], break, continue, or an
// assignment (Yes => count += 1), whose value is Unit.
func (p *parser) armBody() Expr {
	switch p.tok {
	case RETURN, BREAK, CONTINUE:
		pos := p.pos
		return p.blocks.Make(Block{Lbrace: pos, Stmts: []Stmt{p.stmt()}})
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
		comma := false
		for p.tok != RPAREN {
			t.Elems = append(t.Elems, p.pattern())
			if p.tok != COMMA {
				break
			}
			comma = true
			p.next()
		}
		p.expect(RPAREN)
		if len(t.Elems) == 1 && !comma {
			return t.Elems[0] // (p) is p; (p,) a tuple of one
		}
		return t
	}
	p.syntaxError("expected a pattern, found %s", p.describe())
	return nil
}
