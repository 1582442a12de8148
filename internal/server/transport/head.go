package transport

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// Head is what the transport and the plane read of a message before
// mcp-go: its id, method and params.
type Head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// DecodeHead reads the head of a JSON-RPC message — id, method and params
// — exactly as json.Unmarshal(msg, &Head{}) would, and reports
// whether that Unmarshal would have succeeded. The head decides which
// method the shim and the trust plane see (docs/federation.md §8, "The
// shim"), so it must never read a message otherwise than mcp-go, which
// decodes with encoding/json: the same case-insensitive key matching, the
// last of duplicate keys winning, a null method leaving the one before,
// the same refusals. FuzzDecodeHead checks it against encoding/json.
//
// Why not json.Unmarshal: over stdio the shim runs in the goroutine mcp-go
// starts for each line it reads, and the reflection of encoding/json's
// decoder grew that fresh goroutine's stack on every call (docs/
// benchmarks.md, "Stdio calls at the floor"). This walks the top level
// only, with shallow frames: json.Valid checks the syntax (its scanner is
// a loop), then the members are read from the valid bytes without
// allocating. The rare message it does not read itself — a key or method
// spelled with an escape or non-ASCII bytes, which encoding/json unescapes
// and folds by Unicode rules — goes to json.Unmarshal.
func DecodeHead(msg []byte) (Head, bool) {
	if !json.Valid(msg) {
		return Head{}, false
	}
	if head, fast, ok := scanHead(msg); fast {
		return head, ok
	}
	return unmarshalHead(msg)
}

// unmarshalHead is DecodeHead by encoding/json. Its own function: the
// head it decodes into escapes, and decodeHead's must not.
func unmarshalHead(msg []byte) (Head, bool) {
	head := new(Head)
	ok := json.Unmarshal(msg, head) == nil
	return *head, ok
}

// scanHead reads the head of a valid JSON text. fast is false when the
// text holds what it leaves to encoding/json.
func scanHead(msg []byte) (head Head, fast, ok bool) {
	i := skipSpace(msg, 0)
	switch msg[i] {
	case 'n':
		return Head{}, true, true // null leaves the struct as it is
	case '{':
	default:
		return Head{}, true, false // an array, string, number or bool into a struct
	}
	ok = true
	i = skipSpace(msg, i+1)
	if msg[i] == '}' {
		return head, true, true
	}
	for {
		// A key: valid JSON, so a string.
		keyEnd := stringEnd(msg, i)
		key := msg[i+1 : keyEnd-1]
		if !plainASCII(key) {
			return Head{}, false, false
		}
		i = skipSpace(msg, keyEnd)
		i = skipSpace(msg, i+1) // the colon
		valEnd := valueEnd(msg, i)
		val := msg[i:valEnd]
		switch {
		case asciiEqualFold(key, "id"):
			head.ID = val
		case asciiEqualFold(key, "params"):
			head.Params = val
		case asciiEqualFold(key, "method"):
			switch val[0] {
			case 'n': // null: a string keeps what it had
			case '"':
				s := val[1 : len(val)-1]
				if !plainASCII(s) {
					return Head{}, false, false
				}
				head.Method = methodName(s)
			default:
				// encoding/json records the type error and reads on; the
				// message does not decode.
				ok = false
			}
		}
		i = skipSpace(msg, valEnd)
		if msg[i] == '}' {
			return head, true, ok
		}
		i = skipSpace(msg, i+1) // the comma
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string starting at i (a
// quote) of valid JSON.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the index just past the value starting at i of valid
// JSON. Nesting is counted, not recursed into.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	// A number or literal: up to the next delimiter.
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// plainASCII reports whether s is printable ASCII without a backslash:
// bytes that encoding/json reads as they are.
func plainASCII(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether the ASCII key equals the lower-case
// name, ignoring ASCII case: encoding/json's match of an ASCII key to a
// field (non-ASCII keys, which Unicode folding could match — "paramſ" is
// params — never reach it).
func asciiEqualFold(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// knownMethods are the methods a session sends most, whose names the head
// shares instead of allocating a copy per message.
var knownMethods = func() map[string]string {
	m := map[string]string{}
	for _, name := range []mcp.MCPMethod{mcp.MethodInitialize, mcp.MethodPing, mcp.MethodToolsCall, mcp.MethodToolsList,
		mcp.MethodResourcesRead, mcp.MethodResourcesList, mcp.MethodPromptsGet, mcp.MethodPromptsList} {
		m[string(name)] = string(name)
	}
	return m
}()

// ShareMethodName adds a method a session sends often to those whose
// name a head shares (the plane's own methods, such as the skills
// extension's). It is called at initialisation, before any message is
// read.
func ShareMethodName(name string) { knownMethods[name] = name }

// methodName is the method named by s.
func methodName(s []byte) string {
	if name, ok := knownMethods[string(s)]; ok {
		return name
	}
	return string(s)
}
