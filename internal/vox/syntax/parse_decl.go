package syntax

// This file parses the top level: declarations (tools, resources,
// prompts and their decorators, constants, imports), the tolerated
// declarations skipped whole, and the recovery between declarations.

import (
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
)

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
	p.opaque(off, end)
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
	longRunning := false
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
		case "@long_running":
			// A tool a client may call as a durable task
			// (docs/tasks.md §3): no arguments.
			longRunning = true
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
			case "@test", "@table":
				skipFn = d.Name
			case "@endpoint":
				// An endpoint is checked and callable like any function
				// (spec 22 §4.2): vox run FILE FN and other functions
				// call it, which the reference's interpreter cannot.
				p.warn(d.Pos, "vox/decorator/endpoint", "@endpoint is read as a plain function here: vox run and other functions may call it, which the reference's interpreter cannot")
				d.KindPos = d.End
				if p.tok == LPAREN {
					d.KindPos = p.pos
					d.Kind, d.KindPos = p.endpointKind(d.KindPos)
				}
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
			InputSchema: inputSchema, InputSchemaPos: inputSchemaPos, Completions: completions, LongRunning: longRunning})
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
	case skipFn == "@table" && p.tok == TYPE && len(decs) == 1:
		// @table type T { ... } is a record type (spec 22 §4.1): its
		// fields are checked, and a parameter of it bound from JSON wraps
		// its Option fields as any record's.
		p.typeDecl(f, head, p.sc.start)
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
		if keep != nil && d.Pos == keep.Pos || d.Name == "@uses" || d.Name == "@endpoint" && keep == nil {
			continue
		}
		if d.Name == "@long_running" {
			if keep == nil || keep.Name != "@tool" && keep.Name != "@mcp.tool" {
				p.errorAt(d.Pos, "vox/decl/long-running", "@long_running lets a client call a tool as a durable task: put it on a @tool function")
			}
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
// endpointKind reads WORD of the arguments (kind: WORD) at the current
// '(' without consuming them, and its position; "" and at when they are
// of another form.
func (p *parser) endpointKind(at Pos) (string, Pos) {
	src, open := p.sc.srcStr, p.sc.start
	end := skipBalanced(p.sc.src, open)
	if end < 0 {
		return "", at
	}
	i := open + 1
	skipSpace := func() {
		for i < end-1 && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
	}
	skipSpace()
	if !strings.HasPrefix(src[i:end-1], "kind") {
		return "", at
	}
	i += len("kind")
	skipSpace()
	if i >= end-1 || src[i] != ':' {
		return "", at
	}
	i++
	skipSpace()
	w := i
	for i < end-1 && isIdentByte(src[i]) {
		i++
	}
	word := src[w:i]
	skipSpace()
	if word == "" || i != end-1 {
		return "", at
	}
	// The word is ahead of the scanner, which has not counted its lines.
	if nl := strings.Count(src[open:w], "\n"); nl > 0 {
		return word, MakePos(int(at.Line)+nl, w-strings.LastIndexByte(src[:w], '\n'))
	}
	return word, MakePos(int(at.Line), int(at.Col)+w-open)
}

func (p *parser) skipParens() {
	j := skipBalanced(p.sc.src, p.sc.start)
	if j < 0 {
		p.fail(p.pos, "vox/parse/unclosed", "unclosed '(' in decorator arguments")
	}
	p.sc.pop('(')
	p.opaque(p.sc.start, j)
	p.sc.advanceTo(j)
	p.next()
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
	pathEnd := end
	if i := strings.Index(p.sc.srcStr[p.sc.end:end], "//"); i >= 0 {
		// A comment after the path is a comment, not part of the opaque
		// unit, so that vox fmt lays it out as any trailing comment.
		pathEnd = p.sc.end + i
		cend := end
		for cend > pathEnd && p.sc.src[cend-1] == '\r' {
			cend--
		}
		p.sc.recordComment(pathEnd, cend)
	}
	d.Path = strings.TrimSpace(p.sc.srcStr[p.sc.end:pathEnd])
	p.warn(d.Pos, "vox/import/unresolved", "import %s is recorded but not resolved: imported names are undefined", d.Path)
	f.Decls = append(f.Decls, d)
	for pathEnd > p.sc.end && (p.sc.src[pathEnd-1] == ' ' || p.sc.src[pathEnd-1] == '\t' || p.sc.src[pathEnd-1] == '\r') {
		pathEnd--
	}
	pathOff := p.sc.end
	for pathOff < pathEnd && (p.sc.src[pathOff] == ' ' || p.sc.src[pathOff] == '\t') {
		pathOff++
	}
	p.opaque(pathOff, pathEnd)
	p.sc.seek(end)
	p.next()
}
