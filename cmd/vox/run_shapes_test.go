package main

import (
	"testing"
)

const shapesSrc = `type Point { x: int, y: int }

@tool "A point"
fn point(x: int) to Point { {x: x, y: x * 2} }

@tool "A wrong point"
fn bad_point() to Point { {x: 1, y: "two"} }

@tool "A picture"
fn picture() to list[Content] { [content.text("a dot"), content.image(fs.read_base64("dot.png")?, "image/png")] }

@tool "A bad picture"
fn bad_picture() to Content { content.image("AAA", "image/png") }

@tool "Text"
fn text(path: str) to str { fs.read(path)? }

@tool "Explicit input schema"
@input_schema(r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}"#)
fn positive(n: int) to int { n }
`

// TestRunResultShapes: vox run checks a result against its declared type
// and prints its JSON as the server sends it (docs/tool-results.md §2):
// a structured value, content blocks; a file that is not UTF-8 is read
// with fs.read_base64 only; an explicit input schema checks the arguments.
func TestRunResultShapes(t *testing.T) {
	root := writeFiles(t, map[string]string{"tools.vox": shapesSrc, "dot.png": "\x89PNG\xff"})
	t.Chdir(root)
	for _, tc := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"run", "tools.vox", "point", "--args", `{"x":2}`}, 0, `{"x":2,"y":4}` + "\n", noConfig},
		{[]string{"run", "tools.vox", "picture"}, 0, `[{"type":"text","text":"a dot"},{"type":"image","data":"iVBOR/8=","mimeType":"image/png"}]` + "\n", noConfig},
		{[]string{"run", "tools.vox", "bad_point"}, 1, "", noConfig + "tools.vox:7:19: the result does not match its declared type Point: result.y: want int, got string\n"},
		{[]string{"run", "tools.vox", "bad_picture"}, 1, "", noConfig + "tools.vox:13:65: content.image: not base64: its length 3 is not a multiple of 4 (standard base64 is padded with =)\n"},
		{[]string{"run", "tools.vox", "text", "--args", `{"path":"dot.png"}`}, 1, "", noConfig + "dot.png: not valid UTF-8 (fs.read_base64 reads any file as base64)\n"},
		{[]string{"run", "tools.vox", "positive", "--args", `{"n":0}`}, 1, "", noConfig + "arguments do not match the tool's input schema: at '/n': minimum: got 0, want 1\n"},
	} {
		code, out, errOut := vox(t, tc.args...)
		if code != tc.code || out != tc.out || errOut != tc.err {
			t.Errorf("%v: exit %d stdout %q stderr %q\nwant exit %d stdout %q stderr %q", tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
}
