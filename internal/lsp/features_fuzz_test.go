package lsp

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// FuzzDocumentFeatures: for any document text, the semantic tokens
// decode to increasing positions inside the lines of the text, the
// folding ranges lie within the document, each document symbol's
// selection lies inside its range, and no request panics. The token
// stream (syntax.ParseTokens), the comments and the analysis's names
// are merged by offset, and a text the parser reads in an unusual order
// (lookahead, skipped units) is where they could disagree.
func FuzzDocumentFeatures(f *testing.F) {
	for _, s := range []string{
		readTestdata(f, "tools.vox"),
		"// a\n// b\nfn f() to int {\n    let xs = [\n        1]\n    r\"é𝄞\nb\"\n}\n",
		"@endpoint(x) fn g() {}\n# c\nlet A = 1 # trailing\ntype T = | A | B(x: int)\n",
		"fn f( { [ ( } ] )\n\"unterminated\n",
		"@tool \"t\"\nfn t(n: int) uses fs to str {\n    let s = \"{n} and {n}\"\n    s\n}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		s := NewServer(nil, Options{})
		d := newDocument("file:///f.vox", 1, text)
		s.docs[d.uri] = d
		ctx := &glsp.Context{}
		id := protocol.TextDocumentIdentifier{URI: d.uri}
		lines := strings.Split(string(d.text), "\n")

		st, err := s.semanticTokens(ctx, &protocol.SemanticTokensParams{TextDocument: id})
		if err != nil {
			t.Fatal(err)
		}
		line, col := 0, 0
		for i := 0; i+5 <= len(st.Data); i += 5 {
			if st.Data[i] > 0 {
				line, col = line+int(st.Data[i]), int(st.Data[i+1])
			} else if i > 0 && st.Data[i+1] == 0 {
				t.Fatalf("token %d at the same position as the one before: %v", i/5, st.Data)
			} else {
				col += int(st.Data[i+1])
			}
			if line >= len(lines) || col+int(st.Data[i+2]) > len(utf16.Encode([]rune(strings.TrimSuffix(lines[line], "\r")))) || st.Data[i+2] == 0 {
				t.Fatalf("token %d at %d:%d length %d is outside the text %q", i/5, line, col, st.Data[i+2], text)
			}
			if int(st.Data[i+3]) >= len(semanticTokenTypes) || st.Data[i+4] >= 1<<len(semanticTokenModifiers) {
				t.Fatalf("token %d: type %d modifiers %d", i/5, st.Data[i+3], st.Data[i+4])
			}
		}
		folds, err := s.foldingRange(ctx, &protocol.FoldingRangeParams{TextDocument: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range folds {
			if r.StartLine >= r.EndLine || int(r.EndLine) >= len(lines) {
				t.Fatalf("folding range %d-%d in %d lines", r.StartLine, r.EndLine, len(lines))
			}
		}
		syms, err := s.documentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, sym := range syms.([]protocol.DocumentSymbol) {
			if before(sym.SelectionRange.Start, sym.Range.Start) || before(sym.Range.End, sym.SelectionRange.End) || sym.Name == "" {
				t.Fatalf("symbol %+v: the selection is outside the range", sym)
			}
		}
		if _, err := s.inlayHints(&inlayHintParams{TextDocument: id, Range: protocol.Range{End: protocol.Position{Line: 1 << 20}}}); err != nil {
			t.Fatal(err)
		}
		for i := range d.an.occs {
			o := &d.an.occs[i]
			p := d.position(d.posOffset(o.pos))
			tp := protocol.TextDocumentPositionParams{TextDocument: id, Position: p}
			if _, err := s.references(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: tp, Context: protocol.ReferenceContext{IncludeDeclaration: true}}); err != nil {
				t.Fatal(err)
			}
			_, _ = s.rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: tp, NewName: "renamed"})
		}
	})
}
