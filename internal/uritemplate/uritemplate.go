// Package uritemplate parses and matches the URI templates of workspace
// resources (docs/vox-language.md, Resources with URI parameters): RFC
// 6570 level 1 and the reserved expansion of level 2 only — {name} and
// {+name}, one variable an expression. Matching is the reverse of
// expansion: a URI matches when its literal parts are the template's and
// each variable's text is a non-empty run of the characters its expansion
// can produce; the values are percent-decoded. A {name} value is made of
// unreserved characters and percent escapes, a {+name} value may also
// hold reserved ones (':', '/', '?', ...). These sets are subsets of what
// mcp-go's template matcher (github.com/yosida95/uritemplate) accepts, so
// a URI matched here is one mcp-go dispatches to a registered template.
package uritemplate

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Variable is one variable of a template.
type Variable struct {
	Name     string
	Reserved bool // {+name}: the value may hold reserved characters such as '/'
	Offset   int  // byte offset of its '{' in the template
}

// Template is a parsed URI template.
type Template struct {
	Raw       string
	Variables []Variable
	re        *regexp.Regexp
}

// Error is a malformed template: Offset is the byte offset in the
// template where the problem is, Hint says what is allowed.
type Error struct {
	Offset  int
	Message string
	Hint    string
}

func (e *Error) Error() string { return e.Message }

// IsTemplate reports whether raw has an expression, i.e. is meant as a
// template rather than a plain URI.
func IsTemplate(raw string) bool { return strings.ContainsAny(raw, "{}") }

const (
	unreserved = `A-Za-z0-9\-._~`
	reserved   = `:/?#\[\]@!$&'()*+,;=`
	hint       = "write each variable as {name} (a value without '/' and other reserved characters) or {+name} (a value that may hold them); names are letters, digits and '_'"
)

// Parse parses raw. Only {name} and {+name} are accepted: other RFC 6570
// operators, lists of variables and modifiers are an *Error, and so are
// a repeated name, an unclosed or stray brace and two variables side by
// side (their boundary would be ambiguous).
func Parse(raw string) (*Template, error) {
	t := &Template{Raw: raw}
	var pattern strings.Builder
	pattern.WriteByte('^')
	seen := map[string]bool{}
	lastEnd := -1 // end offset of the previous expression
	for i := 0; i < len(raw); {
		switch raw[i] {
		case '}':
			return nil, &Error{Offset: i, Message: "unmatched '}' in the URI template", Hint: hint}
		case '{':
		default:
			j := strings.IndexAny(raw[i:], "{}")
			if j < 0 {
				j = len(raw) - i
			}
			pattern.WriteString(regexp.QuoteMeta(raw[i : i+j]))
			i += j
			continue
		}
		end := strings.IndexByte(raw[i:], '}')
		if end < 0 {
			return nil, &Error{Offset: i, Message: "unclosed '{' in the URI template", Hint: hint}
		}
		body := raw[i+1 : i+end]
		v := Variable{Offset: i}
		if strings.HasPrefix(body, "+") {
			v.Reserved, body = true, body[1:]
		}
		switch {
		case body == "":
			return nil, &Error{Offset: i, Message: "empty expression in the URI template", Hint: hint}
		case strings.ContainsAny(body[:1], "#./;?&=,!@|"):
			return nil, &Error{Offset: i, Message: fmt.Sprintf("the URI template operator %q is not supported", body[:1]), Hint: hint}
		case strings.ContainsAny(body, ",:*"):
			return nil, &Error{Offset: i, Message: fmt.Sprintf("{%s} is not supported: one variable an expression, without modifiers", raw[i+1:i+end]), Hint: hint}
		case !validName(body):
			return nil, &Error{Offset: i, Message: fmt.Sprintf("invalid variable name %q in the URI template", body), Hint: hint}
		case seen[body]:
			return nil, &Error{Offset: i, Message: fmt.Sprintf("variable %s appears twice in the URI template", body), Hint: "use each variable once"}
		case lastEnd == i:
			return nil, &Error{Offset: i, Message: fmt.Sprintf("variable %s follows another variable directly: where one value ends would be ambiguous", body), Hint: "put literal text such as '/' between two variables"}
		}
		seen[body] = true
		v.Name = body
		t.Variables = append(t.Variables, v)
		class := unreserved
		if v.Reserved {
			class += reserved
		}
		pattern.WriteString(`((?:[` + class + `]|%[0-9A-Fa-f]{2})+)`)
		i += end + 1
		lastEnd = i
	}
	pattern.WriteByte('$')
	t.re = regexp.MustCompile(pattern.String())
	return t, nil
}

// validName reports whether name is a variable name of this subset:
// ASCII letters, digits and '_' (RFC 6570 also allows '.' and percent
// escapes, which no Vox parameter name can match).
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}

// Match reports whether uri is an expansion of the template and returns
// the percent-decoded value of each variable. A value that does not
// decode to UTF-8 text does not match, and neither does a {name} value
// that decodes to a path separator ('/' or '\\', written %2F or %5C):
// authors take {name} for one path segment (fs.read("notes/" + id)), so
// a separator smuggled in encoded would reach other folders; {+name} is
// the variable for paths.
func (t *Template) Match(uri string) (map[string]string, bool) {
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vals := make(map[string]string, len(t.Variables))
	for i, v := range t.Variables {
		s, err := url.PathUnescape(m[i+1])
		if err != nil || !utf8.ValidString(s) || !v.Reserved && strings.ContainsAny(s, `/\`) {
			return nil, false
		}
		vals[v.Name] = s
	}
	return vals, true
}

// Scheme returns the URI scheme, lower-cased, that every URI matching
// raw — a template or a plain URI — begins with, and false when raw's
// literal text does not fix one. It is fixed when the text before the
// first expression holds a ':' and what precedes that ':' is an RFC 3986
// scheme (a letter, then letters, digits, '+', '-' and '.'): Match
// compares literal text byte for byte, and a scheme holds no ':', so every
// URI that matches starts with that scheme and its ':'. A template that
// starts with an expression ({+u}) or whose first ':' comes after one
// (skill{+rest}, whose rest may be "://x") fixes none: it may match URIs
// of any scheme. Schemes compare without case (RFC 3986 §3.1), hence the
// lower case.
func Scheme(raw string) (string, bool) {
	literal := raw
	if i := strings.IndexAny(raw, "{}"); i >= 0 {
		literal = raw[:i]
	}
	return schemeOf(literal)
}

// URIScheme returns the scheme of uri, lower-cased: the text before its
// first ':' when that is an RFC 3986 scheme; false otherwise (a relative
// reference, or text that is no URI).
func URIScheme(uri string) (string, bool) { return schemeOf(uri) }

func schemeOf(s string) (string, bool) {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return "", false
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(s[:colon]), true
}
