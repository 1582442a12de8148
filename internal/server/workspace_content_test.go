package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const contentVox = `type Point { x: int, y: int, label: Option[str] }
type Segment { start: Point, end: Point }

@tool "A picture and its caption"
fn picture(caption: str) to list[Content] {
    [content.text(caption), content.image(fs.read_base64("pixel.png")?, "image/png"),
     content.audio("UklGRg==", "audio/wav"), content.resource("test://doc", "some text"),
     content.resource("test://blob", "AAEC", "application/octet-stream"),
     content.resource_link("test://doc", "doc", "The doc", "text/plain")]
}

@tool "One block"
fn caption() to Content { content.text("just this") }

@tool "A block written as a map with bad base64"
fn broken() to Content { {type: "image", data: "!!!!", mimeType: "image/png"} }

@tool "A segment"
fn segment(label: str = "") to Segment {
    let end = Point { x: 3, y: 4 }
    if label != "" { end.label = Some(label) }
    Segment { start: Point { x: 0, y: 0 }, end: end }
}

@tool "A segment that lies about its type"
fn liar() to Segment { {start: {x: 0, y: 0}, end: {x: "three", y: 4}} }

@tool "Counts by word"
fn counts(text: str) to Result[map[str, int], str] {
    let m = {}
    for w in text.split() { m[w] = m.get(w, 0) + 1 }
    Ok(m)
}

@tool "A string stays as it was"
fn hello() to str { "hi" }

@resource("test://static-binary", "A PNG", "image/png")
fn pixel() to str { fs.read_base64("pixel.png")? }

@resource("test://not-base64", "Not base64", "image/png")
fn notBase64() to str { "plain text" }
`

// pixelPNG is a PNG signature and a few bytes that are not UTF-8.
var pixelPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0xff, 0xfe}

// TestWorkspaceRichResults calls tools of every result shape over the
// MCP wire (docs/tool-results.md §2) and validates each structured result
// against the tool's listed outputSchema with a JSON Schema 2020-12
// validator.
func TestWorkspaceRichResults(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/rich.vox": contentVox, "pixel.png": string(pixelPNG)})
	tools := listedTools(t, s)
	pixel := base64.StdEncoding.EncodeToString(pixelPNG)

	res := callTool(t, s, "picture", `{"caption":"a pixel"}`)["result"].(map[string]any)
	got, _ := json.Marshal(res)
	want := `{"content":[{"type":"text","text":"a pixel"},{"type":"image","data":"` + pixel + `","mimeType":"image/png"},` +
		`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},` +
		`{"type":"resource","resource":{"uri":"test://doc","mimeType":"text/plain","text":"some text"}},` +
		`{"type":"resource","resource":{"uri":"test://blob","mimeType":"application/octet-stream","blob":"AAEC"}},` +
		`{"type":"resource_link","uri":"test://doc","name":"doc","description":"The doc","mimeType":"text/plain"}]}`
	if string(got) != canonical(want) {
		t.Errorf("picture =\n%s\nwant\n%s", got, want)
	}
	if _, ok := tools["picture"]["outputSchema"]; ok {
		t.Error("a content tool declares an outputSchema")
	}
	got, _ = json.Marshal(callTool(t, s, "caption", `{}`)["result"])
	if string(got) != canonical(`{"content":[{"type":"text","text":"just this"}]}`) {
		t.Errorf("caption = %s", got)
	}
	text, isErr, _ := toolResult(t, callTool(t, s, "broken", `{}`))
	if !isErr || !strings.HasPrefix(text, "tools/rich.vox:16:16: the result is not valid content: not base64: illegal base64 data at input byte 0") {
		t.Errorf("broken = %v %q", isErr, text)
	}

	for _, c := range []struct{ tool, args, want string }{
		{"segment", `{}`, `{"start":{"x":0,"y":0,"label":null},"end":{"x":3,"y":4,"label":null}}`},
		{"segment", `{"label":"end"}`, `{"start":{"x":0,"y":0,"label":null},"end":{"x":3,"y":4,"label":"end"}}`},
		{"counts", `{"text":"a b a"}`, `{"a":2,"b":1}`},
	} {
		text, isErr, structured := toolResult(t, callTool(t, s, c.tool, c.args))
		sc, _ := json.Marshal(structured)
		if isErr || text != c.want || string(sc) != canonical(c.want) {
			t.Errorf("%s %s = %v %q %s, want %s as text and structuredContent", c.tool, c.args, isErr, text, sc, c.want)
			continue
		}
		out, _ := json.Marshal(tools[c.tool]["outputSchema"])
		validate(t, c.tool, out, sc)
	}
	text, isErr, structured := toolResult(t, callTool(t, s, "liar", `{}`))
	if !isErr || structured != nil || text != "tools/rich.vox:26:14: the result does not match its declared type Segment: result.end.x: want int, got string" {
		t.Errorf("liar = %v %q %v", isErr, text, structured)
	}
	// A string result is its text, and structuredContent {"result": ...},
	// which the wrapped outputSchema describes.
	text, _, structured = toolResult(t, callTool(t, s, "hello", `{}`))
	sc, _ := json.Marshal(structured)
	if text != "hi" || string(sc) != `{"result":"hi"}` {
		t.Errorf("hello = %q %s", text, sc)
	}
	out, _ := json.Marshal(tools["hello"]["outputSchema"])
	if string(out) != `{"properties":{"result":{"type":"string"}},"required":["result"],"type":"object","x-vox-wrap-result":true}` {
		t.Errorf("hello's outputSchema = %s", out)
	}
	validate(t, "hello", out, sc)

	read := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://static-binary"}}`)
	got, _ = json.Marshal(read["result"])
	if string(got) != canonical(`{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"`+pixel+`"}]}`) {
		t.Errorf("static-binary = %s", got)
	}
	read = rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://not-base64"}}`)
	if msg, _ := read["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "resource test://not-base64 has the MIME type image/png, which is not text, so notBase64 must return its body as base64") {
		t.Errorf("not-base64 = %v", read)
	}
}

// canonical is JSON text as rpc's generic decoding writes it back: object
// keys sorted.
func canonical(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// validate checks instance against schema with a JSON Schema 2020-12
// validator.
func validate(t *testing.T, name string, schema, instance []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: outputSchema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///"+name+".json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///" + name + ".json")
	if err != nil {
		t.Fatalf("%s: outputSchema does not compile: %v\n%s", name, err, schema)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s: structuredContent %s does not match its outputSchema %s: %v", name, instance, schema, err)
	}
}

const inputSchemaVox = `type Address { street: Option[str], city: Option[str] }

@tool "Tool with JSON Schema 2020-12 features"
@input_schema(r##"{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": false
}"##)
fn json_schema_2020_12_tool(name: Option[str], address: Option[Address]) to str {
    "hello " + name.unwrap_or("nobody")
}
`

// TestWorkspaceExplicitInputSchema: a tool's @input_schema is listed as
// written — $schema, $defs and additionalProperties kept — and its calls
// are checked against it over the wire.
func TestWorkspaceExplicitInputSchema(t *testing.T) {
	s := workspaceServer(t, Options{WorkspaceTools: true}, map[string]string{"tools/schema.vox": inputSchemaVox})
	got, _ := json.Marshal(listedTools(t, s)["json_schema_2020_12_tool"]["inputSchema"])
	want := canonical(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`)
	if string(got) != want {
		t.Errorf("inputSchema = %s\nwant %s", got, want)
	}
	if text, isErr, _ := toolResult(t, callTool(t, s, "json_schema_2020_12_tool", `{"name":"Ada","address":{"city":"Oslo"}}`)); isErr || text != "hello Ada" {
		t.Errorf("call = %v %q", isErr, text)
	}
	text, isErr, _ := toolResult(t, callTool(t, s, "json_schema_2020_12_tool", `{"address":{"city":7}}`))
	if !isErr || text != "arguments do not match the tool's input schema: at '/address/city': got number, want string" {
		t.Errorf("bad call = %v %q", isErr, text)
	}
}
