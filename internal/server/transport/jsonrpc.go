package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC framing: error objects, responses, and the batches of protocol
// 2025-03-26, split into messages and their replies joined into one.

// maxBatch is how many messages one batch may hold: far above what a
// client batches, low enough that one request cannot queue unbounded work.
const maxBatch = 100

// BatchVersion is the only protocol version with JSON-RPC batches.
const BatchVersion = mcp.ProtocolVersion20250326

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// ErrorReply is a JSON-RPC error response to the request id (null when
// it has none or is unknown).
func ErrorReply(id json.RawMessage, code int, message string) []byte {
	return Reply(id, nil, &Error{Code: code, Message: message})
}

// Reply is a JSON-RPC response to the request id (null when it has none
// or is unknown): its result, or the error e.
func Reply(id json.RawMessage, result any, e *Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	msg := map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id}
	if e != nil {
		msg["error"] = e
	} else {
		msg["result"] = result
	}
	b, err := json.Marshal(msg)
	if err != nil {
		b = ErrorReply(id, mcp.INTERNAL_ERROR, "encoding the result: "+err.Error())
	}
	return b
}

// IsBatch reports whether a body is a JSON array (a JSON-RPC batch).
func IsBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// BatchRefusal is the error answering a batch in a protocol version that
// has none: protocol 2025-06-18 removed batches.
func BatchRefusal(version string) []byte {
	return ErrorReply(nil, mcp.INVALID_REQUEST, fmt.Sprintf("JSON-RPC batches are not part of protocol %s (only %s has them): send one message per request", version, BatchVersion))
}

// errBatchTooLarge stops reading a batch at its limit.
var errBatchTooLarge = errors.New("batch too large")

// splitBatch reads the messages of a batch, stopping past maxBatch so that
// a batch of 100,000 costs no more than one of 101. A reply is set (and
// the messages nil) when the batch as a whole is refused: it does not
// decode, is empty, or is too large.
func splitBatch(body []byte) (msgs []json.RawMessage, reply []byte) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // the opening bracket
		return nil, ErrorReply(nil, mcp.PARSE_ERROR, "the batch is not valid JSON: "+err.Error())
	}
	err := func() error {
		for dec.More() {
			if len(msgs) == maxBatch {
				return errBatchTooLarge
			}
			var m json.RawMessage
			if err := dec.Decode(&m); err != nil {
				return err
			}
			msgs = append(msgs, m)
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return err
		}
		if _, err := dec.Token(); err != io.EOF {
			return errors.New("data after the batch")
		}
		return nil
	}()
	switch {
	case errors.Is(err, errBatchTooLarge):
		return nil, ErrorReply(nil, mcp.INVALID_REQUEST, fmt.Sprintf("a batch of more than %d messages: send at most %d per batch", maxBatch, maxBatch))
	case err != nil:
		return nil, ErrorReply(nil, mcp.PARSE_ERROR, "the batch is not valid JSON: "+err.Error())
	case len(msgs) == 0:
		return nil, ErrorReply(nil, mcp.INVALID_REQUEST, "an empty batch: send at least one message")
	}
	return msgs, nil
}

// ServeBatch answers a batch of a 2025-03-26 session: each message is
// checked, then served by one (the plane's pre-dispatch, then mcp-go),
// in order, one at a time; the replies form the array answered (nil when every message was
// a notification or a response, which get none).
func ServeBatch(body []byte, one func(msg []byte) []byte) []byte {
	msgs, reply := splitBatch(body)
	if reply != nil {
		return reply
	}
	var replies [][]byte
	for i, raw := range msgs {
		m, ok := DecodeHead(raw)
		switch {
		case !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || !ok:
			replies = append(replies, ErrorReply(nil, mcp.INVALID_REQUEST, fmt.Sprintf("message %d of the batch is not a JSON-RPC message object", i+1)))
		case m.Method == string(mcp.MethodInitialize):
			replies = append(replies, ErrorReply(m.ID, mcp.INVALID_REQUEST, "initialize must not be part of a batch: send it alone"))
		default:
			if r := one(raw); len(r) > 0 {
				replies = append(replies, r)
			}
		}
	}
	if len(replies) == 0 {
		return nil
	}
	return append(append([]byte("["), bytes.Join(replies, []byte(","))...), ']')
}
