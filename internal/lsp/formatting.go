package lsp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/format"
)

// formatting answers textDocument/formatting with the edits that give the
// document vox fmt's layout: the same code as the command
// (docs/vox-language.md, Formatting). A document that does not parse is
// an error response naming where, and no edit: the editor keeps its text.
func (s *Server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, hunks, err := s.formatHunks(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return d.edits(hunks, 0, len(d.lines)), nil
}

// rangeFormatting answers textDocument/rangeFormatting: the whole file is
// formatted (a layout depends on the nesting around the range), and only
// the changed lines that meet the range's lines are returned.
func (s *Server) rangeFormatting(_ *glsp.Context, p *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	d, hunks, err := s.formatHunks(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	first, last := int(p.Range.Start.Line), int(p.Range.End.Line)
	if p.Range.End.Character == 0 && last > first {
		last-- // a range that ends at the start of a line does not take that line
	}
	return d.edits(hunks, first, last+1), nil
}

func (s *Server) formatHunks(uri string) (*document, []hunk, error) {
	d, ok := s.docs[uri]
	if !ok {
		return nil, nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", uri)
	}
	if d.stale != "" {
		return nil, nil, fmt.Errorf("%s: not formatted: %s", uri, d.stale)
	}
	out, err := format.Source(d.path, d.text)
	if err != nil {
		return nil, nil, fmt.Errorf("not formatted: %v", err)
	}
	return d, lineHunks(splitLines(d.text), splitLines(out)), nil
}

// A hunk replaces the old lines [from, to) with new text.
type hunk struct {
	from, to int
	text     string
}

// edits turns the hunks that meet the old lines [first, end) into text
// edits, in order.
func (d *document) edits(hunks []hunk, first, end int) []protocol.TextEdit {
	out := []protocol.TextEdit{}
	for _, h := range hunks {
		meets := h.from < end && h.to > first || h.from == h.to && first <= h.from && h.from <= end
		if !meets {
			continue
		}
		out = append(out, protocol.TextEdit{
			Range:   protocol.Range{Start: d.position(d.lineOffset(h.from)), End: d.position(d.lineOffset(h.to))},
			NewText: h.text,
		})
	}
	return out
}

// lineOffset is the byte offset where line i starts; the end of the text
// for i past the last line.
func (d *document) lineOffset(i int) int {
	if i < len(d.lines) {
		return d.lines[i]
	}
	return len(d.text)
}

// splitLines splits text after each newline; a last line without one is
// a line too.
func splitLines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}

// lineHunks pairs the old and new lines and returns the runs that differ.
// The formatter keeps the author's line breaks and changes only the
// blanks between tokens, collapses runs of blank lines and ends the file
// with one newline, so a line and its formatted form are equal once
// blanks are left out: the lines pair in one pass. Where they do not
// (which the formatter does not do), the rest of the file is one hunk.
func lineHunks(old, new []string) []hunk {
	// One hunk per line, so that a range takes exactly its lines.
	var hunks []hunk
	add := func(from, to int, text string) { hunks = append(hunks, hunk{from: from, to: to, text: text}) }
	i, j := 0, 0
	for i < len(old) && j < len(new) {
		switch {
		case old[i] == new[j]:
			i, j = i+1, j+1
		case blanksOut(old[i]) == blanksOut(new[j]):
			add(i, i+1, new[j])
			i, j = i+1, j+1
		case blanksOut(old[i]) == "":
			add(i, i+1, "") // a blank line the formatter collapsed
			i++
		case blanksOut(new[j]) == "":
			add(i, i, new[j])
			j++
		default:
			add(i, len(old), strings.Join(new[j:], ""))
			return hunks
		}
	}
	if i < len(old) || j < len(new) {
		add(i, len(old), strings.Join(new[j:], ""))
	}
	return hunks
}

// blanksOut is s without spaces, tabs and line ends.
func blanksOut(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}
