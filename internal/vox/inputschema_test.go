package vox

import (
	"context"
	"errors"
	"testing"
)

const inputSchemaSrc = `type Address { street: Option[str], city: Option[str] }

@tool "Tool with JSON Schema 2020-12 features"
@input_schema(r##"{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string", "minLength": 2}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": false
}"##)
fn visit(name: Option[str], address: Option[Address]) to str {
    name.unwrap_or("nobody") + " in " + address.map(a => a.city.unwrap_or("?")).unwrap_or("-")
}
`

// TestInputSchemaCalls: a call of a tool with an explicit input schema is
// checked against the schema by a JSON Schema validator, then against the
// parameter types, which still bind the values.
func TestInputSchemaCalls(t *testing.T) {
	m := Compile("is.vox", []byte(inputSchemaSrc))
	if m.HasErrors() {
		t.Fatal(m.Diagnostics())
	}
	for _, c := range []struct{ args, want, err string }{
		{`{}`, `"nobody in -"`, ""},
		{``, `"nobody in -"`, ""},
		{`{"name":"Ada","address":{"city":"Oslo"}}`, `"Ada in Oslo"`, ""},
		{`{"name":"A"}`, "", "arguments do not match the tool's input schema: at '/name': minLength: got 1, want 2"},
		{`{"address":{"street":1}}`, "", "arguments do not match the tool's input schema: at '/address/street': got number, want string"},
		{`{"zip":"x"}`, "", "arguments do not match the tool's input schema: additional properties 'zip' not allowed"},
		// The schema lets the address have other members; the record
		// type does not, and both are checked.
		{`{"address":{"zip":"x"}}`, "", "argument address: Address has no field zip"},
		// What the interpreter's decoder refuses fails with its message.
		{`[1]`, "", "arguments must be a JSON object, got array"},
		{`{"name":`, "", "invalid JSON arguments: unexpected end of JSON input at offset 8"},
	} {
		res, err := m.Call(context.Background(), "visit", []byte(c.args), nil)
		if c.err != "" {
			var e *Error
			if !errors.As(err, &e) || e.Kind != ArgumentError || e.Message != c.err {
				t.Errorf("visit %s: err = %v, want the argument error %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || string(res.JSON) != c.want {
			t.Errorf("visit %s = %s, %v; want %s", c.args, res.JSON, err, c.want)
		}
	}
}
