package lsp

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// The semantic token legend (advertised in initialize): an editor
// without Vox's grammar colours the text by what each name is.
// enumMember is a constructor (Ready, None).
var semanticTokenTypes = []string{
	"namespace", "type", "function", "parameter", "variable", "property",
	"keyword", "string", "number", "comment", "decorator", "operator", "enumMember",
}

const (
	stNamespace = iota
	stType
	stFunction
	stParameter
	stVariable
	stProperty
	stKeyword
	stString
	stNumber
	stComment
	stDecorator
	stOperator
	stEnumMember
)

var semanticTokenModifiers = []string{"declaration", "readonly", "defaultLibrary"}

const (
	smDeclaration = 1 << iota
	smReadonly
	smDefaultLibrary
)

// semanticTokens answers textDocument/semanticTokens/full. The tokens
// come from the parser (the keywords, literals, operators, decorators;
// the text the parser skips unread gets none), the comments from the
// tree, and what a name is from the analysis's occurrences. The three
// lists are in order of offset and are merged in one pass, and each
// position is counted from the one before: linear in the text, whatever
// its lines look like.
func (s *Server) semanticTokens(_ *glsp.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	toks, f := d.tokens()
	var comments []*syntax.Comment
	if f != nil {
		for _, g := range f.Comments {
			comments = append(comments, g.List...)
		}
	}
	e := tokenEncoder{d: d}
	occs := d.an.occs
	j, c := 0, 0
	for _, t := range toks {
		for c < len(comments) && comments[c].Off < t.Off {
			e.emit(comments[c].Off, comments[c].End(), stComment, 0)
			c++
		}
		typ, mods := -1, 0
		switch {
		case t.Tok == syntax.IDENT:
			if t.Off < e.prevEnd {
				continue
			}
			line, col := e.pos(t.Off)
			at := syntax.MakePos(line+1, col+1)
			for j < len(occs) && posLess(occs[j].pos, at) {
				j++
			}
			if j < len(occs) && occs[j].pos == at {
				typ, mods = d.an.semanticKind(&occs[j])
			} else if slices.Contains(keywords, string(d.text[t.Off:t.End])) {
				typ = stKeyword // a soft keyword: uses
			}
		case t.Tok.IsKeyword() || t.Tok == syntax.NOT_IN:
			typ = stKeyword
		case t.Tok == syntax.STRING || t.Tok == syntax.TEMPLATE:
			typ = stString
		case t.Tok == syntax.INT || t.Tok == syntax.FLOAT || t.Tok == syntax.DEC:
			typ = stNumber
		case t.Tok == syntax.DECORATOR:
			typ = stDecorator
		case isOperator(t.Tok):
			typ = stOperator
		}
		if typ >= 0 {
			e.emit(t.Off, t.End, typ, mods)
		}
	}
	for ; c < len(comments); c++ {
		e.emit(comments[c].Off, comments[c].End(), stComment, 0)
	}
	return &protocol.SemanticTokens{Data: e.data}, nil
}

func posLess(x, y syntax.Pos) bool { return x.Line < y.Line || x.Line == y.Line && x.Col < y.Col }

func isOperator(t syntax.Token) bool {
	switch t {
	case syntax.QUESTION, syntax.ASSIGN, syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE,
		syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT, syntax.PLUS_EQ, syntax.MINUS_EQ,
		syntax.STAR_EQ, syntax.SLASH_EQ, syntax.FATARROW, syntax.ARROW, syntax.PIPE, syntax.BAR, syntax.BANG:
		return true
	}
	return false
}

// semanticKind is the token type and modifiers of a name.
func (a *analysis) semanticKind(o *occurrence) (typ, mods int) {
	switch o.kind {
	case occIdent:
		b := o.binding
		if b == nil {
			return stVariable, 0
		}
		switch b.Scope {
		case resolve.Local, resolve.Cell:
			if b.Pos == o.pos {
				mods |= smDeclaration
			}
			l := a.locals[b]
			if l == nil || !l.mut {
				mods |= smReadonly
			}
			if l != nil && l.kind == "parameter" {
				return stParameter, mods
			}
			return stVariable, mods
		case resolve.Global:
			return stFunction, 0
		case resolve.Const:
			return stVariable, smReadonly
		case resolve.Ctor:
			if b.Index < resolve.NumCoreCtors {
				return stEnumMember, smDefaultLibrary
			}
			return stEnumMember, 0
		case resolve.Builtin:
			if bs := libsig.Builtins(); b.Index < len(bs) && bs[b.Index].Value {
				return stVariable, smReadonly | smDefaultLibrary
			}
			return stFunction, smDefaultLibrary
		case resolve.Namespace:
			return stNamespace, smDefaultLibrary
		}
		return stVariable, 0
	case occConstName:
		return stVariable, smDeclaration | smReadonly
	case occFnName:
		return stFunction, smDeclaration
	case occMember:
		if o.call || a.namespaceOf(o.dot.X) != nil {
			return stFunction, smDefaultLibrary
		}
		return stProperty, 0
	case occDecorator:
		return stDecorator, 0
	case occType:
		if _, ok := builtinTypes[o.name]; ok {
			return stType, smDefaultLibrary
		}
		return stType, 0
	case occFieldInit:
		return stProperty, 0
	case occFieldDecl:
		return stProperty, smDeclaration
	case occVariant:
		return stEnumMember, smDeclaration
	case occTypeDecl:
		return stType, smDeclaration
	}
	return stVariable, 0
}

// tokenEncoder writes the protocol's relative encoding of tokens given
// in order of offset: line and start are counted from the token before,
// and a token over several lines (a raw string) is one token a line.
type tokenEncoder struct {
	d    *document
	data []protocol.UInteger
	// The last position converted: offset, line, its start, and the
	// UTF-16 column of the offset.
	off, line, lineStart, char int
	// The last token written, and the end of its text.
	prevLine, prevChar, prevEnd int
}

// pos is the 0-based line and byte column of off, which is at or after
// the last offset converted.
func (e *tokenEncoder) pos(off int) (line, col int) {
	e.advance(off)
	return e.line, off - e.lineStart
}

// advance moves the converted position to off, counting the UTF-16
// units from the last one (or from the start of off's line).
func (e *tokenEncoder) advance(off int) {
	lines := e.d.lines
	if e.line+1 < len(lines) && lines[e.line+1] <= off {
		i, _ := slices.BinarySearch(lines, off+1) // the first line starting after off
		e.line, e.lineStart, e.off, e.char = i-1, lines[i-1], lines[i-1], 0
	}
	if off > e.off {
		e.char += utf16Len(e.d.text[e.off:off])
	}
	e.off = off
}

func (e *tokenEncoder) emit(start, end, typ, mods int) {
	if start < e.prevEnd {
		// Overlapping or out of order (the parser's recovery from an
		// unterminated string can read the same text twice): the
		// protocol's encoding cannot go back.
		return
	}
	e.prevEnd = end
	for start < end {
		e.advance(start)
		lineEnd := len(e.d.text)
		if e.line+1 < len(e.d.lines) {
			lineEnd = e.d.lines[e.line+1] - 1 // the line break is no part of a token
		}
		stop := min(end, lineEnd)
		if stop > start && e.d.text[stop-1] == '\r' {
			stop--
		}
		if n := utf16Len(e.d.text[start:stop]); n > 0 {
			dl, dc := e.line-e.prevLine, e.char
			if dl == 0 {
				dc = e.char - e.prevChar
			}
			e.data = append(e.data, protocol.UInteger(dl), protocol.UInteger(dc), protocol.UInteger(n), protocol.UInteger(typ), protocol.UInteger(mods))
			e.prevLine, e.prevChar = e.line, e.char
		}
		if end <= lineEnd {
			break
		}
		start = lineEnd + 1
		for start < end && !utf8.RuneStart(e.d.text[start]) {
			start++
		}
	}
}
