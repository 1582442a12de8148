package ask

import (
	"strings"
	"testing"
)

// The schemas of the conformance scenarios (tools-call-elicitation,
// elicitation-sep1034-defaults, elicitation-sep1330-enums) are allowed.
func TestCheckSchemaAllows(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`,
		`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","default":true}}}`,
		`{"type":"object","properties":{"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"}]},"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"}]}}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"when":{"type":"string","format":"date","minLength":1,"maxLength":10},"n":{"type":"number","minimum":0,"maximum":1.5},"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b"]},"default":["a"]}}}`,
		`{"type":"object","properties":{}}`,
	} {
		if _, err := CheckSchema([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestCheckSchemaRefuses(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`[]`, "the schema must be a map"},
		{`{"type":"array","properties":{}}`, `the schema's type must be "object"`},
		{`{"type":"object"}`, "the schema needs properties"},
		{`{"type":"object","properties":{},"additionalProperties":false}`, `the schema: "additionalProperties" is not allowed here`},
		{`{"type":"object","properties":{"a":{"type":"object"}}}`, `property "a": type must be one of string, number, integer, boolean or array (MCP asks for primitive properties only`},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}`, `property "a": "pattern" is not allowed here`},
		{`{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`, `property "a": format must be one of email, uri, date, date-time, got "ipv4"`},
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x"],"default":"y"}}}`, `property "a": default must be one of "x", got "y"`},
		{`{"type":"object","properties":{"a":{"type":"integer","default":1.5}}}`, `property "a": default must be an int, got 1.5`},
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"enumNames":["X"]}}}`, `enumNames has 1 titles for 2 enum values`},
		{`{"type":"object","properties":{"a":{"type":"string","oneOf":[{"const":"x"}]}}}`, `option 0 must be {const: str, title: str}`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`, `items: type must be "string"`},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`, `minLength must be an int of at least 0`},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, `required names "b", which is not one of its properties (a)`},
	} {
		_, err := CheckSchema([]byte(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.schema, err, c.want)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	s, err := CheckSchema([]byte(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"pick":{"type":"array","items":{"type":"string","enum":["a","b"]}}},"required":["name"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ answer, action, content, err string }{
		{`{"action":"accept","content":{"name":"Ada","age":36,"pick":["b"]}}`, "accept", `{"name":"Ada","age":36,"pick":["b"]}`, ""},
		{`{"action":"decline"}`, "decline", `{}`, ""},
		{`{"action":"cancel","content":{"junk":1}}`, "cancel", `{}`, ""},
		{`{"action":"accept","content":{"age":1}}`, "", "", `lacks "name", which the schema requires`},
		{`{"action":"accept","content":{"name":"x","age":1.5}}`, "", "", `the client's answer for "age" is 1.5: want an int`},
		{`{"action":"accept","content":{"name":"x","pick":["c"]}}`, "", "", `want a list of "a", "b"`},
		{`{"action":"accept","content":{"name":"x","other":1}}`, "", "", `has "other", which the schema does not ask for`},
		{`{"action":"maybe"}`, "", "", `the action "maybe": want accept, decline or cancel`},
		{`{"action":"accept","content":[1]}`, "", "", `content that is a list, not a map`},
	} {
		action, content, err := CheckAnswer(s, []byte(c.answer))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.answer, err, c.err)
			}
			continue
		}
		if err != nil || action != c.action || string(content) != c.content {
			t.Errorf("%s = %q %s %v", c.answer, action, content, err)
		}
	}
}

func TestCheckReply(t *testing.T) {
	r, err := CheckReply([]byte(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`))
	if err != nil || r.Text != "hi" || r.Model != "m" || r.StopReason != "endTurn" || string(r.Content) != `{"type":"text","text":"hi"}` {
		t.Errorf("text reply = %+v, %v", r, err)
	}
	r, err = CheckReply([]byte(`{"role":"assistant","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"model":"m"}`))
	if err != nil || r.Text != "" || !strings.Contains(string(r.Content), `"image"`) {
		t.Errorf("image reply = %+v, %v", r, err)
	}
	for _, bad := range []string{`{"role":"system","content":{"type":"text","text":"x"}}`, `{"role":"assistant"}`, `{"role":"assistant","content":[]}`, `7`} {
		if _, err := CheckReply([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
