package contracts

import _ "embed"

// RegistryServerSchema is registry/server.schema.json, the MCP Registry's
// schema of server.json (module and version in registry/README.md). Only
// the release tool (internal/release) uses it.
//
//go:embed registry/server.schema.json
var RegistryServerSchema []byte
