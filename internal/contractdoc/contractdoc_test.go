package contractdoc

import (
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

func TestParseJSONPositions(t *testing.T) {
	src := "{\n  \"a\": [1, 2.50, {\"b\": null}],\n\t\"c\": \"x\\u00e9\"\n}"
	d, errs := ParseJSON([]byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := string(schemajson.Compact(d.Root)); got != `{"a":[1,2.5,{"b":null}],"c":"xé"}` {
		t.Errorf("value = %s", got)
	}
	for ptr, want := range map[string]Pos{"": {1, 1}, "/a": {2, 8}, "/a/1": {2, 12}, "/a/2/b": {2, 24}, "/c": {3, 7}, "/missing": {1, 1}} {
		if got := d.Pos(ptr); got != want {
			t.Errorf("Pos(%q) = %v, want %v", ptr, got, want)
		}
	}
	if got := d.KeyPos("/c"); got != (Pos{3, 2}) {
		t.Errorf("KeyPos(/c) = %v", got)
	}
}

func TestParseJSONTooDeep(t *testing.T) {
	src := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	_, errs := ParseJSON([]byte(src))
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "nested deeper than") {
		t.Errorf("errs = %v", errs)
	}
}

func TestParseYAMLPositions(t *testing.T) {
	d, errs := ParseYAML([]byte("a:\n  - x\n  - {b: 1}\n"), "a mapping")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := d.Pos("/a/1/b"); got != (Pos{3, 9}) {
		t.Errorf("Pos = %v", got)
	}
	if got := d.KeyPos("/a/1/b"); got != (Pos{3, 6}) {
		t.Errorf("KeyPos = %v", got)
	}
}

func TestErrorsDedupe(t *testing.T) {
	es := Errors{{"b", 1, 1, "x"}, {"a", 2, 1, "y"}, {"a", 2, 1, "y"}, {"a", 1, 5, "z"}}.Dedupe()
	if got := es.Error(); got != "a:1:5: z\na:2:1: y\nb:1:1: x" {
		t.Errorf("errors = %q", got)
	}
}
