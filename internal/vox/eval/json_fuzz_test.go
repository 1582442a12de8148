package eval

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecodeJSON checks the hand-written decoder against encoding/json:
// both accept the same documents (except numbers beyond float64 and values
// past the nesting bound, which it refuses), and what the
// decoder accepts encodes back to JSON that encoding/json accepts.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,-0,1e3,"x\u00e9\ud83d\ude00"],"b":{"c":null,"d":true}}`, `[]`, `"\""`, `1.0`, `-12345678901234567890`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data, 1<<20)
		ok := json.Valid(data)
		if err == nil && !ok {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err != nil {
			if e, isErr := err.(*Error); isErr && (e.Kind == LimitError || e.Message == "value nested deeper than 512" || strings.Contains(e.Message, "out of range")) {
				return
			}
			if ok {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		th := newThread(t.Context(), &Program{}, &Options{})
		out, runErr := th.run(func() Value { return Str(th.EncodeJSON(v)) })
		if runErr != nil {
			t.Fatalf("encoding %q: %v", data, runErr)
		}
		if !json.Valid([]byte(out.Str())) {
			t.Fatalf("re-encoded %q as invalid JSON %q", data, out.Str())
		}
	})
}
