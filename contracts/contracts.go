// Package contracts embeds the JSON Schemas of the product's data contracts,
// so that the binaries validate any repository's contracts without reading
// this repository's files at run time.
package contracts

import _ "embed"

// CatalogSchema is operations/catalog.v1.schema.json.
//
//go:embed operations/catalog.v1.schema.json
var CatalogSchema []byte

// CatalogSchemaPath is the repo-relative path of CatalogSchema.
const CatalogSchemaPath = "contracts/operations/catalog.v1.schema.json"

// Catalog is operations/catalog.v1.yaml, the catalog of this product's
// own tools and commands. The vox CLI reads it (through gen.ParseCatalog)
// where it needs the names of the tools vox-mcp serves — the surface
// parity gate's shadowing — rather than linking the generated tables, so
// that "vox gen" builds and regenerates them even when they are stale or
// broken (docs/architecture.md).
//
//go:embed operations/catalog.v1.yaml
var Catalog []byte
