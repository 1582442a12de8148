// Command vox-release builds the install routes of a release from the
// binaries in dist/ (make release; docs/platforms.md, "Install routes").
// It is a build tool, not shipped:
//
//	vox-release manifest -platform GOOS/GOARCH -version V
//	vox-release bundle-dir -platform GOOS/GOARCH -version V -binary FILE -out DIR
//	vox-release server-json -version V -dist DIR [-image REPO] -out FILE
//	vox-release validate-server-json FILE
//	vox-release image -arch GOARCH -binary FILE -version V -tag REF [-ca FILE] -out FILE
//
// bundle-dir lays out a folder that `mcpb pack` turns into the platform's
// .mcpb; server-json lists every vox-mcp-*.mcpb found in DIR with its
// SHA-256, and the image; image writes a docker-archive that `podman
// load` reads.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/release"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vox-release:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("want a command: manifest, bundle-dir, server-json, validate-server-json or image")
	}
	fs := flag.NewFlagSet("vox-release "+args[0], flag.ContinueOnError)
	platform := fs.String("platform", "", "GOOS/GOARCH")
	version := fs.String("version", "", "release version (the tag, e.g. v1.2.3)")
	binary := fs.String("binary", "", "the vox-mcp binary")
	out := fs.String("out", "", "output file or folder")
	dist := fs.String("dist", "", "folder holding the .mcpb files")
	image := fs.String("image", "", "container image repository, without tag (e.g. ghcr.io/vox-lang/vox-mcp)")
	arch := fs.String("arch", "", "GOARCH of the image's binary")
	tag := fs.String("tag", "", "the image's tag, REPO:TAG")
	ca := fs.String("ca", "", "PEM bundle of CA certificates to put in the image")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	need := func(names ...string) error {
		for _, n := range names {
			if fs.Lookup(n).Value.String() == "" {
				return fmt.Errorf("%s: -%s is required", args[0], n)
			}
		}
		return nil
	}
	switch args[0] {
	case "manifest":
		if err := need("platform", "version"); err != nil {
			return err
		}
		p, err := release.ParsePlatform(*platform)
		if err != nil {
			return err
		}
		m, err := release.Manifest(p, *version)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", m)
		return err
	case "bundle-dir":
		if err := need("platform", "version", "binary", "out"); err != nil {
			return err
		}
		p, err := release.ParsePlatform(*platform)
		if err != nil {
			return err
		}
		return bundleDir(p, *version, *binary, *out)
	case "server-json":
		if err := need("version", "dist", "out"); err != nil {
			return err
		}
		in := release.ServerJSONInput{Version: *version, Image: *image}
		names, err := filepath.Glob(filepath.Join(*dist, "vox-mcp-*.mcpb"))
		if err != nil {
			return err
		}
		sort.Strings(names)
		for _, n := range names {
			base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(n), "vox-mcp-"), ".mcpb")
			p, err := release.ParsePlatform(strings.Replace(base, "-", "/", 1))
			if err != nil {
				return fmt.Errorf("%s: %v", n, err)
			}
			sum, err := fileSHA256(n)
			if err != nil {
				return err
			}
			in.Bundles = append(in.Bundles, release.Bundle{Platform: p, SHA256: sum})
		}
		data, err := release.ServerJSON(in)
		if err != nil {
			return err
		}
		return os.WriteFile(*out, data, 0o644)
	case "validate-server-json":
		if fs.NArg() != 1 {
			return fmt.Errorf("validate-server-json: want one file")
		}
		data, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return err
		}
		if err := release.ValidateServerJSON(data); err != nil {
			return fmt.Errorf("%s: %v", fs.Arg(0), err)
		}
		_, err = fmt.Fprintf(stdout, "%s: valid (%s and the registry's rules)\n", fs.Arg(0), release.SchemaURL)
		return err
	case "image":
		if err := need("arch", "binary", "version", "tag", "out"); err != nil {
			return err
		}
		img, err := release.Image(release.ImageInput{Arch: *arch, Binary: *binary, CACerts: *ca, Version: *version})
		if err != nil {
			return err
		}
		return release.WriteImage(*out, *tag, img)
	}
	return fmt.Errorf("unknown command %q: want manifest, bundle-dir, server-json, validate-server-json or image", args[0])
}

// bundleDir writes out/manifest.json and the binary at its entry point.
func bundleDir(p release.Platform, version, binary, out string) error {
	m, err := release.Manifest(p, version)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	entry := filepath.Join(out, filepath.FromSlash(p.BundleEntry()))
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "manifest.json"), append(m, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(entry, bin, 0o755)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
