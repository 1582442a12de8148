package lsp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// MaxWorkspaceSymbols bounds the answer to workspace/symbol: the open
// documents may hold 2 MiB of text (limits.go), a few hundred thousand
// declarations, and an empty query matches every one of them. A picker
// shows the first screenful; the rest is narrowed by typing.
const MaxWorkspaceSymbols = 1000

// tokens are the document's tokens as the parser consumed them, in
// order, with the tree of that parse: the tree does not hold where a
// node ends, and folding ranges, the ranges of symbols and the semantic
// tokens need it. It parses the text once more (linear in it) rather
// than keeping the tokens of every open document (limits.go counts
// what a document keeps).
func (d *document) tokens() ([]syntax.TokenSpan, *syntax.File) {
	f, toks, _ := syntax.ParseTokens(d.path, d.text, false)
	return toks, f
}

// endBefore is the end offset of the last token that starts before
// offset off, skipping line breaks; from when there is none.
func endBefore(toks []syntax.TokenSpan, off, from int) int {
	i := sort.Search(len(toks), func(i int) bool { return toks[i].Off >= off })
	for i--; i >= 0; i-- {
		if t := toks[i]; t.Tok != syntax.NEWLINE && t.Tok != syntax.EOF {
			return max(t.End, from)
		}
	}
	return from
}

// documentSymbol answers textDocument/documentSymbol: the file's
// functions, constants and types in order, a record's fields and an
// algebraic type's constructors as its children. A declaration's range
// runs from its first token (a function's first decorator) to its last.
func (s *Server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	out := []protocol.DocumentSymbol{}
	if d.an.res == nil {
		return out, nil
	}
	toks, _ := d.tokens()
	decls := d.an.decls
	for i, decl := range decls {
		start := d.posOffset(decl.Span())
		next := len(d.text)
		if i+1 < len(decls) {
			next = d.posOffset(decls[i+1].Span())
		}
		whole := protocol.Range{Start: d.position(start), End: d.position(endBefore(toks, next, start))}
		if sym, ok := d.an.symbol(d, decl, whole); ok {
			out = append(out, sym)
		}
	}
	return out, nil
}

// symbol is the document symbol of a declaration; ok is false for
// imports and the declarations the parser tolerates without reading.
func (a *analysis) symbol(d *document, decl syntax.Decl, whole protocol.Range) (protocol.DocumentSymbol, bool) {
	sym := protocol.DocumentSymbol{Range: whole}
	var detail string
	switch x := decl.(type) {
	case *syntax.FnDecl:
		if a.res.File.Script == x {
			return sym, false
		}
		sym.Name, sym.Kind, sym.SelectionRange = x.Name, protocol.SymbolKindFunction, d.nameRange(x.NamePos, x.Name)
		detail = fnDetail(x)
	case *syntax.ConstDecl:
		sym.Name, sym.Kind = x.Name, protocol.SymbolKindConstant
		sym.SelectionRange = d.nameRange(a.constPos(x.Name), x.Name)
		if t := a.constType(x); t != "" {
			detail = t
		}
	case *syntax.RecordDecl:
		sym.Name, sym.Kind, sym.SelectionRange = x.Name, protocol.SymbolKindStruct, d.nameRange(x.NamePos, x.Name)
		detail = "record"
		for _, f := range x.Fields {
			r := d.nameRange(f.NamePos, f.Name)
			ft := f.Type.String()
			sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: f.Name, Kind: protocol.SymbolKindField, Detail: &ft, Range: r, SelectionRange: r})
		}
	case *syntax.TypeDecl:
		sym.Name, sym.Kind, sym.SelectionRange = x.Name, protocol.SymbolKindEnum, d.nameRange(x.NamePos, x.Name)
		detail = "type"
		for _, v := range x.Variants {
			r := d.nameRange(v.Pos, v.Name)
			vd := variantSignature(v)
			sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: v.Name, Kind: protocol.SymbolKindEnumMember, Detail: &vd, Range: r, SelectionRange: r})
		}
	default:
		return sym, false
	}
	if sym.Name == "" {
		return sym, false // a declaration whose name did not parse
	}
	if detail != "" {
		sym.Detail = &detail
	}
	// The protocol wants the selection inside the range.
	if before(sym.SelectionRange.Start, sym.Range.Start) || before(sym.Range.End, sym.SelectionRange.End) {
		sym.Range = sym.SelectionRange
	}
	return sym, true
}

func before(x, y protocol.Position) bool {
	return x.Line < y.Line || x.Line == y.Line && x.Character < y.Character
}

// fnDetail is a function's signature, with what it declares to MCP.
func fnDetail(fn *syntax.FnDecl) string {
	sig := "fn " + schema.Signature(fn.Name, fn.Params, fn.Result)
	switch fn.Kind {
	case syntax.ToolFn:
		return "@tool " + sig
	case syntax.ResourceFn:
		return "@resource " + sig
	case syntax.PromptFn:
		return "@mcp.prompt " + sig
	}
	return sig
}

// constType is a constant's type: the checker's, else as declared, else
// evident from its value; "" when none is known.
func (a *analysis) constType(c *syntax.ConstDecl) string {
	if p := a.constPos(c.Name); p.IsValid() {
		if t := a.checkedType(p); t != "" {
			return t
		}
	}
	if c.Type != nil {
		return c.Type.String()
	}
	return a.typeOf(c.Value, 0)
}

// constPos is where a constant's name is declared, or the zero Pos.
func (a *analysis) constPos(name string) syntax.Pos { return a.constNames[name] }

// nameRange is the range of name written at p.
func (d *document) nameRange(p syntax.Pos, name string) protocol.Range {
	start := d.posOffset(p)
	end := min(start+len(name), len(d.text))
	return protocol.Range{Start: d.position(start), End: d.position(end)}
}

// workspaceSymbol answers workspace/symbol over the open documents (the
// server reads no file the editor has not opened): every function,
// constant, type, record field and constructor whose name contains the
// query, ignoring case, at most MaxWorkspaceSymbols of them, the
// documents in order of URI.
func (s *Server) workspaceSymbol(_ *glsp.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	query := strings.ToLower(p.Query)
	out := []protocol.SymbolInformation{}
	uris := make([]string, 0, len(s.docs))
	for u := range s.docs {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	add := func(d *document, name string, kind protocol.SymbolKind, at syntax.Pos, container string) bool {
		if len(out) >= MaxWorkspaceSymbols {
			return false
		}
		if name == "" || !at.IsValid() || !strings.Contains(strings.ToLower(name), query) {
			return true
		}
		si := protocol.SymbolInformation{Name: name, Kind: kind, Location: protocol.Location{URI: d.uri, Range: d.nameRange(at, name)}}
		if container != "" {
			si.ContainerName = &container
		}
		out = append(out, si)
		return true
	}
	for _, u := range uris {
		d := s.docs[u]
		if d.an.res == nil {
			continue
		}
		for _, decl := range d.an.decls {
			more := true
			switch x := decl.(type) {
			case *syntax.FnDecl:
				if d.an.res.File.Script != x {
					more = add(d, x.Name, protocol.SymbolKindFunction, x.NamePos, "")
				}
			case *syntax.ConstDecl:
				more = add(d, x.Name, protocol.SymbolKindConstant, d.an.constPos(x.Name), "")
			case *syntax.RecordDecl:
				more = add(d, x.Name, protocol.SymbolKindStruct, x.NamePos, "")
				for _, f := range x.Fields {
					more = more && add(d, f.Name, protocol.SymbolKindField, f.NamePos, x.Name)
				}
			case *syntax.TypeDecl:
				more = add(d, x.Name, protocol.SymbolKindEnum, x.NamePos, "")
				for _, v := range x.Variants {
					more = more && add(d, v.Name, protocol.SymbolKindEnumMember, v.Pos, x.Name)
				}
			}
			if !more {
				return out, nil
			}
		}
	}
	return out, nil
}
