package schemajson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaCanonicalOrder(t *testing.T) {
	in := `{"type":"object","required":["b","a"],"properties":{"zeta":{"type":"string","description":"<z> & \"q\""},"alpha":{"type":"object","properties":{"y":{"type":"integer","minimum":1.0},"x":{}},"default":{"b":1,"a":[2.50,1e2]}}},"additionalProperties":false,"$defs":{"b":{"type":"null"},"a":{"type":"boolean"}},"anyOf":[{"type":"string","minLength":1},{"properties":{"q":{},"p":{}}}]}`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Schema(v))
	want := `{"$defs":{"a":{"type":"boolean"},"b":{"type":"null"}},"additionalProperties":false,"anyOf":[{"minLength":1,"type":"string"},{"properties":{"q":{},"p":{}}}],"properties":{"zeta":{"description":"<z> & \"q\"","type":"string"},"alpha":{"default":{"a":[2.5,100],"b":1},"properties":{"y":{"minimum":1,"type":"integer"},"x":{}},"type":"object"}},"required":["b","a"],"type":"object"}`
	if got != want {
		t.Fatalf("canonical schema:\n got %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Fatal("output is not valid JSON")
	}
}

func TestNumbers(t *testing.T) {
	for lit, want := range map[string]string{
		"12": "12", "-0": "0", "1.0": "1", "1e3": "1000", "+7": "7", "0.5": "0.5",
		"123456789012345678901234567890": "123456789012345678901234567890",
		"1.5e300":                        "1.5e+300", "-2.25": "-2.25",
	} {
		v, err := NumberValue(lit)
		if err != nil {
			t.Errorf("%s: %v", lit, err)
			continue
		}
		if v.Text != want {
			t.Errorf("NumberValue(%s) = %s, want %s", lit, v.Text, want)
		}
	}
	if _, err := NumberValue("abc"); err == nil {
		t.Error("NumberValue(abc) succeeded")
	}
}

func TestStringEscapes(t *testing.T) {
	v := StringValue("a\x01\n\t\"\\<>&\u2028\xff")
	got := string(Canonical(v))
	want := `"a\u0001\n\t\"\\<>&\u2028\ufffd"`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{`{"a":1,"a":2}`, `[1,2`, `{} {}`, ``} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
	deep := make([]byte, 0, 2000)
	for range 600 {
		deep = append(deep, '[')
	}
	for range 600 {
		deep = append(deep, ']')
	}
	if _, err := Parse(deep); err == nil {
		t.Error("Parse of 600 nested arrays succeeded")
	}
}

func TestCompactKeepsOrder(t *testing.T) {
	v, _ := Parse([]byte(`{"b":1,"a":{"d":null,"c":true}}`))
	if got := string(Compact(v)); got != `{"b":1,"a":{"d":null,"c":true}}` {
		t.Fatal(got)
	}
	if got := string(Canonical(v)); got != `{"a":{"c":true,"d":null},"b":1}` {
		t.Fatal(got)
	}
}

func TestWriteStringMatchesAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "é ü 漢字",
		"bad \xff utf8 \xc3", "\u2028 and \u2029", "<>&", strings.Repeat("long ", 100) + "\x02"} {
		var b strings.Builder
		WriteString(&b, s)
		if got, want := b.String(), string(AppendString([]byte("x"), s)[1:]); got != want {
			t.Errorf("%q: WriteString %s, AppendString %s", s, got, want)
		}
		enc, _ := json.Marshal(s)
		if s == "<>&" || strings.ContainsAny(s, "\xff\xc3") {
			continue // encoding/json escapes HTML; invalid UTF-8 is compared above only
		}
		if b.String() != string(enc) {
			t.Errorf("%q: %s, encoding/json %s", s, b.String(), enc)
		}
	}
}
