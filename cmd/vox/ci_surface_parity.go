package main

import (
	"sync"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// servedCatalogTool reports whether name is a catalog tool of the vox-mcp
// of this build, which shadows a workspace tool of the same name.
func servedCatalogTool(name string) bool { return servedCatalogToolSet()[name] }

// servedCatalogTools returns the names of the catalog tools the vox-mcp of
// this build serves: they shadow workspace tools, and a skill's
// metadata.vox-tools may name them. The names come from the catalog
// embedded in contracts, not from the generated tables, which vox must not
// link (contracts.Catalog).
func servedCatalogTools() []string { return servedCatalog().names }

func servedCatalogToolSet() map[string]bool { return servedCatalog().set }

var servedCatalog = sync.OnceValue(func() struct {
	names []string
	set   map[string]bool
} {
	var out struct {
		names []string
		set   map[string]bool
	}
	out.set = map[string]bool{}
	if cat, errs := gen.ParseCatalog(registry.CatalogPath, contracts.Catalog, gen.CatalogOptions{}); len(errs) == 0 {
		for _, op := range cat.MCPTools() {
			out.names = append(out.names, op.MCP.Name)
			out.set[op.MCP.Name] = true
		}
	}
	return out
})
