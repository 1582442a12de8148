package syntax

// This file parses blocks and statements, with the recovery after an
// error inside a statement.

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
