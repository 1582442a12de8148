package transport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// headCases are messages whose head encoding/json reads in ways a
// hand-written reader could miss: case variants and duplicates of the
// keys (the last wins; a null method keeps the one before), keys and
// methods spelled with escapes or matched by Unicode folding ("paramſ" is
// params to encoding/json), values of the wrong type, and what is not an
// object.
var headCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"method":"tools/list","METHOD":"skills/list"}`,
	`{"Method":"skills/list","method":"tools/call"}`,
	`{"method":"skills/list","method":null}`,
	`{"method":"tools/call","mEtHoD":"skills/get","id":"x","ID":7}`,
	`{"\u006dethod":"skills/list"}`,
	`{"method":"tools\/call"}`,
	`{"method":"skills\u002flist"}`,
	`{"paramſ":{"name":"x"},"method":"tools/call"}`,
	`{"methoſ":"x"}`,
	`{"method":"caf\u00e9"}`,
	"{\"method\":\"caf\xc3\xa9\"}",
	"{\"method\":\"bad\xff\"}",
	`{"method":5}`,
	`{"method":{"a":1}}`,
	`{"method":"tools/call","method":true}`,
	`{"id":null,"params":null}`,
	`{"id":[1,{"a":"]"}],"params":"}"}`,
	`{"params":{"name":"a\"b}","x":[[[]]]},"method":"tools/call"}`,
	` { "id" : 1 , "method" : "ping" } ` + "\n",
	`{}`,
	`null`,
	`[]`,
	`"tools/call"`,
	`12`,
	`true`,
	`{"method":"tools/call"`,
	`{"method":"tools/call"} x`,
	`{"method":"tools/call",}`,
	`{"method":"a"}{"method":"b"}`,
	``,
	`{"id":1e5,"method":"ping","params":-0.5E-2}`,
	`{"id":01}`,
	`{"method":"a\tb"}`,
	"{\"method\":\"a\x7fb\"}",
}

func TestDecodeHeadAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range headCases {
		checkHeadAgrees(t, []byte(c))
	}
	// encoding/json refuses nesting beyond 10,000 levels.
	for _, depth := range []int{9_999, 10_000, 10_001} {
		checkHeadAgrees(t, []byte(`{"params":`+strings.Repeat("[", depth)+strings.Repeat("]", depth)+`,"method":"tools/call"}`))
	}
}

// FuzzDecodeHead holds DecodeHead to encoding/json: the same verdict, and
// for a message that decodes the same id, method and params.
func FuzzDecodeHead(f *testing.F) {
	for _, c := range headCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		checkHeadAgrees(t, msg)
	})
}

func checkHeadAgrees(t *testing.T, msg []byte) {
	t.Helper()
	var want Head
	wantOK := json.Unmarshal(msg, &want) == nil
	got, ok := DecodeHead(msg)
	if ok != wantOK {
		t.Fatalf("%q: decodes %v, encoding/json %v", msg, ok, wantOK)
	}
	if !ok {
		return
	}
	if got.Method != want.Method || !sameRaw(got.ID, want.ID) || !sameRaw(got.Params, want.Params) {
		t.Fatalf("%q: head %q %s %s, encoding/json %q %s %s", msg, got.Method, got.ID, got.Params, want.Method, want.ID, want.Params)
	}
}

// sameRaw compares two raw members, telling a missing one (nil) from any
// present one.
func sameRaw(a, b json.RawMessage) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// TestDecodeHeadOfACallAllocatesNothing: the head of a tools/call is read
// without a copy (the reason DecodeHead exists).
func TestDecodeHeadOfACallAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}` + "\n")
	if n := testing.AllocsPerRun(100, func() {
		if h, ok := DecodeHead(msg); !ok || h.Method != "tools/call" {
			t.Fatal("the head of a call does not decode")
		}
	}); n != 0 {
		t.Errorf("%v allocations per head", n)
	}
}
