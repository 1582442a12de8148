// Package release builds the install routes of a release from the binaries
// that `make release` compiles (docs/platforms.md, "Install routes"): the
// MCP Bundle manifest of each platform, the MCP Registry's server.json
// (validated against the registry's vendored schema and the rules its
// documentation adds) and the container image for the HTTP and fleet
// modes, built from scratch with go-containerregistry. It is a build-time
// package, driven by internal/cmd/vox-release: no product binary links it.
package release

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ServerName is the server's name in the MCP Registry, and the label that
// ties the container image to it.
const ServerName = "io.github.vox-lang/vox-mcp"

// Repository is the source repository; release assets are downloaded from
// its GitHub releases.
const Repository = "https://github.com/vox-lang/vox-mcp"

const description = "Vox tools, workspace tools and Agent Skills over MCP, with a native skill sandbox"

// Platform is one release target, GOOS/GOARCH.
type Platform struct{ OS, Arch string }

// ParsePlatform reads "GOOS/GOARCH".
func ParsePlatform(s string) (Platform, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" {
		return Platform{}, fmt.Errorf("platform %q: want GOOS/GOARCH, e.g. darwin/arm64", s)
	}
	switch os {
	case "linux", "darwin", "windows":
	default:
		return Platform{}, fmt.Errorf("platform %q: GOOS must be linux, darwin or windows", s)
	}
	return Platform{os, arch}, nil
}

// exe is the suffix of an executable on p.
func (p Platform) exe() string {
	if p.OS == "windows" {
		return ".exe"
	}
	return ""
}

// BundleName is the file name of p's MCP Bundle.
func (p Platform) BundleName() string { return "vox-mcp-" + p.OS + "-" + p.Arch + ".mcpb" }

// BundleEntry is the path of the server binary inside the bundle.
func (p Platform) BundleEntry() string { return "server/vox-mcp" + p.exe() }

// mcpbPlatform is the name of p's system in a bundle manifest's
// compatibility.platforms (Node's process.platform).
func (p Platform) mcpbPlatform() string {
	if p.OS == "windows" {
		return "win32"
	}
	return p.OS
}

// PlainVersion is the release version as the bundle manifest and
// server.json carry it: a tag's leading "v" dropped ("v1.2.3" is 1.2.3).
func PlainVersion(version string) string {
	if len(version) > 1 && version[0] == 'v' && version[1] >= '0' && version[1] <= '9' {
		return version[1:]
	}
	return version
}

// Manifest is the manifest.json of p's MCP Bundle (manifest version 0.3,
// the newest that @anthropic-ai/mcpb 2.1.2 and the Claude Desktop it
// names accept for binary servers): the binary server at BundleEntry,
// started with --root set to the folder the user picks at install
// (user_config.workspace_root), on p's system only.
func Manifest(p Platform, version string) ([]byte, error) {
	if version == "" {
		return nil, fmt.Errorf("manifest: empty version")
	}
	m := map[string]any{
		"manifest_version": "0.3",
		"name":             "vox-mcp",
		"display_name":     "Vox MCP",
		"version":          PlainVersion(version),
		"description":      description,
		"long_description": "Serves the Vox language's catalog tools, the workspace's .vox tools and the installed Agent Skills to the client. The workspace folder chosen at install is the only folder the tools read and write; skills run in the platform's native sandbox where it is available.",
		"author":           map[string]any{"name": "vox-lang", "url": "https://github.com/vox-lang"},
		"repository":       map[string]any{"type": "git", "url": Repository},
		"homepage":         Repository,
		"documentation":    Repository + "#readme",
		"keywords":         []string{"vox", "mcp", "skills", "sandbox"},
		"server": map[string]any{
			"type":        "binary",
			"entry_point": p.BundleEntry(),
			"mcp_config": map[string]any{
				"command": "${__dirname}/" + p.BundleEntry(),
				"args":    []string{"--root", "${user_config.workspace_root}"},
			},
		},
		"tools_generated": true,
		"user_config": map[string]any{
			"workspace_root": map[string]any{
				"type":        "directory",
				"title":       "Workspace folder",
				"description": "The folder whose .vox tools and skills vox-mcp serves; tools read and write inside it only.",
				"required":    true,
			},
		},
		"compatibility": map[string]any{
			"platforms": []string{p.mcpbPlatform()},
		},
	}
	return json.MarshalIndent(m, "", "  ")
}
