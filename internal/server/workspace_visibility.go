package server

import (
	"log/slog"
	"strings"
)

// WorkspaceToolsAdvertised decides whether tools/list advertises workspace
// tools (docs/federation.md §2). They are advertised with the server flag
// --workspace-tools (flag), with VOX_MCP_WORKSPACE_TOOLS=1/true/yes, or
// through the deprecated VOX_MCP_TIERS when its comma-separated list holds
// "workspace" or "all"; the flag or an enabling VOX_MCP_WORKSPACE_TOOLS
// wins. Any use of VOX_MCP_TIERS logs one deprecation warning naming
// VOX_MCP_WORKSPACE_TOOLS; an unrecognised VOX_MCP_WORKSPACE_TOOLS value
// logs a warning and counts as disabled. lookup is os.LookupEnv in the
// server; tests pass their own.
func WorkspaceToolsAdvertised(flag bool, lookup func(string) (string, bool), log *slog.Logger) bool {
	enabled := flag
	if v, ok := lookup("VOX_MCP_WORKSPACE_TOOLS"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes":
			enabled = true
		case "", "0", "false", "no":
		default:
			log.Warn("VOX_MCP_WORKSPACE_TOOLS has an unrecognised value; workspace tools stay unadvertised (use 1, true or yes to advertise them)", "value", v)
		}
	}
	if v, ok := lookup("VOX_MCP_TIERS"); ok {
		log.Warn("VOX_MCP_TIERS is deprecated: set VOX_MCP_WORKSPACE_TOOLS=1 (or pass --workspace-tools) to advertise workspace tools in tools/list", "VOX_MCP_TIERS", v)
		for _, item := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(item)) {
			case "workspace", "all":
				enabled = true
			}
		}
	}
	return enabled
}
