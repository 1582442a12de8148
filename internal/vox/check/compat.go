package check

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The compatibility warnings (Options.Compat, vox check --compat): what
// vox-mcp accepts and the reference compiler rejects or reads otherwise
// (docs/vox-language.md, The checker, Compatibility). They are off by
// default, so that valid use of an extension stays quiet.

// compatFn adds the vox/compat/... warnings of one function.
func (c *checker) compatFn(d *syntax.FnDecl) {
	for _, dec := range d.Decorators {
		switch dec.Name {
		case "@tool", "@resource":
			repl := strings.TrimPrefix(dec.Name, "@")
			c.add(diagWarn(dec.Pos, "vox/compat/decorator-retired",
				fmt.Sprintf("the reference retired %s: it writes %s \"description\" fn ...", dec.Name, repl),
				[]string{"write " + repl + " instead of " + dec.Name}, fixAt(dec.Pos, dec.End, repl)))
		}
	}
	for _, p := range d.Params {
		if isReserved(p.Name) {
			c.warnf(p.NamePos, "vox/compat/reserved-word", []string{"rename it"}, "%s is a reserved word of the reference: it rejects it as a name", p.Name)
		}
	}
	if d.Body != nil {
		c.compatWalk(d.Body)
	}
}

// compatDecls adds the warnings of declarations other than functions.
func (c *checker) compatDecls() {
	for _, d := range c.mod.File.Decls {
		if k, ok := d.(*syntax.ConstDecl); ok {
			c.warnf(k.Pos, "vox/compat/module-const", []string{"make it a function: fn " + strings.ToLower(k.Name) + "() { ... }"},
				"the reference has no module constants: it rejects let %s at the top level", k.Name)
		}
	}
}

// reservedWords are words the reference's lexer reserves that vox-mcp
// takes as names.
var reservedWords = []string{"type", "pub", "async", "await", "actor", "spawn", "table", "query", "mutation", "server", "component",
	"view", "state", "derived", "effect", "workflow", "activity", "agent", "with", "on", "as", "use", "extern", "const", "static", "struct", "enum", "impl", "trait"}

func isReserved(name string) bool { return slices.Contains(reservedWords, name) }

// markupPrimitives are the names that the reference parses as a markup
// element when every argument is named (docs/vox-language.md, The checker,
// Compatibility: vox/compat/markup-call).
var markupPrimitives = []string{"stack", "column", "row", "wrap", "text", "heading", "link", "image", "button", "panel", "card", "list",
	"list_item", "route_outlet", "overlay", "toast", "drawer", "modal", "input", "label", "textarea", "select", "option", "form", "table",
	"tr", "td", "span", "br", "i", "b", "code", "pre", "main", "section", "header", "footer", "nav", "details", "summary", "title",
	"script", "style", "object", "param", "embed", "g", "path", "circle", "rect", "line", "use", "symbol", "marker", "mask", "pattern",
	"stop", "filter"}

func (c *checker) compatWalk(body *syntax.Block) {
	walkStmts(body, 0, func(n syntax.Node, depth int) bool {
		switch n := n.(type) {
		case *syntax.LetStmt:
			if _, isFor := n.Value.(*syntax.ForStmt); isFor {
				c.warnf(n.Pos, "vox/compat/for-value", []string{"a for loop's value is Unit here; the reference gives the list of its body's values"},
					"the reference reads the value of a for loop otherwise")
			}
			if bp, ok := n.Pattern.(*syntax.BindPat); ok && isReserved(bp.Ident.Name) {
				c.warnf(bp.Ident.NamePos, "vox/compat/reserved-word", []string{"rename it"}, "%s is a reserved word of the reference: it rejects it as a name", bp.Ident.Name)
			}
		case *syntax.ForStmt:
			if _, ok := n.Pattern.(*syntax.TuplePat); ok {
				c.warnf(n.Pattern.Span(), "vox/compat/for-pattern", []string{"bind one name and take it apart: for e in m { let (k, v) = e ... }"},
					"the reference has no patterns in a for head")
			}
		case *syntax.TupleExpr:
			if len(n.Elems) == 0 {
				c.warnf(n.Pos, "vox/compat/unit-literal", []string{"write Unit"}, "the reference has no () value")
			}
		case *syntax.RecordLit:
			c.warnf(n.Type.NamePos, "vox/compat/record-literal", []string{"write the object literal {field: value, ...}"},
				"the reference has no record literal %s { ... }", n.Type.Name)
		case *syntax.BinaryExpr:
			if n.Op == syntax.PIPE {
				if call, ok := n.Y.(*syntax.CallExpr); ok && len(call.Args) > 0 {
					c.warnf(n.OpPos, "vox/compat/pipe-args", []string{"call it directly: f(a, b)"}, "the reference's a |> f(b) does not pass a as the first argument")
				}
			}
		case *syntax.MatchExpr:
			for _, arm := range n.Arms {
				if arm.Guard != nil {
					c.warnf(arm.Guard.Span(), "vox/compat/match-guard", []string{"move the condition into the arm's body: if ... { ... } else { ... }"},
						"the reference has no match guards")
				}
				if b, ok := arm.Body.(*syntax.Block); ok && len(b.Stmts) == 1 {
					if a, ok := b.Stmts[0].(*syntax.AssignStmt); ok {
						c.warnf(a.Span(), "vox/compat/assign-arm", []string{"wrap it in a block: => { x = 1 }"}, "the reference rejects an assignment as a match arm's body")
					}
				}
				c.compatPattern(arm.Pattern, 0)
			}
		case *syntax.CallExpr:
			c.compatCall(n)
		}
		return true
	})
}

func (c *checker) compatPattern(p syntax.Pattern, depth int) {
	if depth > maxDepth {
		return
	}
	switch p := p.(type) {
	case *syntax.LiteralPat:
		if p.Lit.Tok == syntax.TRUE || p.Lit.Tok == syntax.FALSE || p.Lit.Tok == syntax.INT && p.Lit.Int < 0 {
			c.warnf(p.Lit.Pos, "vox/compat/literal-pattern", []string{"compare in the body instead: x if x == ... (or an if)"},
				"the reference has no true, false or negative number patterns")
		}
	case *syntax.TuplePat:
		for _, e := range p.Elems {
			c.compatPattern(e, depth+1)
		}
	case *syntax.CtorPat:
		for _, e := range p.Args {
			c.compatPattern(e, depth+1)
		}
	}
}

// compatCall warns of calls the reference reads otherwise: as markup, or
// with its defaults and named arguments bound by position.
func (c *checker) compatCall(e *syntax.CallExpr) {
	id, ok := e.Fn.(*syntax.Ident)
	if !ok {
		return
	}
	allNamed := true
	for _, a := range e.Args {
		if a.Name == "" {
			allNamed = false
		}
	}
	if allNamed && (id.Name != "" && unicode.IsUpper(rune(id.Name[0])) || slices.Contains(markupPrimitives, id.Name)) {
		c.warnf(id.NamePos, "vox/compat/markup-call", []string{"rename the function, or pass a positional argument"},
			"the reference parses %s(...) with only named arguments as a markup element, not a call", id.Name)
	}
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil || b.Scope != resolve.Global || b.Index >= len(c.funcs) {
		return
	}
	d := c.funcs[b.Index].decl
	if d.Unavailable != nil {
		return
	}
	positional := 0
	lastNamed := -1
	for _, a := range e.Args {
		if a.Name == "" {
			positional++
			continue
		}
		j := slices.IndexFunc(d.Params, func(p *syntax.Param) bool { return p.Name == a.Name })
		if j >= 0 && j < lastNamed {
			c.warnf(a.NamePos, "vox/compat/named-args", []string{"give the arguments in the order of the parameters"},
				"the reference binds arguments by position: %s comes before an argument declared after it", a.Name)
		}
		lastNamed = max(lastNamed, j)
	}
	if len(e.Args) < len(d.Params) {
		c.warnf(callPos(e), "vox/compat/defaults-arity", []string{fmt.Sprintf("pass every argument: %s", fnSignature(d))},
			"the reference counts defaulted parameters as required: %s takes %d argument(s)", d.Name, len(d.Params))
	}
}

// referenceRejects reports what the reference's checker rejects and this
// one tolerates (spec 22 §1.4): an error under Strict, a warning under
// Compat, nothing by default, so that a repository's tools load.
func (c *checker) referenceRejects(p syntax.Pos, code string, help []string, format string, args ...any) {
	switch {
	case c.opts.Strict:
		c.errorf(p, code, help, format, args...)
	case c.opts.Compat:
		c.warnf(p, code, help, format, args...)
	}
}

// noReferenceMethods reports a call of method on a receiver type for
// which the reference's checker has no such method: it has no table for
// numbers, bools, tuples and functions (n.to_str(), x.abs()), and an
// object's is get and keys.
func noReferenceMethods(t *Type, method string) bool {
	switch t.Kind {
	case KInt, KFloat, KDec, KBool, KTuple, KFunc, KUnit:
		return true
	case KMap, KRecord:
		// An object has get and keys only.
		return method != "get" && method != "keys"
	}
	return false
}

func receiverKind(t *Type) string {
	if !t.known() {
		return "a value of unknown type (an unannotated parameter, json.parse's value, any)"
	}
	return t.String()
}
