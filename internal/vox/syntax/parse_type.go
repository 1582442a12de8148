package syntax

// This file parses types: type expressions and the type declarations
// (algebraic types and records).

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
