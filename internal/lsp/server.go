// Package lsp is `vox lsp`: a Language Server Protocol server for .vox
// files over stdio (docs/vox-lsp.md). It publishes the diagnostics of
// `vox check` when a document is opened or changed, and answers hover
// (types and signatures), go to definition, completion (names, methods,
// builtins, capability functions, decorators), signature help, quick
// fixes, formatting, document and workspace symbols, references, rename,
// inlay hints, folding ranges and semantic tokens from the checker's
// record of every name (internal/vox/check), the resolved syntax tree,
// the parser's tokens and the library's signatures (internal/vox/libsig).
//
// The protocol types and their dispatch are github.com/tliron/glsp's
// (LSP 3.16); the framing and the JSON-RPC loop are this package's own,
// so that every size a peer announces is bounded before anything is
// allocated (framing.go). Messages are handled one at a time, in order:
// each document's state is then simply the result of the edits so far,
// and an edit's diagnostics are published before the next message is read.
package lsp

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Options configure a server.
type Options struct {
	Version string    // reported as serverInfo.version
	Log     io.Writer // problems the client is not told about; nil discards
	// The limits on the documents the server holds (limits.go); 0 is the
	// default: MaxDocumentBytes, MaxDocuments, MaxTotalBytes.
	MaxDocumentBytes, MaxDocuments, MaxTotalBytes int
}

// JSON-RPC and LSP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeNotInitialized = -32002
)

// message is any JSON-RPC message: a request (ID and Method), a
// notification (Method only) or a response (ID only, which this server
// never asks for and ignores).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type responseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
	Error   *responseError  `json:"error,omitempty"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *responseError  `json:"error"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// Server is one language server session: its documents and its
// connection.
type Server struct {
	opts     Options
	docs     map[string]*document
	handler  protocol.Handler
	out      *bufio.Writer
	outMu    sync.Mutex
	shutdown bool
	exited   bool
}

// Serve runs a session on in and out until the client sends exit or
// closes in. It returns nil after shutdown and exit, an error otherwise (a
// framing error, a write error, exit without shutdown, or the stream
// ending without either), which `vox lsp` turns into exit status 1 as the
// protocol asks.
func Serve(in io.Reader, out io.Writer, opts Options) error {
	s := NewServer(out, opts)
	r := newReader(in)
	for !s.exited {
		body, err := r.read()
		if err == io.EOF {
			if s.shutdown {
				return nil
			}
			return errors.New("the client closed the stream without shutdown and exit")
		}
		if err != nil {
			return err
		}
		if err := s.handle(body); err != nil {
			return err
		}
	}
	if !s.shutdown {
		return errors.New("exit without shutdown")
	}
	return nil
}

// NewServer makes a server that writes to out; Handle feeds it messages.
func NewServer(out io.Writer, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	opts.MaxDocumentBytes = cmp.Or(opts.MaxDocumentBytes, MaxDocumentBytes)
	opts.MaxDocuments = cmp.Or(opts.MaxDocuments, MaxDocuments)
	opts.MaxTotalBytes = cmp.Or(opts.MaxTotalBytes, MaxTotalBytes)
	s := &Server{opts: opts, docs: map[string]*document{}, out: bufio.NewWriter(out)}
	s.handler = protocol.Handler{
		Initialize:                     s.initialize,
		Initialized:                    func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                       func(*glsp.Context) error { s.shutdown = true; return nil },
		SetTrace:                       func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:                  func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:            s.didOpen,
		TextDocumentDidChange:          s.didChange,
		TextDocumentDidClose:           s.didClose,
		TextDocumentDidSave:            func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentHover:              s.hover,
		TextDocumentDefinition:         s.definition,
		TextDocumentCompletion:         s.completion,
		TextDocumentSignatureHelp:      s.signatureHelp,
		TextDocumentCodeAction:         s.codeAction,
		TextDocumentFormatting:         s.formatting,
		TextDocumentRangeFormatting:    s.rangeFormatting,
		TextDocumentDocumentSymbol:     s.documentSymbol,
		WorkspaceSymbol:                s.workspaceSymbol,
		TextDocumentReferences:         s.references,
		TextDocumentPrepareRename:      s.prepareRename,
		TextDocumentRename:             s.rename,
		TextDocumentFoldingRange:       s.foldingRange,
		TextDocumentSemanticTokensFull: s.semanticTokens,
	}
	return s
}

// handle decodes and answers one message. Only a failure to write is an
// error: a bad message gets an error response (requests) or a line in the
// log (notifications), and the session goes on.
func (s *Server) handle(body []byte) error {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return s.replyError(json.RawMessage("null"), codeParseError, fmt.Sprintf("the message is not JSON: %v", err))
	}
	isRequest := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && isRequest:
		return nil // a response to a request this server never sends
	case m.Method == "":
		return s.replyError(json.RawMessage("null"), codeInvalidRequest, "a message needs a method (a request or a notification)")
	case m.Method == protocol.MethodExit:
		s.exited = true
		return nil
	case s.shutdown && isRequest:
		return s.replyError(m.ID, codeInvalidRequest, fmt.Sprintf("%s after shutdown: only exit is accepted now", m.Method))
	}
	if len(m.Params) == 0 {
		m.Params = json.RawMessage("null")
	}
	result, validMethod, validParams, err := s.dispatch(&m)
	if !isRequest {
		switch {
		case !validMethod:
			// Notifications the server does not know are ignored
			// (the $/ ones may be, the rest are harmless).
		case !validParams || err != nil:
			fmt.Fprintf(s.opts.Log, "vox lsp: %s: %v\n", m.Method, err)
		}
		return nil
	}
	switch {
	case !validMethod:
		return s.replyError(m.ID, codeMethodNotFound, fmt.Sprintf("method %s is not served: vox lsp answers initialize, shutdown, hover, definition, completion, signatureHelp, codeAction, formatting, rangeFormatting, documentSymbol, workspace/symbol, references, prepareRename, rename, inlayHint, foldingRange and semanticTokens/full", m.Method))
	case !validParams:
		return s.replyError(m.ID, codeInvalidParams, fmt.Sprintf("the params of %s do not decode: %v", m.Method, err))
	case err != nil:
		code := codeInternalError
		if !s.handler.IsInitialized() {
			code = codeNotInitialized
		}
		return s.replyError(m.ID, code, err.Error())
	}
	return s.write(response{JSONRPC: "2.0", ID: m.ID, Result: result})
}

// dispatch runs glsp's handler, turning a panic of a feature into an
// error response rather than the end of the session.
func (s *Server) dispatch(m *message) (result any, validMethod, validParams bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.opts.Log, "vox lsp: panic in %s: %v\n%s", m.Method, r, debug.Stack())
			result, validMethod, validParams, err = nil, true, true, fmt.Errorf("internal error in %s: %v", m.Method, r)
		}
	}()
	if m.Method == methodInlayHint && s.handler.IsInitialized() { // LSP 3.17, not in glsp's dispatch (inlay.go)
		result, validParams, err = s.inlayHintRequest(m.Params)
		return result, true, validParams, err
	}
	ctx := &glsp.Context{Method: m.Method, Params: m.Params, Notify: s.notify}
	return s.handler.Handle(ctx)
}

func (s *Server) notify(method string, params any) {
	if err := s.write(notification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		fmt.Fprintf(s.opts.Log, "vox lsp: %s: %v\n", method, err)
	}
}

func (s *Server) replyError(id json.RawMessage, code int, msg string) error {
	return s.write(errorResponse{JSONRPC: "2.0", ID: id, Error: &responseError{Code: code, Message: msg}})
}

func (s *Server) write(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return writeMessage(s.out, body)
}

// serverCapabilities are glsp's (LSP 3.16) and the 3.17 ones it lacks.
type serverCapabilities struct {
	protocol.ServerCapabilities
	InlayHintProvider bool `json:"inlayHintProvider,omitempty"`
}

type initializeResult struct {
	Capabilities serverCapabilities                   `json:"capabilities"`
	ServerInfo   *protocol.InitializeResultServerInfo `json:"serverInfo,omitempty"`
}

func (s *Server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	yes := true
	change := protocol.TextDocumentSyncKindIncremental
	version := s.opts.Version
	return initializeResult{
		Capabilities: serverCapabilities{InlayHintProvider: true, ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync:                &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &change},
			HoverProvider:                   true,
			DefinitionProvider:              true,
			DocumentFormattingProvider:      true,
			DocumentRangeFormattingProvider: true,
			CodeActionProvider:              &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}},
			CompletionProvider:              &protocol.CompletionOptions{TriggerCharacters: []string{".", "@"}},
			SignatureHelpProvider: &protocol.SignatureHelpOptions{
				TriggerCharacters: []string{"(", ","}, RetriggerCharacters: []string{","},
			},
			DocumentSymbolProvider:  true,
			WorkspaceSymbolProvider: true,
			ReferencesProvider:      true,
			RenameProvider:          &protocol.RenameOptions{PrepareProvider: &yes},
			FoldingRangeProvider:    true,
			SemanticTokensProvider: &protocol.SemanticTokensOptions{
				Legend: protocol.SemanticTokensLegend{TokenTypes: semanticTokenTypes, TokenModifiers: semanticTokenModifiers},
				Full:   true,
			},
		}},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "vox lsp", Version: &version},
	}, nil
}
