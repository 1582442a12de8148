package syntax

// This file parses functions: the modifiers, the speculative parse of a
// plain function, and the header before the body (name, type parameters,
// parameters, effects, result type).

import (
	"bytes"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
)

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
		p.opaque(p.sc.start, end)
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
