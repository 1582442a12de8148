package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// A plain tools/list is answered from bytes prepared once per published
// tool set (docs/benchmarks.md, "Start-up and tools/list"): mcp-go builds
// the list anew on every request — a sorted copy of every tool, a map per
// tool for its _meta, and the JSON of all of them — which for 500
// workspace tools cost about twice the floor's time. The prepared answer
// is mcp-go's own encoding of the same tools (json.Marshal of its
// ListToolsResult, as its transports write it), so a client cannot tell
// which of the two answered.
//
// Only requests whose answer cannot depend on anything but the set are
// prepared: no cursor, no _meta (which could make the request one of
// protocol 2026-07-28, whose results carry more), an integer or plain
// string id. Every other tools/list is mcp-go's, as before.

// listResult is the encoded tools/list result of the set: its advertised
// tools in name order (the hidden ones removed, as hideUnadvertised
// removes them from mcp-go's answer). It is built once — on the set's
// first list, or just after mcp-go registered the set — and shared by
// every later list. An entry the previous set had encoded is not encoded
// again (a refresh keeps the entry of every definition it did not
// change, tools.go), nor is a workspace tool whose JSON the surface
// cache's record holds (workspace_cache.go); the rest are encoded on
// every core: a start encodes them while its client waits for the first
// list.
func (ts *toolSet) listResult() []byte {
	ts.listOnce.Do(func() {
		prev := ts.prev.Swap(nil) // what it holds is copied below; let it go
		var entries []*toolEntry
		for _, e := range ts.sorted() {
			if !e.hidden {
				entries = append(entries, e)
			}
		}
		parts := make([][]byte, len(entries))
		var todo []int
		for i, e := range entries {
			if prev != nil {
				if at, ok := prev.encodedAt[e]; ok {
					parts[i] = prev.list[at[0]:at[1]]
					continue
				}
			}
			if e.recorded != nil {
				parts[i] = e.recorded
				continue
			}
			todo = append(todo, i)
		}
		if err := encodeTools(entries, todo, parts); err != nil {
			return // mcp-go answers, and says what it could not encode
		}
		ts.encoded = len(todo)
		ts.list, ts.encodedAt = joinToolList(entries, parts)
		ts.built.Store(true)
	})
	return ts.list
}

// encodeTools encodes the tools of entries at the indices todo into
// parts, each as json.Marshal writes it inside a ListToolsResult (both go
// through the tool's MarshalJSON and the same compaction), spread over
// the cores when there are enough to pay for the goroutines.
func encodeTools(entries []*toolEntry, todo []int, parts [][]byte) error {
	workers := min(runtime.GOMAXPROCS(0), len(todo)/64+1)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(todo); k += workers {
				i := todo[k]
				b, err := json.Marshal(entries[i].tool)
				if err != nil {
					errs[w] = err
					return
				}
				parts[i] = b
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// listEnvelope is a ListToolsResult's JSON around its tools, as
// json.Marshal writes it: what comes before the first tool and after the
// last.
var listEnvelope = sync.OnceValues(func() (before, after []byte) {
	b, _ := json.Marshal(mcp.ListToolsResult{Tools: []mcp.Tool{}})
	i := bytes.Index(b, []byte(`"tools":[`)) + len(`"tools":[`)
	return b[:i], b[i:]
})

// joinToolList joins the encoded tools into the list's result and
// records where each entry's tool lies in it.
func joinToolList(entries []*toolEntry, parts [][]byte) ([]byte, map[*toolEntry][2]int) {
	before, after := listEnvelope()
	size := len(before) + len(after) + len(parts)
	for _, p := range parts {
		size += len(p)
	}
	list := make([]byte, 0, size)
	list = append(list, before...)
	at := make(map[*toolEntry][2]int, len(entries))
	for i, p := range parts {
		if i > 0 {
			list = append(list, ',')
		}
		at[entries[i]] = [2]int{len(list), len(list) + len(p)}
		list = append(list, p...)
	}
	return append(list, after...), at
}

// preparedList is the answer to a plain tools/list in three parts, written
// one after the other: head (`{"jsonrpc":"2.0","id":ID,"result":`), the
// set's prepared result — shared by every list of the set, so never
// modified — and `}`. Writing the parts instead of joining them leaves no
// copy of the result (186 KiB for 500 tools) behind as garbage on every
// list (docs/benchmarks.md, "Resident memory at start-up").
type preparedList struct {
	head, result []byte
}

// bytes is the whole answer, joined (tests and benchmarks).
func (p preparedList) bytes() []byte {
	return append(append(slices.Clip(p.head), p.result...), '}')
}

// preparedToolsList answers raw, a tools/list whose head is decoded,
// from the prepared result of the set mcp-go has registered; ok is false
// when mcp-go is to answer it (see above).
func (s *Server) preparedToolsList(raw []byte, head *rpcMessage) (reply preparedList, ok bool) {
	if head.Method != string(mcp.MethodToolsList) || !plainID(head.ID) || !plainListRequest(raw) {
		return preparedList{}, false
	}
	// Before the set is read: a cold start's list waits for the first
	// scan's tools (tools_list_wait.go).
	s.waitFirstList(context.Background())
	s.listMu.RLock()
	set := s.listed.Load()
	s.listMu.RUnlock()
	if set == nil {
		return preparedList{}, false
	}
	result := set.listResult()
	if result == nil {
		return preparedList{}, false
	}
	s.checkRecord()
	reply.head = make([]byte, 0, len(head.ID)+len(`{"jsonrpc":"2.0","id":,"result":`))
	reply.head = append(reply.head, `{"jsonrpc":"2.0","id":`...)
	reply.head = append(reply.head, head.ID...)
	reply.head = append(reply.head, `,"result":`...)
	reply.result = result
	return reply, true
}

// plainID reports whether id is written exactly as mcp-go writes it back:
// an integer of at most 15 digits (mcp-go decodes ids into float64, which
// holds those exactly) or a string with nothing encoding/json would
// escape differently.
func plainID(id json.RawMessage) bool {
	switch {
	case len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"':
		for _, c := range id[1 : len(id)-1] {
			if c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' || c < 0x20 || c >= 0x80 {
				return false
			}
		}
		return true
	case len(id) > 0 && len(id) <= 15:
		digits := id
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
			return false
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return false
}

// plainListRequest reports whether raw holds a JSON-RPC 2.0 request with
// no member besides jsonrpc, id, method and params, and params absent,
// null or {}.
func plainListRequest(raw []byte) bool {
	var msg map[string]json.RawMessage
	if unmarshal(raw, &msg) != nil || len(msg) > 4 {
		return false
	}
	if !bytes.Equal(msg["jsonrpc"], []byte(`"2.0"`)) {
		return false
	}
	for k, v := range msg {
		switch k {
		case "jsonrpc", "id", "method":
		case "params":
			p := bytes.TrimSpace(v)
			if bytes.Equal(p, []byte("null")) {
				continue
			}
			var params map[string]json.RawMessage
			if unmarshal(p, &params) != nil || len(params) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
