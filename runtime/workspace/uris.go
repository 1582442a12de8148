package workspace

import (
	"github.com/vox-lang/vox-mcp/internal/uritemplate"
)

// reservedSchemes are the URI schemes of the resources the server serves
// itself, with what it serves under each: a resources/read, subscribe or
// completion of a URI in one of them is routed to the server's own
// resources by its scheme and never reaches the workspace, whatever the
// role (ReservedURI); a workspace resource may not be able to match one
// (ResourceURIProblem). A scheme the server starts serving joins this table
// (docs/federation.md §5).
var reservedSchemes = map[string]string{
	"skill": "installed skills",
}

// ReservedURI reports whether uri is in a reserved scheme (compared
// without case, as RFC 3986 §3.1 compares schemes): its read goes to the
// server's own resources, never to a workspace function.
func ReservedURI(uri string) bool {
	scheme, ok := uritemplate.URIScheme(uri)
	_, reserved := reservedSchemes[scheme]
	return ok && reserved
}

// ResourceURIProblem is the load rule of a workspace resource's URI, plain
// or template (docs/federation.md §1.3): it begins with a literal
// "scheme:" — before any {variable} — whose scheme is not reserved. Only
// then is it decidable from the declaration alone that no URI it matches
// is in a reserved scheme (uritemplate.Scheme), so that routing by the
// scheme and matching the templates can never disagree. It returns what
// is wrong, to follow the URI in the error, or "" when it may be served.
func ResourceURIProblem(uri string) string {
	scheme, ok := uritemplate.Scheme(uri)
	if !ok {
		return "does not begin with a literal scheme, so it could match URIs of the schemes the server serves itself: " +
			"begin it with scheme: before any {variable}, the scheme a letter then letters, digits, '+', '-' or '.', such as notes://{id}"
	}
	if what, reserved := reservedSchemes[scheme]; reserved {
		return "uses the reserved scheme " + scheme + ": (the server serves " + what + " under it): choose another scheme"
	}
	return ""
}

// newTemplate parses the URI template of a resource with variables (nil
// for a plain URI); the checker accepted it, so it parses.
func newTemplate(uri string, vars []string) *uritemplate.Template {
	if len(vars) == 0 {
		return nil
	}
	t, err := uritemplate.Parse(uri)
	if err != nil {
		return nil
	}
	return t
}

// MatchResource returns the template resource that uri expands, in scan
// order (the first declared wins a URI two templates match), and the
// decoded value of each variable. A URI in a reserved scheme matches
// none: the load refuses templates that could match one, and a surface
// that was not loaded by this rule (a cache, a snapshot) is held to the
// routing all the same.
func (s *Surface) MatchResource(uri string) (*Resource, map[string]string, bool) {
	if s == nil || ReservedURI(uri) {
		return nil, nil, false
	}
	for _, r := range s.Resources {
		if r.template == nil {
			continue
		}
		if vars, ok := r.template.Match(uri); ok {
			return r, vars, true
		}
	}
	return nil, nil, false
}

// Resource returns the resource with the given URI (for a template, its
// template text); none in a reserved scheme, as MatchResource.
func (s *Surface) Resource(uri string) (*Resource, bool) {
	if s == nil || ReservedURI(uri) {
		return nil, false
	}
	r, ok := s.resources[uri]
	return r, ok
}
