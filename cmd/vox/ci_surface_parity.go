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
			for _, n := range servedCatalogTools() {
				names[n] = true
			}
			return gates.SurfaceParity(root, func(n string) bool { return names[n] })
		},
	})
}

// servedCatalogTools returns the names of the catalog tools the vox-mcp of
// this build serves: they shadow workspace tools, and a skill's
// metadata.vox-tools may name them.
func servedCatalogTools() []string {
	var names []string
	for _, op := range catalog.Catalog.MCPTools() {
		names = append(names, op.MCP.Name)
	}
	return names
}
