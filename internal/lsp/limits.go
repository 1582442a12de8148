package lsp

import (
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The server holds every open document with its analysis, and analysis
// is what costs: the compiler's tree, the resolver's and the checker's
// records keep 35 to 160 bytes of heap per byte of Vox (the most for the
// densest text measured: a function of 9 bytes a line, each a duplicate
// with its diagnostic), and analyzing allocates about three times what
// it keeps. So the limits are on the text, and the text of a document's
// last complete analysis, which completion keeps while the current text
// does not parse, counts too (docs/vox-lsp.md, Limits; docs/security.md,
// the language server).
const (
	// MaxDocumentBytes is the largest document: ninety times the
	// largest .vox file of this repository (11 KB).
	MaxDocumentBytes = 1 << 20
	// MaxDocuments is the most documents open at once: an editor opens a
	// document for each file it shows, not for every file of the
	// workspace.
	MaxDocuments = 256
	// MaxTotalBytes is the most text held in all. At the limits the
	// server's peak RSS stays near 400 MB for the densest Vox measured
	// (docs/vox-lsp.md, Limits).
	MaxTotalBytes = 2 << 20
	// MaxDiagnostics is the most diagnostics published for a document:
	// a text of many small errors would otherwise make a notification of
	// 250 bytes per error (116,000 of them for 1 MiB of duplicate
	// functions), which the editor cannot use either.
	MaxDiagnostics = 1000
)

// admit checks that a document of size bytes may be opened under uri
// (replacing the document open under it, if any).
func (s *Server) admit(uri string, size int) error {
	old, reopen := s.docs[uri]
	if size > s.opts.MaxDocumentBytes {
		return fmt.Errorf("the document is %d bytes, over the limit of %s for one document", size, mib(s.opts.MaxDocumentBytes))
	}
	if !reopen && len(s.docs) >= s.opts.MaxDocuments {
		return fmt.Errorf("%d documents are open, the most the server holds; close one first", len(s.docs))
	}
	return s.fits(old, size)
}

// fits checks that the open documents, with d's text (nil: a document
// not open yet) becoming size bytes, stay within the limits on one
// document and on all the text held.
func (s *Server) fits(d *document, size int) error {
	if size > s.opts.MaxDocumentBytes {
		return fmt.Errorf("the document would be %d bytes, over the limit of %s for one document", size, mib(s.opts.MaxDocumentBytes))
	}
	if total := s.held(d) + size; total > s.opts.MaxTotalBytes {
		return fmt.Errorf("the open documents would hold %d bytes of text, over the limit of %s for all of them together; close some first",
			total, mib(s.opts.MaxTotalBytes))
	}
	return nil
}

// held is the text the server holds for the open documents but d: each
// one's text, and the text of its last complete analysis when that is
// an older one.
func (s *Server) held(except *document) int {
	n := 0
	for _, d := range s.docs {
		if d != except {
			n += d.held()
		}
	}
	return n
}

func (d *document) held() int {
	n := len(d.text)
	if d.good != nil && d.good != d.an {
		n += d.good.size
	}
	return n
}

// keepGood drops d's last complete analysis when keeping it beside the
// current one would take the text held past the limit: completion then
// offers what the current text has, and nothing is held beyond the limit.
func (s *Server) keepGood(d *document) {
	if d.good != nil && d.good != d.an && s.held(d)+d.held() > s.opts.MaxTotalBytes {
		d.good = nil
	}
}

// refuse tells the editor that a document (or a change of it) was
// refused. didOpen and didChange are notifications, which have no
// answer: the message is shown to the user (window/showMessage) and is
// the document's one diagnostic, so that it stays in view on the file
// itself, and it goes to the log.
func (s *Server) refuse(ctx *glsp.Context, uri string, version protocol.Integer, reason string) {
	msg := fmt.Sprintf("vox lsp: %s: %s", uri, reason)
	fmt.Fprintln(s.opts.Log, msg)
	ctx.Notify(protocol.ServerWindowShowMessage, protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
	severity := protocol.DiagnosticSeverityError
	source := "vox"
	v := protocol.UInteger(max(version, 0))
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: uri, Version: &v, Diagnostics: []protocol.Diagnostic{{
			Severity: &severity, Code: &protocol.IntegerOrString{Value: "vox/lsp/refused"}, Source: &source, Message: msg,
		}},
	})
}

// mib writes a limit in MiB when it is a whole number of them.
func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
