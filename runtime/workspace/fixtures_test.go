package workspace

import (
	"strings"
	"testing"
)

func TestParseFixtures(t *testing.T) {
	src := `{
  "schema_version": 1,
  "fixtures": [
    {"tool": "add", "args": {"a": 1, "b": 2.50}, "expected": 3.5},
    {"tool": "fail", "expect_error": "boom"},
    {"tool": "noargs"},
    {"resource": "docs://readme.md", "expected_body": "hi\n"},
    {"resource": "docs://other.md"}
  ]
}`
	fx, errs := ParseFixtures("f.json", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(fx.Items) != 5 {
		t.Fatalf("%d fixtures", len(fx.Items))
	}
	a := fx.Items[0]
	if a.Tool != "add" || string(a.Args) != `{"a":1,"b":2.5}` || string(a.Expected) != "3.5" || a.Pos.Line != 4 || a.Pos.Col != 5 {
		t.Errorf("fixture 0 = %+v args=%s expected=%s", a, a.Args, a.Expected)
	}
	if b := fx.Items[1]; b.ExpectError != "boom" || b.Expected != nil {
		t.Errorf("fixture 1 = %+v", b)
	}
	if c := fx.Items[2]; string(c.Args) != "{}" {
		t.Errorf("default args = %s", c.Args)
	}
	if d := fx.Items[3]; d.Resource != "docs://readme.md" || d.ExpectedBody == nil || *d.ExpectedBody != "hi\n" {
		t.Errorf("fixture 3 = %+v", d)
	}
	if e := fx.Items[4]; e.ExpectedBody != nil {
		t.Errorf("fixture 4 = %+v", e)
	}
}

func TestParseFixturesErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"syntax", "{\n  \"schema_version\": 1,\n  \"fixtures\": [,]\n}", "f.json:3:16: invalid JSON: invalid character ','"},
		{"truncated", "{\"schema_version\": 1", "f.json:1:21: invalid JSON: unexpected end of file"},
		{"version", `{"schema_version": 2, "fixtures": []}`, "f.json:1:20: schema_version: 2 is not allowed; want 1"},
		{"unknown key", "{\"schema_version\": 1, \"fixtures\": [\n {\"tool\": \"a\", \"expect\": 1}\n]}", `f.json:2:16: unknown key "expect" in fixtures[0] (did you mean expected?); allowed: args, expect_error, expected, tool`},
		{"resource key", "{\"schema_version\": 1, \"fixtures\": [\n {\"resource\": \"x://a\", \"args\": {}}\n]}", `f.json:2:24: unknown key "args" in fixtures[0]; allowed: expected_body, resource`},
		{"neither", "{\"schema_version\": 1, \"fixtures\": [\n {}\n]}", `f.json:2:2: fixtures[0]: missing required key "tool"`},
		{"args type", "{\"schema_version\": 1, \"fixtures\": [{\"tool\": \"a\", \"args\": [1]}]}", "f.json:1:58: fixtures[0].args: got array, want object"},
		{"both", "{\"schema_version\": 1, \"fixtures\": [{\"tool\": \"a\", \"expected\": 1, \"expect_error\": \"x\"}]}", "f.json:1:65: fixtures[0]: expected and expect_error exclude each other"},
		{"duplicate", "{\"schema_version\": 1, \"schema_version\": 1, \"fixtures\": []}", `f.json:1:23: duplicate key "schema_version" (first at line 1)`},
		{"trailing", `{"schema_version": 1, "fixtures": []} x`, "f.json:1:39: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := ParseFixtures("f.json", []byte(c.src))
			if len(errs) == 0 {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(errs.Error(), c.want) {
				t.Errorf("errors:\n%s\nwant one containing %q", errs, c.want)
			}
		})
	}
}

func TestLoadFixturesAbsent(t *testing.T) {
	fx, err := LoadFixtures(t.TempDir())
	if fx != nil || err != nil {
		t.Errorf("absent fixtures: %v, %v", fx, err)
	}
}
