package uritemplate

import (
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// Match is the reverse of expansion: literals must be equal, {name}
// values are unreserved characters or escapes, {+name} values may hold
// reserved ones; values are decoded.
func TestMatch(t *testing.T) {
	cases := []struct {
		template, uri string
		want          string // fmt of the values; "-" when it does not match
	}{
		{"notes://{id}", "notes://abc", "map[id:abc]"},
		{"notes://{id}", "notes://a%20b", "map[id:a b]"},
		{"notes://{id}", "notes://a/b", "-"},
		{"notes://{id}", "notes://..%2Fsecret", "-"}, // no separator, even encoded
		{"notes://{id}", "notes://..%5csecret", "-"},
		{"files://{+path}", "files://a%2Fb", "map[path:a/b]"},
		{"notes://{id}", "notes://", "-"},
		{"notes://{id}", "notes://a b", "-"},
		{"notes://{id}", "notes://%ff", "-"}, // not UTF-8
		{"notes://{id}", "notes://%zz", "-"},
		{"notes://{id}", "NOTES://abc", "-"},
		{"notes://{id}", "notes://abc?x", "-"},
		{"files://{+path}", "files://a/b/c.md", "map[path:a/b/c.md]"},
		{"test://template/{id}/data", "test://template/123/data", "map[id:123]"},
		{"test://template/{id}/data", "test://template/1/2/data", "-"},
		{"a://{x}.{y}", "a://1.2.3", "map[x:1.2 y:3]"}, // the earlier variable takes the longest value
		{"a://{name}.json", "a://v1.2.json", "map[name:v1.2]"},
		{"a://x.y", "a://xzy", "-"}, // literals are not patterns
	}
	for _, c := range cases {
		tp, err := Parse(c.template)
		if err != nil {
			t.Fatalf("%s: %v", c.template, err)
		}
		vals, ok := tp.Match(c.uri)
		got := "-"
		if ok {
			got = fmt.Sprint(vals)
		}
		if got != c.want {
			t.Errorf("%s matching %q: %s, want %s", c.template, c.uri, got, c.want)
		}
		// What matches here is dispatched by mcp-go to the template
		// (package comment): its matcher must accept it too.
		if ok && !mcp.NewResourceTemplate(c.template, "t").URITemplate.Regexp().MatchString(c.uri) {
			t.Errorf("%s matches %q here but not in mcp-go", c.template, c.uri)
		}
	}
}

// Parse accepts {name} and {+name} only, with the offset of the problem.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		template string
		offset   int
	}{
		{"a://{?q}", 4}, {"a://{/p}", 4}, {"a://{#f}", 4}, {"a://{x,y}", 4}, {"a://{x:3}", 4}, {"a://{x*}", 4},
		{"a://{}", 4}, {"a://{+}", 4}, {"a://{x", 4}, {"a://x}", 5}, {"a://{x}/{x}", 8}, {"a://{x}{y}", 7}, {"a://{a-b}", 4},
	}
	for _, c := range cases {
		_, err := Parse(c.template)
		e, ok := err.(*Error)
		if !ok || e.Offset != c.offset || e.Hint == "" {
			t.Errorf("%s: %v, want an error at %d with a hint", c.template, err, c.offset)
		}
	}
	if IsTemplate("a://b") || !IsTemplate("a://{b}") {
		t.Error("IsTemplate")
	}
}
