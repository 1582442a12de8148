package lsp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// textDocument/inlayHint is LSP 3.17; github.com/tliron/glsp's types
// and dispatch are 3.16's and have neither the method nor its types. The
// server defines the few it answers with below and routes the method
// itself, before glsp's handler (Server.dispatch), and advertises it
// beside glsp's capabilities (serverCapabilities).
const methodInlayHint = "textDocument/inlayHint"

type inlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// inlayHintKindType is InlayHintKind.Type.
const inlayHintKindType = 1

type inlayHint struct {
	Position    protocol.Position `json:"position"`
	Label       string            `json:"label"`
	Kind        int               `json:"kind"`
	PaddingLeft bool              `json:"paddingLeft,omitempty"`
}

// inlayHintRequest decodes the params of textDocument/inlayHint and
// answers it; validParams is false when they do not decode.
func (s *Server) inlayHintRequest(params json.RawMessage) (result any, validParams bool, err error) {
	var p inlayHintParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, false, err
	}
	if p.TextDocument.URI == "" {
		return nil, false, fmt.Errorf("textDocument.uri is missing")
	}
	hints, err := s.inlayHints(&p)
	return hints, true, err
}

// inlayHints are the types of the lets in the range whose type is not
// written: `let n = count(xs)` shows `: int` after n. Only a single name
// gets one (not a tuple's parts), and only when the checker knows the
// type: where it does not, the server shows nothing rather than guess.
func (s *Server) inlayHints(p *inlayHintParams) ([]inlayHint, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	lo, hi := d.offset(p.Range.Start), d.offset(p.Range.End)
	out := []inlayHint{}
	for _, l := range d.an.locals {
		if l.kind != "variable" || l.typ != nil || l.value == nil {
			continue
		}
		b := l.binding
		start := d.posOffset(b.Pos)
		end := start + len(b.Name)
		if end < lo || start > hi {
			continue
		}
		t := d.an.checkedType(b.Pos)
		if t == "" || strings.Contains(t, "unknown") {
			continue
		}
		out = append(out, inlayHint{Position: d.position(end), Label: ": " + t, Kind: inlayHintKindType})
	}
	sort.Slice(out, func(i, j int) bool { return before(out[i].Position, out[j].Position) })
	return out, nil
}
