package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vox-lang/vox-mcp/contracts"
)

// SchemaURL is the $schema of the server.json written: the $id of the
// vendored schema (contracts/registry/README.md).
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// Bundle is one built MCP Bundle that server.json lists.
type Bundle struct {
	Platform Platform
	SHA256   string // hex of the .mcpb file's bytes
}

// ServerJSONInput is what server.json is made of.
type ServerJSONInput struct {
	Version string   // the release tag, e.g. v1.2.3
	Bundles []Bundle // one per platform built
	// Image is the container image's reference without its tag
	// (e.g. ghcr.io/vox-lang/vox-mcp); empty leaves the image out.
	Image string
}

// ServerJSON writes server.json: each bundle at its GitHub release URL
// with its fileSha256, run over stdio; the container image, tagged with
// the version, run over streamable HTTP on port 8080 with the bearer
// token the image requires (a server that listens beyond loopback
// refuses to start without VOX_MCP_TOKEN). The result is validated.
func ServerJSON(in ServerJSONInput) ([]byte, error) {
	if len(in.Bundles) == 0 && in.Image == "" {
		return nil, fmt.Errorf("server.json: no bundle and no image to list")
	}
	version := PlainVersion(in.Version)
	var pkgs []any
	for _, b := range in.Bundles {
		pkgs = append(pkgs, map[string]any{
			"registryType": "mcpb",
			"identifier":   Repository + "/releases/download/" + in.Version + "/" + b.Platform.BundleName(),
			"version":      version,
			"fileSha256":   b.SHA256,
			"transport":    map[string]any{"type": "stdio"},
		})
	}
	if in.Image != "" {
		pkgs = append(pkgs, map[string]any{
			"registryType": "oci",
			"identifier":   in.Image + ":" + version,
			"transport": map[string]any{
				"type": "streamable-http",
				"url":  "http://localhost:8080/mcp",
				"headers": []any{map[string]any{
					"name":        "Authorization",
					"value":       "Bearer {token}",
					"description": "The VOX_MCP_TOKEN the container was started with",
					"isRequired":  true,
					"isSecret":    true,
					"variables": map[string]any{"token": map[string]any{
						"description": "The container's VOX_MCP_TOKEN", "isRequired": true, "isSecret": true,
					}},
				}},
			},
			"environmentVariables": []any{
				map[string]any{"name": "VOX_MCP_TOKEN", "description": "Bearer token of full access; required, since the server listens on 0.0.0.0:8080", "isRequired": true, "isSecret": true},
				map[string]any{"name": "VOX_MCP_READ_TOKEN", "description": "Bearer token of the read role", "isSecret": true},
				map[string]any{"name": "VOX_MCP_SESSION_KEY", "description": "Session key (32 bytes or more) shared by the instances of a fleet (--store)", "isSecret": true},
			},
		})
	}
	doc := map[string]any{
		"$schema":     SchemaURL,
		"name":        ServerName,
		"title":       "Vox MCP",
		"description": description,
		"version":     version,
		"repository":  map[string]any{"url": Repository, "source": "github"},
		"websiteUrl":  Repository,
		"packages":    pkgs,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	if err := ValidateServerJSON(out); err != nil {
		return nil, err
	}
	return out, nil
}

var registrySchema = func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(contracts.RegistryServerSchema))
	if err != nil {
		panic("contracts/registry/server.schema.json: " + err.Error())
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaURL, doc); err != nil {
		panic("contracts/registry/server.schema.json: " + err.Error())
	}
	c.AssertFormat()
	return c.MustCompile(SchemaURL)
}()

// The registry's name rule (internal/validators of the registry module):
// stricter than the schema's pattern, each part starts and ends with a
// letter or digit.
var (
	serverNameRe = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$`)
	// The registry's range forms (validators.go of the registry module).
	comparatorRangeRe   = regexp.MustCompile(`^\s*(?:\^|~|>=|<=|>|<|=)\s*v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?\s*$`)
	hyphenRangeRe       = regexp.MustCompile(`^\s*v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?\s-\s*v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?\s*$`)
	orRangeRe           = regexp.MustCompile(`^\s*(?:v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?\s*)(?:\|\|\s*v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?\s*)+$`)
	dottedVersionLikeRe = regexp.MustCompile(`^\s*(?:v?\d+|x|X|\*)(?:\.(?:\d+|x|X|\*)){1,2}(?:-[0-9A-Za-z.-]+)?\s*$`)
	sha256Re            = regexp.MustCompile(`^[a-f0-9]{64}$`)
	templateVar         = regexp.MustCompile(`\{([^{}]+)\}`)
)

// ociRegistries are the image hosts the official registry accepts
// (docs/reference/server-json/official-registry-requirements.md of the
// registry module).
var ociRegistries = []string{"docker.io/", "ghcr.io/", "quay.io/", "mcr.microsoft.com/"}

// ValidateServerJSON checks a server.json against the registry's schema,
// then against the rules the registry's documentation states beyond it:
// the name's form (one slash, parts starting and ending with a letter or
// digit, io.github.OWNER/ for GitHub authentication), a specific version
// (not "latest", not a range), package identifiers without spaces, an
// mcpb package hosted on GitHub or GitLab releases, naming "mcp", with a
// fileSha256, an oci image on an accepted registry with a tag or digest,
// and transports: stdio without a url, streamable-http and sse with an
// http(s) url whose {variables} the package defines. Errors name the
// JSON path.
func ValidateServerJSON(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("server.json: not JSON: %v", err)
	}
	if err := registrySchema.Validate(doc); err != nil {
		return fmt.Errorf("server.json does not match the registry's schema (%s):\n%v", SchemaURL, err)
	}
	var s struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			Version      string `json:"version"`
			FileSHA256   string `json:"fileSha256"`
			Transport    struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			} `json:"transport"`
			EnvironmentVariables []struct {
				Name string `json:"name"`
			} `json:"environmentVariables"`
			PackageArguments []struct {
				Name      string `json:"name"`
				ValueHint string `json:"valueHint"`
			} `json:"packageArguments"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("server.json: %v", err)
	}
	var errs []string
	bad := func(path, format string, args ...any) {
		errs = append(errs, path+": "+fmt.Sprintf(format, args...))
	}
	if strings.Count(s.Name, "/") != 1 || !serverNameRe.MatchString(s.Name) {
		bad("name", "%q is not NAMESPACE/NAME with each part starting and ending with a letter or digit", s.Name)
	} else if ns, _, _ := strings.Cut(s.Name, "/"); strings.HasPrefix(ns, "io.github.") && strings.Count(ns, ".") != 2 {
		bad("name", "%q: a GitHub namespace is io.github.OWNER", s.Name)
	}
	checkVersion := func(path, v string) {
		if v == "latest" {
			bad(path, `"latest" is reserved: give the specific version`)
		} else if looksLikeRange(v) {
			bad(path, "%q looks like a version range: give one specific version", v)
		}
	}
	checkVersion("version", s.Version)
	for i, p := range s.Packages {
		at := fmt.Sprintf("packages[%d]", i)
		checkVersion(at+".version", p.Version)
		if strings.ContainsAny(p.Identifier, " \t\n") {
			bad(at+".identifier", "%q contains a space", p.Identifier)
		}
		switch p.RegistryType {
		case "mcpb":
			u, err := url.Parse(p.Identifier)
			if err != nil || u.Scheme != "https" || (u.Host != "github.com" && u.Host != "gitlab.com") || !strings.Contains(u.Path, "/releases/") {
				bad(at+".identifier", "%q: an mcpb package is an https URL of a GitHub or GitLab release", p.Identifier)
			}
			if !strings.Contains(strings.ToLower(p.Identifier), "mcp") {
				bad(at+".identifier", "%q: an mcpb package URL must contain \"mcp\"", p.Identifier)
			}
			if !sha256Re.MatchString(p.FileSHA256) {
				bad(at+".fileSha256", "an mcpb package needs the SHA-256 of its file, 64 lowercase hex digits (got %q)", p.FileSHA256)
			}
		case "oci":
			host := ""
			for _, r := range ociRegistries {
				if strings.HasPrefix(p.Identifier, r) {
					host = r
				}
			}
			if h, _, _ := strings.Cut(p.Identifier, "/"); strings.HasSuffix(h, ".pkg.dev") || strings.HasSuffix(h, ".azurecr.io") {
				host = h
			}
			if host == "" {
				bad(at+".identifier", "%q: the image must be on docker.io, ghcr.io, quay.io, *.pkg.dev, *.azurecr.io or mcr.microsoft.com", p.Identifier)
			}
			last := p.Identifier[strings.LastIndex(p.Identifier, "/")+1:]
			if !strings.Contains(last, ":") && !strings.Contains(last, "@") {
				bad(at+".identifier", "%q: give the image's tag or digest (registry/namespace/repository:tag)", p.Identifier)
			}
		}
		vars := map[string]bool{}
		for _, e := range p.EnvironmentVariables {
			vars[e.Name] = true
		}
		for _, a := range p.PackageArguments {
			vars[a.Name], vars[a.ValueHint] = true, true
		}
		switch t := p.Transport; t.Type {
		case "stdio":
			if t.URL != "" {
				bad(at+".transport.url", "must be empty for the stdio transport (got %q)", t.URL)
			}
		case "streamable-http", "sse":
			u, err := url.Parse(templateVar.ReplaceAllString(t.URL, "x"))
			if t.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad(at+".transport.url", "%q: the %s transport needs an http or https URL", t.URL, t.Type)
			}
			for _, m := range templateVar.FindAllStringSubmatch(t.URL, -1) {
				if !vars[m[1]] {
					bad(at+".transport.url", "{%s} is not an environment variable or argument of the package", m[1])
				}
			}
		default:
			bad(at+".transport.type", "%q: a package's transport is stdio, streamable-http or sse", t.Type)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("server.json breaks the registry's rules:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

// looksLikeRange is the registry's test for a version that names a range.
func looksLikeRange(v string) bool {
	if comparatorRangeRe.MatchString(v) || hyphenRangeRe.MatchString(v) || orRangeRe.MatchString(v) {
		return true
	}
	return dottedVersionLikeRe.MatchString(v) && strings.ContainsAny(v, "xX*")
}
