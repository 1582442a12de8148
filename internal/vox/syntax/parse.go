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
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/internal/slab"
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
// source once (internal/vox's lean modules).
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
	return p.run(src, text)
}

func (p *parser) run(src []byte, text string) (f *File, diags diag.List) {
	path := p.path
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
	f.Comments = groupComments(src, p.sc.comments)
	return f, p.diags
}

// ParseTokens is Parse (ParseScript when script is set) that also returns
// every token the parser consumed, in order, with the units it skipped as
// OPAQUE spans: what a formatter needs to print the file again.
func ParseTokens(path string, src []byte, script bool) (f *File, toks []TokenSpan, diags diag.List) {
	p := &parser{path: path, script: script, Nodes: new(Nodes), tokens: &toks}
	f, diags = p.run(src, string(src))
	return f, toks, diags
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
	quiet      int          // > 0 during lookahead: diagnostics are dropped
	noBrace    int          // > 0 in if/while/for/match heads: '{' ends the expression
	noArrow    int          // > 0 in a match guard: name => is the arm's arrow, not a lambda
	errLine    int32        // line of the last error reported
	prevTokEnd int          // end offset of the previous token
	tokens     *[]TokenSpan // when not nil, every token consumed (trivia.go)

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
// nodes are not garbage made per file (internal/vox's lean modules,
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
	p.record()
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
