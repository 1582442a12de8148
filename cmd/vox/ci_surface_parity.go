package main

import (
	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/runtime/gates"
)

func init() {
	registerGate(gate{
		name:    gates.SurfaceParityName,
		summary: "check the workspace .vox surface: per-file errors, duplicates, generated/workspace and the fixtures",
		run: func(root string, _ []string) *gates.Report {
			// Shadowing follows the catalog the vox-mcp of this build serves.
			names := map[string]bool{}
			for _, op := range catalog.Catalog.MCPTools() {
				names[op.MCP.Name] = true
			}
			return gates.SurfaceParity(root, func(n string) bool { return names[n] })
		},
	})
}
