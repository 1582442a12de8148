package lsp

import (
	"bytes"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// definition answers textDocument/definition with the declaration of the
// name under the cursor in the same file (a Vox file imports nothing the
// server resolves), or null for library names.
func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, o, err := s.lookup(p.TextDocumentPositionParams)
	if err != nil || o == nil {
		return nil, err
	}
	pos, name := d.an.declaration(o)
	if !pos.IsValid() {
		return nil, nil
	}
	start := d.posOffset(pos)
	if name != "" { // a constant's position is its let: find the name after it
		if i := bytes.Index(d.text[start:min(start+256, len(d.text))], []byte(name)); i >= 0 {
			start += i
		}
	}
	return protocol.Location{URI: d.uri, Range: d.rangeAt(d.syntaxPos(start))}, nil
}

// declaration returns where the name's declaration is, and for a
// constant the name to look for from there.
func (a *analysis) declaration(o *occurrence) (syntax.Pos, string) {
	switch o.kind {
	case occIdent:
		b := o.binding
		if b == nil {
			return syntax.Pos{}, ""
		}
		switch b.Scope {
		case resolve.Local, resolve.Cell:
			return b.Pos, ""
		case resolve.Global:
			return a.res.Funcs[b.Index].NamePos, ""
		case resolve.Const:
			c := a.res.Consts[b.Index]
			return c.Pos, c.Name
		case resolve.Ctor:
			if t := a.typeDecl(a.res.Ctors[b.Index].Type); t != nil {
				for _, v := range t.Variants {
					if v.Name == b.Name {
						return v.Pos, ""
					}
				}
			}
		}
	case occType:
		if r := a.record(o.name); r != nil {
			return r.NamePos, ""
		}
		if t := a.typeDecl(o.name); t != nil {
			return t.NamePos, ""
		}
	case occFieldInit:
		return fieldPos(o.record, o.name), ""
	case occMember:
		return fieldPos(a.record(a.typeOf(o.dot.X, 0)), o.name), ""
	case occFnName, occVariant, occTypeDecl, occFieldDecl, occConstName:
		return o.pos, ""
	}
	return syntax.Pos{}, ""
}

func fieldPos(r *syntax.RecordDecl, name string) syntax.Pos {
	if r != nil {
		for _, f := range r.Fields {
			if f.Name == name {
				return f.NamePos
			}
		}
	}
	return syntax.Pos{}
}
