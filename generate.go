// Package voxmcp is the root of vox-mcp: a code-generation pipeline and a
// prebuilt MCP server that give AI agents one Model Context Protocol surface
// for a repository.
//
// The layout follows the data flow: contracts/ holds the data contracts,
// gen/ the generator, generated/ its output only, runtime/ the public API
// that generated code imports, internal/ the rest of what the binaries run
// and cmd/ the thin mains of vox and vox-mcp.
//
// Running go generate ./... at the root regenerates every file under
// generated/ through the one function gen.Generate.
package voxmcp

//go:generate go run ./cmd/vox gen
