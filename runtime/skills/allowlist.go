package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// IsInfrastructureTool reports whether a tool stays callable whatever the
// active skill allows: the skill tools themselves (so a skill can always be
// cleared), the workspace refresh, tool search, and the vox_chat_ prefix
// the reference system exempts.
func IsInfrastructureTool(name string) bool {
	switch {
	case strings.HasPrefix(name, "vox_skill_"), strings.HasPrefix(name, "vox_chat_"):
		return true
	}
	return name == "vox_workspace_mcp_refresh" || name == "vox_tool_search"
}

// Allow decides whether tool may be called while the skill with id
// skillID and allowlist tools is active. An empty allowlist allows
// everything; otherwise the resolved tool name must appear in it exactly
// (case-sensitive), unless it is an infrastructure tool. A denial returns
// the text of the error result, "Tool '<tool>' is not in skill '<id>'
// allowlist [<items>]".
func Allow(skillID string, tools []string, tool string) (ok bool, denial string) {
	if len(tools) == 0 || IsInfrastructureTool(tool) || slices.Contains(tools, tool) {
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
