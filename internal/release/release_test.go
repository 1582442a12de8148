package release

import (
	"encoding/json"
	"strings"
	"testing"
)

func validInput() ServerJSONInput {
	sum := strings.Repeat("ab", 32)
	return ServerJSONInput{
		Version: "v1.2.3",
		Bundles: []Bundle{{Platform{"darwin", "arm64"}, sum}, {Platform{"windows", "amd64"}, sum}},
		Image:   "ghcr.io/vox-lang/vox-mcp",
	}
}

func TestServerJSONIsValid(t *testing.T) {
	out, err := ServerJSON(validInput())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  string
		Packages []struct{ RegistryType, Identifier, FileSha256 string }
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "1.2.3" || len(doc.Packages) != 3 {
		t.Fatalf("version %q, %d packages: %s", doc.Version, len(doc.Packages), out)
	}
	if want := Repository + "/releases/download/v1.2.3/vox-mcp-windows-amd64.mcpb"; doc.Packages[1].Identifier != want {
		t.Errorf("bundle identifier %q, want %q", doc.Packages[1].Identifier, want)
	}
	if doc.Packages[2].Identifier != "ghcr.io/vox-lang/vox-mcp:1.2.3" {
		t.Errorf("image identifier %q", doc.Packages[2].Identifier)
	}
}

// TestValidateServerJSONRejects breaks one rule at a time in a valid
// server.json and requires the error to name where.
func TestValidateServerJSONRejects(t *testing.T) {
	good, err := ServerJSON(validInput())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"schema: no description", `"description": "Vox tools`, `"descr": "Vox tools`, "registry's schema"},
		{"name: two slashes", `"name": "io.github.vox-lang/vox-mcp"`, `"name": "io.github.vox-lang/vox/mcp"`, "/name"},
		{"name: part ends with a dash", `"name": "io.github.vox-lang/vox-mcp"`, `"name": "io.github.vox-lang/vox-mcp-"`, "name:"},
		{"name: github namespace", `"name": "io.github.vox-lang/vox-mcp"`, `"name": "io.github.vox.lang/vox-mcp"`, "io.github.OWNER"},
		{"version latest", `"version": "1.2.3",
  "websiteUrl"`, `"version": "latest",
  "websiteUrl"`, "latest"},
		{"package version range", `      "version": "1.2.3"
`, `      "version": "^1.2.3"
`, "packages[0].version"},
		{"wildcard version", `      "version": "1.2.3"
`, `      "version": "1.x"
`, "range"},
		{"mcpb sha", strings.Repeat("ab", 32), strings.Repeat("AB", 32), "fileSha256"},
		{"mcpb host", "https://github.com/vox-lang/vox-mcp/releases/download/v1.2.3/vox-mcp-darwin-arm64.mcpb", "https://example.com/vox-mcp/releases/x.mcpb", "GitHub or GitLab"},
		{"space in identifier", "vox-mcp-darwin-arm64.mcpb", "vox mcp.mcpb", "space"},
		{"oci registry", `"ghcr.io/vox-lang/vox-mcp:1.2.3"`, `"registry.example/vox-lang/vox-mcp:1.2.3"`, "docker.io"},
		{"oci tag", `"ghcr.io/vox-lang/vox-mcp:1.2.3"`, `"ghcr.io/vox-lang/vox-mcp"`, "tag or digest"},
		{"stdio url", `"type": "stdio"`, `"type": "stdio", "url": "http://localhost:1/mcp"`, "must be empty"},
		{"undefined url variable", `"url": "http://localhost:8080/mcp"`, `"url": "http://localhost:{port}/mcp"`, "{port}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(good), c.from, c.to, 1)
			if bad == string(good) {
				t.Fatalf("%q is not in the valid server.json", c.from)
			}
			err := ValidateServerJSON([]byte(bad))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestManifestPerPlatform(t *testing.T) {
	for _, c := range []struct{ p, mcpb, entry string }{
		{"darwin/arm64", "darwin", "server/vox-mcp"},
		{"windows/amd64", "win32", "server/vox-mcp.exe"},
		{"linux/arm64", "linux", "server/vox-mcp"},
	} {
		p, err := ParsePlatform(c.p)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Manifest(p, "v2.0.0")
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Version string
			Server  struct {
				EntryPoint string `json:"entry_point"`
				MCPConfig  struct {
					Command string
					Args    []string
				} `json:"mcp_config"`
			}
			Compatibility struct{ Platforms []string }
			UserConfig    map[string]struct{ Type string } `json:"user_config"`
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		if m.Version != "2.0.0" || m.Server.EntryPoint != c.entry || m.Server.MCPConfig.Command != "${__dirname}/"+c.entry ||
			strings.Join(m.Server.MCPConfig.Args, " ") != "--root ${user_config.workspace_root}" ||
			strings.Join(m.Compatibility.Platforms, ",") != c.mcpb || m.UserConfig["workspace_root"].Type != "directory" {
			t.Errorf("%s: manifest %s", c.p, out)
		}
	}
	if _, err := ParsePlatform("plan9/amd64"); err == nil {
		t.Error("plan9/amd64 accepted")
	}
}
