package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestWorkspaceToolsAdvertised(t *testing.T) {
	cases := []struct {
		name     string
		flag     bool
		env      map[string]string
		want     bool
		warnings []string // substrings, one per expected warning line
	}{
		{"nothing", false, nil, false, nil},
		{"flag", true, nil, true, nil},
		{"env 1", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "1"}, true, nil},
		{"env TRUE", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": " TRUE "}, true, nil},
		{"env Yes", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "Yes"}, true, nil},
		{"env empty", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": ""}, false, nil},
		{"env no", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "no"}, false, nil},
		{"env 0 with flag", true, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "0"}, true, nil},
		{"env bad", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "on"}, false, []string{"VOX_MCP_WORKSPACE_TOOLS has an unrecognised value"}},
		{"tiers workspace", false, map[string]string{"VOX_MCP_TIERS": "core, Workspace"}, true, []string{"VOX_MCP_TIERS is deprecated: set VOX_MCP_WORKSPACE_TOOLS=1"}},
		{"tiers all", false, map[string]string{"VOX_MCP_TIERS": "ALL"}, true, []string{"VOX_MCP_TIERS is deprecated"}},
		{"tiers core", false, map[string]string{"VOX_MCP_TIERS": "core,dev"}, false, []string{"VOX_MCP_TIERS is deprecated"}},
		{"tiers empty", false, map[string]string{"VOX_MCP_TIERS": ""}, false, []string{"VOX_MCP_TIERS is deprecated"}},
		{"enabling env wins over tiers", false, map[string]string{"VOX_MCP_WORKSPACE_TOOLS": "1", "VOX_MCP_TIERS": "core"}, true, []string{"VOX_MCP_TIERS is deprecated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			if got := WorkspaceToolsAdvertised(c.flag, lookup, log); got != c.want {
				t.Errorf("advertised = %v, want %v", got, c.want)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if buf.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(c.warnings) {
				t.Fatalf("log lines:\n%s\nwant %d warning(s)", buf.String(), len(c.warnings))
			}
			for i, w := range c.warnings {
				if !strings.Contains(lines[i], "level=WARN") || !strings.Contains(lines[i], w) {
					t.Errorf("line %q, want a warning containing %q", lines[i], w)
				}
			}
		})
	}
}
