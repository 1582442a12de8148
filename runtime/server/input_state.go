package server

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/runtime/session"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// inputStateKey is the key that signs the request state of calls asking
// their client under protocol 2026-07-28: derived from the first session
// key, so that every instance of a fleet sharing VOX_MCP_SESSION_KEY
// accepts the state of another, else random, so that a state dies with
// the server that made it.
func inputStateKey(sessionKeys [][]byte) []byte {
	if len(sessionKeys) == 0 {
		return session.GenerateKey()
	}
	sum := sha256.Sum256(append([]byte("vox-mcp input request state\x00"), sessionKeys[0]...))
	return sum[:]
}

// badStateReply answers -32602 to a tools/call of protocol 2026-07-28
// that retries a workspace tool with a request state this server did not
// sign for that tool and those arguments (a tampered or foreign state,
// toolcall.CheckState), before the tool runs; ok is false when the call
// may go on.
func (s *Server) badStateReply(id, params json.RawMessage) (reply []byte, ok bool) {
	if s.workspace == nil {
		return nil, false
	}
	var p struct {
		Name         string          `json:"name"`
		Arguments    json.RawMessage `json:"arguments"`
		RequestState string          `json:"requestState"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestState == "" {
		return nil, false
	}
	surface := s.workspace.surface.Load()
	if surface == nil {
		return nil, false
	}
	if _, found := surface.Tool(p.Name); !found {
		return nil, false
	}
	if err := toolcall.CheckState(s.workspace.inputKey(), p.Name, p.Arguments, p.RequestState); err != nil {
		return rpcReply(id, nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: "requestState: " + err.Error()}), true
	}
	return nil, false
}
