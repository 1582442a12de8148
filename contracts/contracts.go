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
