// Package workspace is the workspace loader of vox-mcp (docs/federation.md
// §1): it reads a repository's scan config
// (contracts/mcp/workspace-mcp-surface.v1.yaml) and fixtures
// (contracts/mcp/workspace-tool-fixtures.v1.json) with positioned errors,
// expands the scan globs into an ordered list of .vox files, compiles them
// with the Vox front end, merges their tools and resources into a Surface
// (shadowing by catalog names, first-wins duplicates, per-file errors) and
// reports the refresh result. The server, the generator's snapshot producer,
// the parity gate and "vox gen app" all load through it, so they agree.
package workspace
