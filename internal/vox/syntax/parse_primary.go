package syntax

// This file parses the operands of expressions: literals, names, arrow
// functions and lambdas, records and objects, if and match, and the
// patterns of match arms and let.

import (
	"bytes"
	"fmt"
	"strings"
)

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
		p.warnTemplateExpressions()
		p.next()
		return x
	case TRUE, FALSE:
		x := p.literals.Make(Literal{Pos: p.pos, Tok: p.tok})
		p.next()
		return x
	case TEMPLATE:
		p.warnTemplateExpressions()
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
	if hint := p.continuationHint(); hint != "" {
		p.syntaxError("expected an expression, found %s; %s", p.describe(), hint)
	}
	p.syntaxError("expected an expression, found %s", p.describe())
	return nil
}

// warnTemplateExpressions warns of each "{r.name}" or "{xs[0]}" in the
// double-quoted string at hand, which stays literal text (scan.go,
// templateExpression). Only a string used as a value is looked at:
// descriptions, URIs and decorator arguments are never templates, and
// their braces are literal on purpose.
func (p *parser) warnTemplateExpressions() {
	src := p.sc.src
	if src[p.sc.start] != '"' {
		return
	}
	for i := p.sc.start + 1; i < p.sc.end-1; i++ {
		switch src[i] {
		case '\\':
			i++
		case '{':
			if expr := templateExpression(src, i); expr != "" {
				p.errh(p.sc.posAt(i), "vox/lexer/template-expression", fmt.Sprintf(
					"{%s} is literal text: a template interpolates a plain name only; bind the value first (let v = %s) and write {v}, or concatenate (\"...\" + str(%s))",
					expr, expr, expr), true)
			}
		}
	}
}

// continuationHint explains the commonest cause of a missing expression:
// a binary expression written across lines. A newline ends a statement
// (docs/vox-language.md, Lexical rules), so "a\n    + b" is the statement a
// then one that starts with +, and "a +\n    b" lacks its right operand.
func (p *parser) continuationHint() string {
	const hint = "hint: an expression does not continue on the next line outside brackets — keep it on one line, or wrap it in ( ), inside which lines may break"
	src := p.sc.src
	switch {
	case precedence(p.tok) > 0 && p.tok != MINUS:
		// The operator is the first token of its line.
		i := p.sc.start - 1
		for i >= 0 && (src[i] == ' ' || src[i] == '\t') {
			i--
		}
		if i < 0 || src[i] == '\n' {
			return hint
		}
	case p.tok == NEWLINE:
		// The line ends with an operator that has no right operand.
		i := p.prevTokEnd - 1
		for i >= 0 && (src[i] == ' ' || src[i] == '\t') {
			i--
		}
		if i >= 0 && strings.ContainsRune("+-*/%|&=<>", rune(src[i])) || endsWithWord(src[:i+1], "and") || endsWithWord(src[:i+1], "or") {
			return hint
		}
	}
	return ""
}

// endsWithWord reports whether b ends with the word w after a non-letter.
func endsWithWord(b []byte, w string) bool {
	if !bytes.HasSuffix(b, []byte(w)) {
		return false
	}
	i := len(b) - len(w) - 1
	return i < 0 || !(b[i] == '_' || 'a' <= b[i] && b[i] <= 'z' || 'A' <= b[i] && b[i] <= 'Z' || '0' <= b[i] && b[i] <= '9')
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
