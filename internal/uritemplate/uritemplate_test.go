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

// Scheme is the scheme a template's literal text fixes; when it fixes
// one, no URI of another scheme matches, whatever the variables hold.
func TestScheme(t *testing.T) {
	cases := []struct {
		raw, want string // want "-": no scheme is fixed
	}{
		{"notes://{id}", "notes"},
		{"NOTES://{id}", "notes"}, // schemes compare without case
		{"a:{x}", "a"},
		{"vox-mcp://examples/files/{+path}", "vox-mcp"},
		{"x+y.z-1://{a}", "x+y.z-1"},
		{"skill://{+rest}", "skill"},
		{"skill:{+rest}", "skill"},
		{"docs://guide.md", "docs"}, // a plain URI
		{"skill{+rest}", "-"},       // rest may begin with "://"
		{"{+u}", "-"},               // a catch-all
		{"{s}://x", "-"},
		{"sk{x}ill://y", "-"},
		{"1a://{x}", "-"},  // a scheme begins with a letter
		{"a b://{x}", "-"}, // and holds no space
		{"/notes/{id}", "-"},
		{":{x}", "-"},
		{"notes", "-"},
		{"", "-"},
	}
	for _, c := range cases {
		got, ok := Scheme(c.raw)
		if !ok {
			got = "-"
		}
		if got != c.want {
			t.Errorf("Scheme(%q) = %s, want %s", c.raw, got, c.want)
		}
	}
	// What a template without a fixed scheme may match: skill:// URIs.
	for _, raw := range []string{"skill{+rest}", "{+u}", "s{+k}", "{s}ill://{+rest}"} {
		tp, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if _, ok := tp.Match("skill://demo/SKILL.md"); !ok {
			t.Errorf("%s does not match skill://demo/SKILL.md: the case shows nothing", raw)
		}
	}
	// A fixed scheme is the scheme of every URI the template matches.
	for _, raw := range []string{"notes://{+id}", "a:{+x}", "x.y://{+p}"} {
		tp, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want, _ := Scheme(raw)
		matched := 0
		for _, uri := range []string{"notes://skill://x", "a:skill://x", "x.y://skill:/z", "a://b", "skill://x"} {
			if _, ok := tp.Match(uri); ok {
				matched++
				if got, _ := URIScheme(uri); got != want {
					t.Errorf("%s matches %s, whose scheme is %q, not %q", raw, uri, got, want)
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s matches none of the URIs: the check shows nothing", raw)
		}
	}
	for uri, want := range map[string]string{"skill://x": "skill", "SKILL://x": "skill", "Skill:x": "skill", " skill://x": "-", "skill//x": "-", "//skill:x": "-"} {
		got, ok := URIScheme(uri)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("URIScheme(%q) = %s, want %s", uri, got, want)
		}
	}
}
