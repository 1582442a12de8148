package check

import names "github.com/vox-lang/vox-mcp/runtime/suggest"

// suggest is the name within maxDist of name that a typo meant, or ""
// (runtime/suggest).
func suggest(name string, candidates []string, maxDist int) string {
	return names.Closest(name, candidates, maxDist)
}
