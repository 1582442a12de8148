package contracts

import _ "embed"

// WorkspaceSurfaceSchema is mcp/workspace-mcp-surface.v1.schema.json, the
// schema of a repository's workspace scan config.
//
//go:embed mcp/workspace-mcp-surface.v1.schema.json
var WorkspaceSurfaceSchema []byte

// WorkspaceFixturesSchema is mcp/workspace-tool-fixtures.v1.schema.json,
// the schema of the workspace tool fixtures.
//
//go:embed mcp/workspace-tool-fixtures.v1.schema.json
var WorkspaceFixturesSchema []byte
