package lsp

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// document is an open text document: its text as the client has it and
// the analysis of that text.
type document struct {
	uri     string
	path    string // for diagnostics' Path: the URI's file path
	version protocol.Integer
	text    []byte
	lines   []int // byte offset of each line's start
	an      *analysis
	// good is the last analysis in which every function parsed: while a
	// line is being typed its function is often unavailable, and
	// completion still offers the locals it had.
	good *analysis
	// stale, when set, says why the server's text stopped following the
	// editor's: a change was refused (limits.go).
	stale string
}

func newDocument(uri string, version protocol.Integer, text string) *document {
	d := &document{uri: uri, path: uriPath(uri), version: version}
	d.setText([]byte(validText(text)))
	d.analyze()
	return d
}

// uriPath is the file path of a file: URI, else the URI itself.
func uriPath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && u.Path != "" {
		return u.Path
	}
	return uri
}

func (d *document) setText(text []byte) {
	d.text = text
	d.lines = d.lines[:0]
	d.lines = append(d.lines, 0)
	for i, c := range text {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
}

// analyze analyzes the current text.
func (d *document) analyze() {
	d.an = analyze(d.path, d.text)
	if d.an.complete {
		d.good = d.an
	}
}

// lineText is line i (0-based) without its line ending.
func (d *document) lineText(i int) []byte {
	if i < 0 || i >= len(d.lines) {
		return nil
	}
	end := len(d.text)
	if i+1 < len(d.lines) {
		end = d.lines[i+1] - 1
	}
	line := d.text[d.lines[i]:end]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// offset converts an LSP position (UTF-16 code units, the protocol's
// default) to a byte offset in the text, clamped to the line and text.
func (d *document) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(d.lines) {
		return len(d.text)
	}
	text := d.lineText(line)
	return d.lines[line] + utf16ToByte(text, int(p.Character))
}

// utf16ToByte returns the byte offset in text of the UTF-16 offset units.
func utf16ToByte(text []byte, units int) int {
	i, n := 0, 0
	for i < len(text) && n < units {
		r, size := utf8.DecodeRune(text[i:])
		n += utf16.RuneLen(r)
		if r == utf8.RuneError && size == 1 {
			n = n - utf16.RuneLen(r) + 1
		}
		i += size
	}
	return i
}

// position converts a byte offset to an LSP position.
func (d *document) position(off int) protocol.Position {
	off = max(0, min(off, len(d.text)))
	line := 0
	lo, hi := 0, len(d.lines)-1
	for lo <= hi { // the last line start <= off
		mid := (lo + hi) / 2
		if d.lines[mid] <= off {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(d.text[d.lines[line]:off]))}
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n++
		} else {
			n += utf16.RuneLen(r)
		}
		b = b[size:]
	}
	return n
}

// posOffset converts a Vox position (1-based line, 1-based byte column)
// to a byte offset.
func (d *document) posOffset(p syntax.Pos) int {
	line := int(p.Line) - 1
	if line < 0 {
		return 0
	}
	if line >= len(d.lines) {
		return len(d.text)
	}
	return d.lines[line] + min(max(int(p.Col)-1, 0), len(d.lineText(line)))
}

// syntaxPos converts a byte offset to a Vox position.
func (d *document) syntaxPos(off int) syntax.Pos {
	p := d.position(off)
	return syntax.MakePos(int(p.Line)+1, off-d.lines[p.Line]+1)
}

// rangeAt is the range of the name (or else the one character) at a Vox
// position, for a diagnostic or a definition.
func (d *document) rangeAt(p syntax.Pos) protocol.Range {
	start := d.posOffset(p)
	end := start
	for end < len(d.text) && isNameByte(d.text[end]) {
		end++
	}
	if end == start && end < len(d.text) && d.text[end] != '\n' {
		_, size := utf8.DecodeRune(d.text[end:])
		end += size
	}
	return protocol.Range{Start: d.position(start), End: d.position(end)}
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// applyChanges returns text with the content changes of one didChange
// applied in order: range edits, or a replacement of the whole text. The
// edits go through a rope, so that the cost is linear in the text and
// the changes rather than their product (rope.go). text is not modified;
// on an error nothing is applied. piece is the rope's piece size,
// ropePiece but in the fuzz target.
func applyChanges(text []byte, changes []any, piece int) ([]byte, error) {
	r := newRope(string(text), piece)
	for i, change := range changes {
		switch c := change.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			r = newRope(validText(c.Text), piece)
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				r = newRope(validText(c.Text), piece)
				continue
			}
			start := r.offset(int(c.Range.Start.Line), int(c.Range.Start.Character))
			end := r.offset(int(c.Range.End.Line), int(c.Range.End.Character))
			if end < start {
				return nil, fmt.Errorf("content change %d's range ends (%d:%d) before it starts (%d:%d)",
					i+1, c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
			}
			r.replace(start, end, validText(c.Text))
		default:
			return nil, fmt.Errorf("content change %d is of type %T", i+1, change)
		}
	}
	return r.text(), nil
}

// validText is s as valid UTF-8. Text from the wire already is (JSON
// strings cannot carry anything else: encoding/json replaces invalid
// bytes); the rope's UTF-16 counts rely on it (rope.go).
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func (s *Server) didOpen(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	uri := p.TextDocument.URI
	if err := s.admit(uri, len(p.TextDocument.Text)); err != nil {
		msg := fmt.Sprintf("not opened: %v", err)
		if old, ok := s.docs[uri]; ok { // opened twice: what the editor has is not old's text
			old.stale = msg
		}
		s.refuse(ctx, uri, p.TextDocument.Version, msg)
		return nil
	}
	d := newDocument(uri, p.TextDocument.Version, p.TextDocument.Text)
	s.docs[d.uri] = d
	s.keepGood(d)
	s.publish(ctx, d)
	return nil
}

func (s *Server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	uri := p.TextDocument.URI
	d, ok := s.docs[uri]
	if !ok {
		return fmt.Errorf("didChange of %s, which is not open", uri)
	}
	if d.stale != "" {
		// An earlier change was refused: the editor's text and this one
		// differ, and a range edit would land in the wrong place. Only a
		// whole new text brings the two together again.
		if len(p.ContentChanges) == 0 || !isWhole(p.ContentChanges[0]) {
			return fmt.Errorf("%s: change to version %d ignored: %s", uri, p.TextDocument.Version, d.stale)
		}
	}
	text, err := applyChanges(d.text, p.ContentChanges, ropePiece)
	if err == nil {
		err = s.fits(d, len(text))
	}
	if err != nil {
		msg := fmt.Sprintf("change to version %d refused: %v; the server keeps version %d and ignores further edits until the document is closed and reopened",
			p.TextDocument.Version, err, d.version)
		d.stale = msg
		s.refuse(ctx, uri, p.TextDocument.Version, msg)
		return nil
	}
	d.stale = ""
	d.setText(text)
	d.version = p.TextDocument.Version
	d.analyze()
	s.keepGood(d)
	s.publish(ctx, d)
	return nil
}

func isWhole(change any) bool {
	switch c := change.(type) {
	case protocol.TextDocumentContentChangeEventWhole:
		return true
	case protocol.TextDocumentContentChangeEvent:
		return c.Range == nil
	}
	return false
}

func (s *Server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	delete(s.docs, p.TextDocument.URI)
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{},
	})
	return nil
}

// publish sends the document's diagnostics.
func (s *Server) publish(ctx *glsp.Context, d *document) {
	version := protocol.UInteger(d.version)
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: d.uri, Version: &version, Diagnostics: d.diagnostics(),
	})
}

// diagnostics converts the analysis's diagnostics to the protocol's: the
// first MaxDiagnostics of them, then one that says how many more there
// are (limits.go).
func (d *document) diagnostics() []protocol.Diagnostic {
	diags := d.an.diags[:min(len(d.an.diags), MaxDiagnostics)]
	out := make([]protocol.Diagnostic, 0, len(diags)+1)
	source := "vox"
	for _, x := range diags {
		severity := protocol.DiagnosticSeverityError
		if x.Severity == diag.Warning {
			severity = protocol.DiagnosticSeverityWarning
		}
		r := d.rangeAt(syntax.MakePos(x.Line, x.Col))
		if x.EndCol > x.Col { // the checker's span
			r.End = d.position(d.posOffset(syntax.MakePos(x.Line, x.EndCol)))
		}
		message := x.Message
		for _, h := range x.Help { // as vox check prints them
			message += "\nhelp: " + h
		}
		out = append(out, protocol.Diagnostic{
			Range:    r,
			Severity: &severity,
			Code:     &protocol.IntegerOrString{Value: x.Code},
			Source:   &source,
			Message:  message,
		})
	}
	if more := len(d.an.diags) - len(diags); more > 0 {
		severity := protocol.DiagnosticSeverityInformation
		next := d.an.diags[len(diags)]
		at := d.position(d.posOffset(syntax.MakePos(next.Line, next.Col)))
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{Start: at, End: at}, Severity: &severity,
			Code: &protocol.IntegerOrString{Value: "vox/lsp/more"}, Source: &source,
			Message: fmt.Sprintf("%d more diagnostics from here on are not shown: vox lsp publishes the first %d of a document; vox check lists every one", more, MaxDiagnostics),
		})
	}
	return out
}
