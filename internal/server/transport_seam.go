package server

import (
	"encoding/json"

	"github.com/vox-lang/vox-mcp/internal/server/transport"
)

// The plane's side of the transport package (transport/doc.go): the
// names this package's files use for what the transport defines. Each is
// a type alias or a function the compiler inlines, so that the split
// costs no call.

// rpcError is a JSON-RPC error object.
type rpcError = transport.Error

// rpcMessage is a message's head as the shim reads it, and the params of
// a tools/call once decoded (decodeCallParams), so that no later look
// decodes them again.
type rpcMessage struct {
	transport.Head
	call *callParams
}

// decodeHead is transport.DecodeHead, seen by decodeHook.
func decodeHead(msg []byte) (rpcMessage, bool) {
	if hook := decodeHook.Load(); hook != nil {
		(*hook)("head", msg)
	}
	h, ok := transport.DecodeHead(msg)
	return rpcMessage{Head: h}, ok
}

func errorReply(id json.RawMessage, code int, message string) []byte {
	return transport.ErrorReply(id, code, message)
}

func rpcReply(id json.RawMessage, result any, e *rpcError) []byte {
	return transport.Reply(id, result, e)
}

const (
	batchVersion   = transport.BatchVersion
	maxRequestBody = transport.MaxRequestBody
)

func init() {
	// The skills extension's methods are sent often enough for a head
	// to share their names.
	transport.ShareMethodName(methodSkillsList)
	transport.ShareMethodName(methodSkillsGet)
}
