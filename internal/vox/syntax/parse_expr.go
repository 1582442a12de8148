package syntax

// This file parses expressions down to their operands: the restrictions
// of heads and guards, binary and unary operators, with options, and the
// postfix chain (calls, indexes, fields, '?') with its arguments.

import "strings"

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
		if op == IS && p.tok == NOT {
			if w := p.sc.peekWord(); w == "null" || w == "None" {
				// x is not null: the reference parses x is (not null),
				// which is x is null at its run time (spec 22 §1.5); read
				// it as meant, x isnt null, and say so.
				p.warn(pos, "vox/parse/is-not", "`is not %s` is read as `isnt %s` here, but the reference parses it as `is (not %s)`, the opposite: write `isnt %s`", w, w, w, w)
				p.next()
				op = ISNT
			}
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
			call := p.calls.Make(CallExpr{Fn: x, Lparen: p.pos, Args: p.args()})
			x = call
			if v := p.viewElement(call); v != nil {
				x = v
			}
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

// viewElement reads a call followed by '{' as a view element when it has
// the shape of one (spec 22 §4.3): a bare name that is capitalised, a UI
// primitive or an HTML or SVG tag, every argument named, and children in
// braces on the same line. Anything else is the call (and a '{' after it
// belongs to the construct around it).
func (p *parser) viewElement(call *CallExpr) Expr {
	id, ok := call.Fn.(*Ident)
	if !ok || p.tok != LBRACE || p.noBrace > 0 || !IsViewName(id.Name) {
		return nil
	}
	for _, a := range call.Args {
		if a.Name == "" {
			return nil
		}
		a.Name = strings.TrimPrefix(a.Name, "attr_")
	}
	v := &ViewExpr{NamePos: id.NamePos, Name: id.Name, Attrs: call.Args}
	p.enter()
	defer p.leave()
	p.next() // {
	saved := p.unrestrict()
	for {
		for p.tok == NEWLINE || p.tok == COMMA {
			p.next()
		}
		if p.tok == RBRACE || p.tok == EOF {
			break
		}
		v.Children = append(v.Children, p.expr())
		if p.tok != NEWLINE && p.tok != COMMA && p.tok != RBRACE {
			p.syntaxError("expected ',' or a newline between the children of view element %s, found %s", id.Name, p.describe())
			break
		}
	}
	p.restrict(saved)
	p.expect(RBRACE)
	return v
}

// viewNames are the lower-case names of view elements: the UI primitives
// and the allow-listed HTML and SVG tags of the reference (spec 22 §4.3).
var viewNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`stack column row wrap text heading link image button panel card list list_item
		route_outlet overlay toast drawer modal input label textarea select option form fieldset legend table thead
		tbody tfoot tr th td caption audio video source track canvas svg img span br hr i b em strong small code pre
		kbd abbr cite blockquote q head meta title script style noscript main section article aside header footer nav
		details summary dialog figure figcaption iframe embed object param g defs path circle rect ellipse line
		polyline polygon tspan use symbol marker mask pattern stop filter radial_gradient linear_gradient clip_path
		foreign_object fe_gaussian_blur`) {
		viewNames[n] = true
	}
}

// IsSelfClosingView reports whether call has the shape of a view element
// without children (spec 22 §4.3: Spinner(), Card(title = t)): a bare
// view name and every argument named. The parser keeps it a call, since
// only the resolver knows whether the name is a function of the file; a
// call of an undefined name of this shape is a view element (the checker
// warns, evaluating it fails), not an undefined name.
func IsSelfClosingView(call *CallExpr) bool {
	id, ok := call.Fn.(*Ident)
	if !ok || !IsViewName(id.Name) {
		return false
	}
	for _, a := range call.Args {
		if a.Name == "" {
			return false
		}
	}
	return true
}

// IsViewName reports whether a call of name with only named arguments is
// a view element in the reference: a capitalised name, a UI primitive or
// an HTML or SVG tag.
func IsViewName(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z' || viewNames[name]
}
