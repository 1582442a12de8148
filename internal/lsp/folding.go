package lsp

import (
	"bytes"
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// foldingRange answers textDocument/foldingRange from the tokens: every
// block, list, object, argument list or parameter list whose brackets
// are on different lines folds from the line of its opening bracket to
// the line before its closing one (which stays in view), and every run
// of two or more comment lines folds as a comment. One pass over the
// tokens with a stack of the open brackets: linear in the text.
func (s *Server) foldingRange(_ *glsp.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	toks, f := d.tokens()
	out := []protocol.FoldingRange{}
	var open []syntax.TokenSpan
	for i, t := range toks {
		switch t.Tok {
		case syntax.LBRACE, syntax.LBRACK, syntax.LPAREN:
			open = append(open, t)
		case syntax.RBRACE, syntax.RBRACK, syntax.RPAREN:
			n := len(open)
			if n == 0 || !matches(open[n-1].Tok, t.Tok) {
				continue // unbalanced: the parser reported it
			}
			first, last := d.position(open[n-1].Off).Line, d.position(t.Off).Line
			open = open[:n-1]
			end := last
			if firstOnLine(d, toks, i) {
				end-- // the closing bracket's line stays in view
			}
			if end > first {
				out = append(out, protocol.FoldingRange{StartLine: first, EndLine: end})
			}
		}
	}
	if f != nil {
		kind := string(protocol.FoldingRangeKindComment)
		for _, g := range f.Comments {
			if len(g.List) < 2 {
				continue
			}
			first := d.position(g.List[0].Off).Line
			last := d.position(g.List[len(g.List)-1].Off).Line
			if last > first {
				out = append(out, protocol.FoldingRange{StartLine: first, EndLine: last, Kind: &kind})
			}
		}
	}
	return out, nil
}

func matches(open, close syntax.Token) bool {
	return open == syntax.LBRACE && close == syntax.RBRACE || open == syntax.LBRACK && close == syntax.RBRACK ||
		open == syntax.LPAREN && close == syntax.RPAREN
}

// firstOnLine reports whether token i is the first on its line: a line
// break lies between it and the token before (a comment cannot precede
// a token on its line). It looks at the text between the two tokens
// only, so that the calls of one pass read the text once.
func firstOnLine(d *document, toks []syntax.TokenSpan, i int) bool {
	from := 0
	if i > 0 {
		if toks[i-1].Tok == syntax.NEWLINE {
			return true
		}
		from = toks[i-1].End
	}
	return from == 0 && i == 0 || bytes.IndexByte(d.text[min(from, toks[i].Off):toks[i].Off], '\n') >= 0
}
