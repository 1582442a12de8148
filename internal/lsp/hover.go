package lsp

import (
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// lookup finds the open document and the name under the cursor.
func (s *Server) lookup(p protocol.TextDocumentPositionParams) (*document, *occurrence, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	if d.an.res == nil {
		return d, nil, nil
	}
	return d, d.an.at(d.syntaxPos(d.offset(p.Position))), nil
}

func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, o, err := s.lookup(p.TextDocumentPositionParams)
	if err != nil || o == nil {
		return nil, err
	}
	text := d.an.hoverText(o)
	if text == "" {
		return nil, nil
	}
	r := d.rangeAt(o.pos)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: text}, Range: &r}, nil
}

// code is a Vox code block of markdown.
func code(lines ...string) string {
	return "```vox\n" + strings.Join(lines, "\n") + "\n```"
}

// withNotes appends a paragraph when it is not empty.
func withNotes(s, notes string) string {
	if notes == "" {
		return s
	}
	return s + "\n\n" + notes
}

// hoverText is the markdown shown for a name.
func (a *analysis) hoverText(o *occurrence) string {
	switch o.kind {
	case occIdent, occConstName:
		return a.hoverBinding(o)
	case occFnName:
		return fnHover(o.fn)
	case occMember:
		return a.hoverMember(o)
	case occDecorator:
		for _, d := range decorators {
			if d.name == o.name {
				return withNotes(code(d.detail), d.doc)
			}
		}
		return withNotes(code(o.name), "An unknown decorator: it is ignored with the warning vox/decorator/ignored.")
	case occType, occTypeDecl:
		return a.typeHover(o.name)
	case occFieldInit, occFieldDecl:
		if o.record != nil {
			for _, f := range o.record.Fields {
				if f.Name == o.name {
					return code(fmt.Sprintf("%s.%s: %s", o.record.Name, f.Name, f.Type))
				}
			}
		}
	case occVariant:
		return variantHover(o.typ, o.name)
	}
	return ""
}

func (a *analysis) hoverBinding(o *occurrence) string {
	b := o.binding
	if b == nil {
		return ""
	}
	switch b.Scope {
	case resolve.Local, resolve.Cell:
		l := a.locals[b]
		if l == nil {
			return code(b.Name)
		}
		head := "let "
		switch l.kind {
		case "variable":
			if l.mut {
				head = "let mut "
			}
		default:
			head = "(" + l.kind + ") "
		}
		if t := a.localType(l, 0); t != "" {
			return code(head + b.Name + ": " + t)
		}
		return code(head + b.Name)
	case resolve.Global:
		return fnHover(a.res.Funcs[b.Index])
	case resolve.Const:
		c := a.res.Consts[b.Index]
		t := ""
		if ct := a.checkedType(o.pos); ct != "" {
			t = ": " + ct
		} else if c.Type != nil {
			t = ": " + c.Type.String()
		} else if g := a.typeOf(c.Value, 0); g != "" {
			t = ": " + g
		}
		return withNotes(code("let "+c.Name+t), "A module constant.")
	case resolve.Ctor:
		c := a.res.Ctors[b.Index]
		if b.Index >= resolve.NumCoreCtors {
			return variantHover(a.typeDecl(c.Type), c.Name)
		}
		return withNotes(code(ctorSignature(c)), fmt.Sprintf("A constructor of %s.", c.Type))
	case resolve.Builtin:
		spec := &libsig.Builtins()[b.Index]
		return withNotes(code(spec.String()), spec.Sig.Notes)
	case resolve.Namespace:
		ns := &libsig.Namespaces()[b.Index]
		names := make([]string, len(ns.Funcs))
		for i := range ns.Funcs {
			f := &ns.Funcs[i]
			names[i] = f.Name
		}
		text := withNotes(code("namespace "+ns.Name), ns.Notes)
		if len(names) > 0 {
			text = withNotes(text, "Functions: "+strings.Join(names, ", ")+".")
		}
		return text
	case resolve.Undefined:
		return withNotes(code(b.Name), "Not defined in this file: calling it fails at run time, unless the platform provides it.")
	}
	return ""
}

func (a *analysis) hoverMember(o *occurrence) string {
	if ns := a.namespaceOf(o.dot.X); ns != nil {
		if f := nsFunc(ns, o.name); f != nil {
			return withNotes(code(f.Sig.Format(ns.Name+"."+f.Name)), f.Sig.Notes)
		}
		return ""
	}
	if info, ok := a.checkedInfo(o.pos); ok && info.Kind == "method" && info.Signature != "" {
		// The checker chose the method by the receiver's type.
		recv, _, _ := strings.Cut(info.Signature, "."+o.name+"(")
		notes := ""
		if ms := methodsNamed(o.name, methodTable(recv)); len(ms) > 0 {
			notes = ms[0].m.Sig.Notes
		}
		return withNotes(code(info.Signature), notes)
	}
	recv := a.typeOf(o.dot.X, 0)
	if rec := a.record(recv); rec != nil {
		for _, f := range rec.Fields {
			if f.Name == o.name {
				return code(fmt.Sprintf("%s.%s: %s", rec.Name, f.Name, f.Type))
			}
		}
	}
	ms := methodsNamed(o.name, methodTable(recv))
	if len(ms) == 0 {
		return ""
	}
	var blocks []string
	for _, m := range ms {
		blocks = append(blocks, withNotes(code(m.m.Sig.Format(receiverName(m.table)+"."+m.m.Name)), m.m.Sig.Notes))
	}
	text := strings.Join(blocks, "\n\n---\n\n")
	if recv != "" {
		text = withNotes(text, "The receiver is a `"+recv+"`.")
	}
	return text
}

// fnHover shows a declared function: its kind, signature and
// description.
func fnHover(fn *syntax.FnDecl) string {
	var lines []string
	switch fn.Kind {
	case syntax.ToolFn:
		lines = append(lines, fmt.Sprintf("@tool %q", fn.Description))
	case syntax.ResourceFn:
		lines = append(lines, fmt.Sprintf("@resource %q %q", fn.URI, fn.Description))
	case syntax.PromptFn:
		lines = append(lines, fmt.Sprintf("@mcp.prompt(%q)", fn.Description))
	}
	sig := "fn " + schema.Signature(fn.Name, fn.Params, fn.Result)
	if len(fn.Effects) > 0 {
		names := make([]string, len(fn.Effects))
		for i, e := range fn.Effects {
			names[i] = e.Name
			if e.Arg != "" {
				names[i] += "(" + e.Arg + ")"
			}
		}
		sig += " uses " + strings.Join(names, ", ")
	}
	lines = append(lines, sig)
	text := code(lines...)
	if fn.Unavailable != nil {
		text = withNotes(text, fmt.Sprintf("Unavailable: %s (line %d).", fn.Unavailable.Reason, fn.Unavailable.Pos.Line))
	}
	return text
}

func ctorSignature(c *resolve.Constructor) string {
	if len(c.Fields) == 0 {
		return c.Name
	}
	return c.Name + "(" + strings.Join(c.Fields, ", ") + ")"
}

func variantHover(t *syntax.TypeDecl, name string) string {
	if t == nil {
		return ""
	}
	for _, v := range t.Variants {
		if v.Name == name {
			return withNotes(code(variantSignature(v)), fmt.Sprintf("A constructor of %s.", t.Name))
		}
	}
	return ""
}

// variantSignature is a variant as declared: Ready(data: str), or Loading.
func variantSignature(v *syntax.Variant) string {
	if len(v.Fields) == 0 {
		return v.Name
	}
	return schema.Signature(v.Name, v.Fields, nil)
}

// typeDecl finds an algebraic type declared in the file.
func (a *analysis) typeDecl(name string) *syntax.TypeDecl {
	for _, d := range a.decls {
		if t, ok := d.(*syntax.TypeDecl); ok && t.Name == name {
			return t
		}
	}
	return nil
}

// record finds a record type declared in the file.
func (a *analysis) record(name string) *syntax.RecordDecl {
	if a.res == nil || name == "" {
		return nil
	}
	return a.res.Records[name]
}

// builtinTypes are the type names the language predeclares.
var builtinTypes = map[string]string{
	"int": "A 64-bit integer.", "float": "A 64-bit floating-point number.", "dec": "An exact decimal (0.10dec).",
	"str": "A string of Unicode characters.", "bool": "true or false.", "Unit": "The type of no value.",
	"list": "list[T]: a list of values of type T.", "map": "map[str, V]: a map from strings to values of type V.",
	"Option": "Option[T]: Some(value) or None.", "Result": "Result[T, E]: Ok(value) or Err(error).",
	"any": "Any value (no check).",
}

func (a *analysis) typeHover(name string) string {
	if r := a.record(name); r != nil {
		fields := make([]string, len(r.Fields))
		for i, f := range r.Fields {
			fields[i] = "    " + f.Name + ": " + f.Type.String()
		}
		return code(append(append([]string{"type " + r.Name + " {"}, fields...), "}")...)
	}
	if t := a.typeDecl(name); t != nil {
		lines := []string{"type " + t.Name + " ="}
		for _, v := range t.Variants {
			lines = append(lines, "    | "+variantSignature(v))
		}
		return code(lines...)
	}
	if doc, ok := builtinTypes[name]; ok {
		return withNotes(code(name), doc)
	}
	return ""
}
