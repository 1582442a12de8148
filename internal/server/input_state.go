package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/session"
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

// checkInputState is the input state step (input_state.go): under
// 2026-07-28, a retry's requestState this server did not sign for that
// tool and those arguments is answered -32602. Without the shim's decode
// the state is checked where the call reads it (toolcall.NewRounds),
// failing the call.
func (s *Server) checkInputState(_ context.Context, c toolCall) *refusal {
	if !c.modern || c.params == nil {
		return nil
	}
	if e := s.workspace.badState(c.name, c.params.Arguments, c.params.RequestState); e != nil {
		return &refusal{rpc: e}
	}
	return nil
}

// badState is the -32602 error of a retry of the workspace tool name
// whose request state this server did not sign for that tool and those
// arguments (a tampered or foreign state, toolcall.CheckState); nil when
// the call may go on.
func (w *workspaceSource) badState(name string, args json.RawMessage, state string) *rpcError {
	if w == nil || state == "" {
		return nil
	}
	surface := w.surface.Load()
	if surface == nil {
		return nil
	}
	if _, found := surface.Tool(name); !found {
		return nil
	}
	if err := toolcall.CheckState(w.inputKey(), name, args, state); err != nil {
		return &rpcError{Code: mcp.INVALID_PARAMS, Message: "requestState: " + err.Error()}
	}
	return nil
}
