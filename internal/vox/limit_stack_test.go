package vox

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

const stackVox = `fn inner(n: int) to int {
    let mut i = 0
    while i < n {
        i += 1
    }
    i
}

fn outer() to int {
    let x = 1
    inner(100000000) + x
}

fn deep(n: int) to int { deep(n + 1) }

fn ping(n: int) to int { pong(n + 1) }
fn pong(n: int) to int { ping(n + 1) }
`

// A limit error says where the call stopped and which calls were in
// progress (docs/vox-language.md, Limits): innermost first, a recursion
// at one place as one line, at most 16 lines.
func TestLimitErrorStack(t *testing.T) {
	m := Compile("s.vox", []byte(stackVox))
	if m.HasErrors() {
		t.Fatal(m.Diagnostics())
	}
	call := func(fn, args string) *Error {
		t.Helper()
		_, err := m.Call(context.Background(), fn, []byte(args), &Env{Limits: Limits{Steps: 100_000}})
		var e *Error
		if !errors.As(err, &e) || e.Kind != LimitError {
			t.Fatalf("%s: %v, want a limit error", fn, err)
		}
		return e
	}
	e := call("outer", "")
	// The loop stops at its condition (3:5) or its body's statement (4:9).
	got := e.Positioned() + e.Traceback()
	at := strings.SplitN(got, ": ", 2)[0]
	if at != "s.vox:3:5" && at != "s.vox:4:9" || !strings.HasPrefix(got, at+": steps limit of 100000 exceeded; ") ||
		!strings.HasSuffix(got, "\n  in inner at "+at+"\n  in outer at s.vox:11:5") {
		t.Errorf("outer:\n%s", got)
	}
	e = call("deep", `{"n": 0}`)
	if got := e.Traceback(); got != "\n  in deep at s.vox:14:26 (256 calls)" || e.Line != 14 || e.Col != 26 {
		t.Errorf("deep: %d:%d%s", e.Line, e.Col, got)
	}
	e = call("ping", `{"n": 0}`)
	lines := strings.Split(e.Traceback(), "\n")[1:]
	if len(lines) != eval.MaxStack+1 || lines[0] != "  in pong at s.vox:17:26" || lines[1] != "  in ping at s.vox:16:26" ||
		lines[eval.MaxStack] != "  ... 240 more" {
		t.Errorf("ping: %q", lines)
	}
}
