package check

import names "github.com/vox-lang/vox-mcp/internal/suggest"

// suggest is the name within maxDist of name that a typo meant, or ""
// (internal/suggest).
func suggest(name string, candidates []string, maxDist int) string {
	return names.Closest(name, candidates, maxDist)
}
