package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// encodingJSON is what encoding/json writes for v with SetEscapeHTML(false).
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestQuoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" backslash \\", "<html> & </html>", "\b\f\n\r\t\x00\x1f\x7f",
		"\u2028\u2029", "\xff\xfe invalid", "é日本\U0001F600", "\ufeff bom"} {
		if got, want := Quote(s), encodingJSON(t, s); got != want {
			t.Errorf("Quote(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

func FuzzQuoteMatchesEncodingJSON(f *testing.F) {
	f.Add("a\"b\\c\x01\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Quote(s), encodingJSON(t, s); got != want {
			t.Errorf("Quote(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

func TestFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 4.085240551961252, 1e-7, 1.5e-9, 1e20, 1e21, 123456789e30, math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5e-8} {
		var e Encoder
		e.Float(f)
		got, err := e.Bytes()
		if err != nil || string(got) != encodingJSON(t, f) {
			t.Errorf("Float(%v) = %s %v, encoding/json %s", f, got, err, encodingJSON(t, f))
		}
	}
	var e Encoder
	e.Float(math.NaN())
	if _, err := e.Bytes(); err == nil {
		t.Error("NaN encoded without an error")
	}
}

func TestEncoderNesting(t *testing.T) {
	var e Encoder
	e.Open()
	e.Key(Quote("a"))
	e.Strings(nil)
	e.Key(Quote("b"))
	e.OpenArray()
	for i := range 2 {
		e.Elem()
		e.Open()
		e.Key(Quote("n"))
		e.Int(int64(i))
		e.Key(Quote("raw"))
		e.Raw(json.RawMessage("{ \"x\" : [1, 2] }"))
		e.Close()
	}
	e.CloseArray()
	e.Key(Quote("null"))
	e.Null()
	e.Close()
	got, err := e.Bytes()
	if want := `{"a":[],"b":[{"n":0,"raw":{"x":[1,2]}},{"n":1,"raw":{"x":[1,2]}}],"null":null}`; err != nil || string(got) != want {
		t.Errorf("got %s %v, want %s", got, err, want)
	}
}

// The argument errors keep the texts that clients and the docs know
// (docs/tool-results.md §3).
func TestArgumentErrors(t *testing.T) {
	decode := func(raw string) (Args, error) { return DecodeArgs(json.RawMessage(raw)) }
	for raw, want := range map[string]string{
		`[1]`:    "arguments must be a JSON object, got array",
		`"x"`:    "arguments must be a JSON object, got string",
		`{"a":`:  "arguments must be a JSON object: unexpected EOF",
		`{"a" 1`: "arguments must be a JSON object: invalid character '1' after object key",
	} {
		if _, err := decode(raw); err == nil || err.Error() != want {
			t.Errorf("DecodeArgs(%s) = %v, want %q", raw, err, want)
		}
	}
	for _, raw := range []string{``, `null`, ` null `, `{}`} {
		if a, err := decode(raw); err != nil || a.Require() != nil || a.Only() != nil {
			t.Errorf("DecodeArgs(%q) = %v", raw, err)
		}
	}
	a, _ := decode(`{"z":1,"b":2,"q":null,"s":"héllo","n":1.5,"i":1e2,"big":1e30,"e":"x"}`)
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", what, err, want)
		}
	}
	check("only", a.Only("s", "n", "i", "q", "big", "e"), "unknown argument: b")
	check("require", a.Require("s", "q"), "missing argument: q")
	if _, ok := a.Get("q"); ok {
		t.Error("an explicit null is given")
	}
	if v, ok := a.GetNullable("q"); !ok || v.Kind() != "null" {
		t.Error("a nullable null is not given")
	}
	v, _ := a.Get("s")
	_, err := v.Int()
	check("int", err, "argument s: want integer, got string")
	check("minLength", v.CheckMinLength("héllo", 6), "argument s: want at least 6 characters")
	check("minLength 1", Value{Name: "s"}.CheckMinLength("", 1), "argument s: want a non-empty string")
	v, _ = a.Get("n")
	_, err = v.Int()
	check("fraction", err, "argument n: want integer, got number")
	check("type list", v.CheckType("string", "null"), "argument n: want string or null, got number")
	check("bounds", v.CheckBounds("2", ""), "argument n: want at least 2, got 1.5")
	check("bounds", v.CheckBounds("", "0.5"), "argument n: want at most 1/2, got 1.5")
	v, _ = a.Get("i")
	if n, err := v.Int(); err != nil || n != 100 {
		t.Errorf("1e2 = %d %v", n, err)
	}
	check("max", v.AboveMaximum("10"), "argument i: want at most 10, got 1e2")
	v, _ = a.Get("big")
	_, err = v.Int()
	check("int64", err, "argument big: want at most 9223372036854775807, got 1e30")
	v, _ = a.Get("e")
	check("enum", v.NotOneOf(`"a", "b"`), `argument e: want one of "a", "b", got "x"`)
	if v.OneOf(`"a"`) || !v.OneOf(`"x"`) {
		t.Error("OneOf")
	}
	m, _ := decode(`{"files":{"b":1,"a":"ok"}}`)
	v, _ = m.Get("files")
	_, err = v.StringMap()
	check("string map", err, `argument files: the value of "b" must be a string of UTF-8 text`)
}

// notifySession records what a call sends to its session.
type notifySession struct{ ch chan mcp.JSONRPCNotification }

func (s notifySession) Initialize()                                         {}
func (s notifySession) Initialized() bool                                   { return true }
func (s notifySession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s notifySession) SessionID() string                                   { return "s1" }

// Progress reaches the calling session with the request's token, and only
// when the client asked for it.
func TestProgressGoesToTheCallingSession(t *testing.T) {
	var got *Call
	srv := mcpserver.NewMCPServer("t", "1", mcpserver.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("slow"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = New(ctx, &registry.Operation{MCP: &registry.MCP{Name: "slow", AllowlistExempt: true}}, &req)
		if err := got.Progress(1, 2, "half"); err != nil {
			t.Error(err)
		}
		return mcp.NewToolResultText("ok"), nil
	})
	session := notifySession{ch: make(chan mcp.JSONRPCNotification, 4)}
	ctx := srv.WithContext(context.Background(), session)
	srv.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"tok"}}}`))
	select {
	case n := <-session.ch:
		p := n.Params.AdditionalFields
		if n.Method != "notifications/progress" || p["progressToken"] != "tok" || p["progress"] != 1.0 || p["total"] != 2.0 || p["message"] != "half" {
			t.Errorf("notification %+v", n)
		}
	default:
		t.Fatal("no progress notification")
	}
	if got.Tool() != "slow" || !got.AllowlistExempt() || got.Context() == nil {
		t.Errorf("call %+v", got)
	}
	srv.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`))
	select {
	case n := <-session.ch:
		t.Errorf("progress without a token: %+v", n)
	default:
	}
}
