package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Allow decides whether tool may be called while the skill with id
// skillID and allowlist tools is active. An empty allowlist allows
// everything; otherwise the resolved tool name must appear in it exactly
// (case-sensitive). A denial returns the text of the error result,
// "Tool '<tool>' is not in skill '<id>' allowlist [<items>]".
//
// Allow knows nothing of exemptions: whether a tool stays callable
// whatever the allowlist says is a field of its catalog row
// (mcp.allowlist_exempt), which the server checks before asking here, so
// that no name can claim it (docs/skills.md §6).
func Allow(skillID string, tools []string, tool string) (ok bool, denial string) {
	if len(tools) == 0 || slices.Contains(tools, tool) {
		return true, ""
	}
	items := make([]string, len(tools))
	for i, t := range tools {
		items[i] = jsonString(t)
	}
	return false, fmt.Sprintf("Tool '%s' is not in skill '%s' allowlist [%s]", tool, skillID, strings.Join(items, ", "))
}

// jsonString writes s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}
