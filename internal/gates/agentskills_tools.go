package gates

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// The tool names a skill lists (metadata.vox-tools) are checked against
// the tools the server would provide: a name that neither a catalog tool
// nor a workspace tool provides becomes an instruction-only macro tool of
// the skill, which is what a typo silently turns into. The gate warns
// about each such name and suggests the nearest tool name.

// knownTools is the catalog's tool names and the workspace's, for the
// tool check of agentskills-compliance.
type knownTools struct {
	catalog   map[string]bool
	workspace map[string]bool
	names     []string // both, sorted, for suggestions
}

// loadKnownTools loads the workspace surface at root as the server would
// and joins its tool names with the catalog's. ok is false, with the
// reason, when the workspace cannot be loaded (its scan config is
// invalid): then only the catalog's names are known, and the check is
// left out rather than warn about every workspace tool.
func loadKnownTools(root string, catalog []string) (k *knownTools, why string) {
	k = &knownTools{catalog: map[string]bool{}, workspace: map[string]bool{}}
	for _, n := range catalog {
		k.catalog[n] = true
	}
	surface, err := (&workspace.Loader{Root: root, Shadows: func(n string) bool { return k.catalog[n] }}).Load()
	if err != nil {
		var errs contractdoc.Errors
		if errors.As(err, &errs) && len(errs) > 0 {
			return nil, errs[0].Error()
		}
		return nil, err.Error()
	}
	for _, t := range surface.Tools() {
		k.workspace[t.Name] = true
	}
	for n := range k.catalog {
		k.names = append(k.names, n)
	}
	for n := range k.workspace {
		if !k.catalog[n] {
			k.names = append(k.names, n)
		}
	}
	slices.Sort(k.names)
	return k, ""
}

// checkTools warns about each tool of the skill's manifest that no
// catalog or workspace tool provides, at the position of the list.
func (c *skillChecker) checkTools(data []byte, fm *skills.FrontMatter, at func(int, int) Problem) {
	if c.tools == nil {
		return
	}
	sk, _, err := skills.Parse(data)
	if err != nil {
		return // the front matter problems are reported already
	}
	c.warnUnknownTools(sk, fm, at)
}

// warnUnknownTools is the check of checkTools on a parsed skill.
func (c *skillChecker) warnUnknownTools(sk *skills.Skill, fm *skills.FrontMatter, at func(int, int) Problem) {
	if c.tools == nil {
		return
	}
	line, col := toolsPosition(fm)
	for _, name := range sk.Tools {
		if c.tools.catalog[name] || c.tools.workspace[name] {
			continue
		}
		consequence := "vox-mcp serves it as an instruction-only macro tool of this skill"
		if !skills.ValidToolName(name) {
			consequence = "it is not a valid MCP tool name either, so nothing serves it"
		}
		hint := ""
		if near := nearest(name, c.tools.names); near != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		c.report.Warnf(at(line, col), "metadata.vox-tools lists %q, which neither a catalog tool nor a workspace tool provides: %s%s", name, consequence, hint)
	}
}

// toolsPosition is where the skill's tool list is written: the value of
// metadata.vox-tools, else of the top-level tools.
func toolsPosition(fm *skills.FrontMatter) (line, col int) {
	if meta, ok := fm.Get("metadata"); ok && meta.Value.Kind == skills.KindMap {
		if f, ok := meta.Value.Get("vox-tools"); ok {
			return f.Value.Line, f.Value.Col
		}
	}
	if f, ok := fm.Get("tools"); ok {
		return f.Value.Line, f.Value.Col
	}
	return 0, 0
}

// nearest returns the name within a small edit distance of name (at most
// 2, and less than a third of its length), the closest first, or "".
func nearest(name string, names []string) string {
	best, bestD := "", 3
	limit := max(1, len(name)/3)
	for _, n := range names {
		if d := editDistance(strings.ToLower(name), strings.ToLower(n), bestD); d < bestD && d <= limit {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or bound when it
// is at least bound (which ends the computation early).
func editDistance(a, b string, bound int) int {
	if d := len(a) - len(b); d >= bound || -d >= bound {
		return bound
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= bound {
			return bound
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], bound)
}
