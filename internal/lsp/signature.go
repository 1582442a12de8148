package lsp

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// maxCallScan bounds how far before the cursor signature help looks for
// the call it is in.
const maxCallScan = 64 << 10

// signatureHelp answers textDocument/signatureHelp: the signatures of the
// call the cursor is in, found in the text (the call is usually not
// finished), with the argument under the cursor active.
func (s *Server) signatureHelp(_ *glsp.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	off := d.offset(p.Position)
	from := 0
	if decl := d.an.declAt(d.syntaxPos(off)); decl >= 0 {
		from = d.posOffset(d.an.decls[decl].Span())
	}
	from = max(from, off-maxCallScan)
	lparen, arg, ok := openCall(d.text[from:off])
	if !ok {
		return nil, nil
	}
	lparen += from
	end := lparen
	for end > 0 && (d.text[end-1] == ' ' || d.text[end-1] == '\t') {
		end--
	}
	start := end
	for start > 0 && isNameByte(d.text[start-1]) {
		start--
	}
	name := string(d.text[start:end])
	if name == "" {
		return nil, nil
	}
	recv := ""
	if start > 0 && d.text[start-1] == '.' {
		j := start - 1
		for j > 0 && isNameByte(d.text[j-1]) {
			j--
		}
		recv = string(d.text[j : start-1])
		if recv == "" {
			recv = "?" // a method of an expression: every table's
		}
	}
	sigs := d.signatures(recv, name, d.syntaxPos(start))
	if len(sigs) == 0 {
		return nil, nil
	}
	// The first form that has the argument is active; past the last
	// parameter of a variadic form, its last parameter is.
	for i, sig := range sigs {
		n := len(sig.Parameters)
		variadic := n > 0 && strings.HasPrefix(paramText(sig, n-1), "...")
		if n > arg || variadic {
			form, active := protocol.UInteger(i), protocol.UInteger(min(arg, n-1))
			return &protocol.SignatureHelp{Signatures: sigs, ActiveSignature: &form, ActiveParameter: &active}, nil
		}
	}
	zero, active := protocol.UInteger(0), protocol.UInteger(arg)
	return &protocol.SignatureHelp{Signatures: sigs, ActiveSignature: &zero, ActiveParameter: &active}, nil
}

// paramText is the text of parameter i in the signature's label.
func paramText(sig protocol.SignatureInformation, i int) string {
	span, ok := sig.Parameters[i].Label.([2]protocol.UInteger)
	if !ok {
		return ""
	}
	units := utf16.Encode([]rune(sig.Label))
	return string(utf16.Decode(units[span[0]:span[1]]))
}

// openCall finds the innermost '(' left open at the end of text, outside
// strings and comments, and how many arguments before the cursor's it
// has (commas at its level).
func openCall(text []byte) (lparen, arg int, ok bool) {
	type frame struct {
		open   byte
		at     int
		commas int
	}
	var stack []frame
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\'':
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case '/':
			if i+1 < len(text) && text[i+1] == '/' {
				for i < len(text) && text[i] != '\n' {
					i++
				}
			}
		case '(', '[', '{':
			if len(stack) < 1024 {
				stack = append(stack, frame{open: c, at: i})
			}
		case ')', ']', '}':
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].commas++
			}
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].open {
		case '(':
			return stack[i].at, stack[i].commas, true
		case '{':
			return 0, 0, false // a block: not inside an argument list
		}
	}
	return 0, 0, false
}

// signatures returns the forms of what recv.name or name calls at p.
func (d *document) signatures(recv, name string, p syntax.Pos) []protocol.SignatureInformation {
	if recv != "" {
		if recv != "?" {
			b, a := d.bindingBefore(recv, p)
			if b != nil && b.Scope == resolve.Namespace {
				ns := namespace(recv)
				if f := nsFunc(ns, name); f != nil {
					return libraryForms(ns.Name+"."+f.Name, f.Sig)
				}
				return nil
			}
			if b != nil {
				recv = a.bindingType(b)
			} else {
				recv = ""
			}
		} else {
			recv = ""
		}
		var out []protocol.SignatureInformation
		for _, m := range methodsNamed(name, methodTable(recv)) {
			out = append(out, libraryForms(receiverName(m.table)+"."+m.m.Name, m.m.Sig)...)
		}
		return out
	}
	b, a := d.bindingBefore(name, p)
	if b == nil {
		return nil
	}
	switch b.Scope {
	case resolve.Global:
		fn := a.res.Funcs[b.Index]
		var params []string
		for _, p := range fn.Params {
			text := p.Name
			if p.Type != nil {
				text += ": " + p.Type.String()
			}
			if p.Default != nil {
				text += " = " + p.DefaultText
			}
			params = append(params, text)
		}
		result := ""
		if fn.Result != nil {
			result = fn.Result.String()
		}
		return []protocol.SignatureInformation{form(fn.Name, params, result, "")}
	case resolve.Builtin:
		if spec := &libsig.Builtins()[b.Index]; !spec.Value {
			return libraryForms(spec.Name, spec.Sig)
		}
	case resolve.Ctor:
		c := a.res.Ctors[b.Index]
		if t := a.typeDecl(c.Type); t != nil {
			for _, v := range t.Variants {
				if v.Name == c.Name {
					var params []string
					for _, f := range v.Fields {
						params = append(params, f.Name+": "+f.Type.String())
					}
					return []protocol.SignatureInformation{form(c.Name, params, c.Type, "")}
				}
			}
		}
		return []protocol.SignatureInformation{form(c.Name, c.Fields, c.Type, "")}
	}
	return nil
}

// libraryForms are the forms of a library signature.
func libraryForms(name string, sig libsig.Signature) []protocol.SignatureInformation {
	var out []protocol.SignatureInformation
	for _, f := range sig.Forms() {
		var params []string
		for _, p := range f.Params {
			text := p.Name
			if p.Variadic {
				text = "..." + text
			}
			if p.Optional && p.Default == "" {
				text += "?"
			}
			text += ": " + p.Type
			if p.Default != "" {
				text += " = " + p.Default
			}
			params = append(params, text)
		}
		out = append(out, form(name, params, f.Result, f.Notes))
	}
	return out
}

// form is one signature: name(params) to result, with each parameter's
// place in the label as UTF-16 offsets, as the protocol counts.
func form(name string, params []string, result, notes string) protocol.SignatureInformation {
	var label strings.Builder
	label.WriteString(name)
	label.WriteByte('(')
	info := protocol.SignatureInformation{}
	for i, p := range params {
		if i > 0 {
			label.WriteString(", ")
		}
		start := utf16Count(label.String())
		label.WriteString(p)
		info.Parameters = append(info.Parameters, protocol.ParameterInformation{
			Label: [2]protocol.UInteger{protocol.UInteger(start), protocol.UInteger(utf16Count(label.String()))},
		})
	}
	label.WriteByte(')')
	if result != "" {
		label.WriteString(" to ")
		label.WriteString(result)
	}
	info.Label = label.String()
	if notes != "" {
		info.Documentation = notes
	}
	return info
}

func utf16Count(s string) int { return len(utf16.Encode([]rune(s))) }
