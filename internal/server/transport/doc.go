// Package transport carries MCP messages for the plane (internal/server),
// as the Go SDK's internal/jsonrpc2 carries them for its mcp package: it
// knows JSON-RPC and the framing of stdio and streamable HTTP, never a
// tool, a resource, a session's state or a check on a call.
//
// What it holds: the head of a message read without reflection, exactly
// as encoding/json reads it (DecodeHead); JSON-RPC errors and responses
// (Error, Reply, ErrorReply); the batches of protocol 2025-03-26
// (IsBatch, ServeBatch, BatchRefusal); stdio's framing, one message per
// line written whole (LineWriter, WithNewline, LineStream) and each line
// read through the plane's filter first (LineFilter); HTTP's — the
// bound on a body and its read with its refusals (MaxRequestBody,
// ReadAllSized, ReadBody, IsTimeout), the
// DNS-rebinding check (RejectRebinding), a JSON-RPC answer as a response
// (WriteJSONReply), the recorder of one batched message's answer
// (BufferedReply); a call's own notifications on the stream of its POST
// (PostStream), the event store's adapter to mcp-go with the priming
// event (EventStore, Primer, FinishedWriter), and which sessions opened
// their GET stream (ListenStreams, ListenWriter).
//
// The interface between the two (docs/architecture.md §4): the transport
// hands the plane a message as its bytes and its decoded Head, and takes
// back either the reply it writes or the bytes mcp-go is to read —
// ServeBatch's one func(msg []byte) []byte is that exchange for a batch.
// The plane imports this package; this package never imports the plane,
// which layout_test.go enforces.
package transport
