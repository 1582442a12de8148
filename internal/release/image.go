package release

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// ImageLabel is the label the MCP Registry reads to tie an image to a
// server name (its "Ownership Verification" of oci packages).
const ImageLabel = "io.modelcontextprotocol.server.name"

// ImagePort is the port the image's default command listens on.
const ImagePort = "8080"

// imageUser is the uid and gid the server runs as: not root, and owner
// of /workspace and /home so a volume-less start can still write its cache.
const imageUser = 65532

// ImageInput is what the container image is made of.
type ImageInput struct {
	Arch    string // GOARCH of Binary (linux only)
	Binary  string // a static linux vox-mcp
	CACerts string // a PEM bundle copied to /etc/ssl/certs/ca-certificates.crt; empty for none
	Version string
}

// Image builds the container image from scratch, without a daemon or a
// base image: one layer holding /vox-mcp, the CA bundle (where Go's
// crypto/x509 looks on Linux: a store URL over TLS needs it), /workspace
// and /tmp; labelled with ServerName; running as an unprivileged user;
// started as `vox-mcp --http 0.0.0.0:8080 --root /workspace` (the HTTP
// mode, which needs VOX_MCP_TOKEN to listen beyond loopback; add
// --store for fleet mode). Every timestamp is the Unix epoch, so the same
// inputs give the same image digest.
func Image(in ImageInput) (v1.Image, error) {
	bin, err := os.ReadFile(in.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: %v", err)
	}
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		return nil, fmt.Errorf("image: %s is not a linux binary (no ELF header)", in.Binary)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: uid, Gid: uid, ModTime: epoch, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	steps := []func() error{
		func() error { return file("vox-mcp", 0o755, bin) },
		func() error { return dir("tmp/", 0o1777, 0) },
		func() error { return dir("workspace/", 0o755, imageUser) },
		func() error { return dir("home/", 0o755, imageUser) },
	}
	if in.CACerts != "" {
		pem, err := os.ReadFile(in.CACerts)
		if err != nil {
			return nil, fmt.Errorf("image: CA certificates: %v", err)
		}
		steps = append(steps,
			func() error { return dir("etc/", 0o755, 0) },
			func() error { return dir("etc/ssl/", 0o755, 0) },
			func() error { return dir("etc/ssl/certs/", 0o755, 0) },
			func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, pem) })
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, fmt.Errorf("image: layer: %v", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: layer: %v", err)
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("image: layer: %v", err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, fmt.Errorf("image: %v", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: %v", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", in.Arch
	cf.Created = v1.Time{Time: epoch}
	cf.Config = v1.Config{
		Entrypoint:   []string{"/vox-mcp"},
		Cmd:          []string{"--http", "0.0.0.0:" + ImagePort, "--root", "/workspace"},
		Env:          []string{"HOME=/home", "TMPDIR=/tmp"},
		WorkingDir:   "/workspace",
		User:         fmt.Sprintf("%d:%d", imageUser, imageUser),
		ExposedPorts: map[string]struct{}{ImagePort + "/tcp": {}},
		Labels: map[string]string{
			ImageLabel:                         ServerName,
			"org.opencontainers.image.source":  Repository,
			"org.opencontainers.image.version": PlainVersion(in.Version),
			"org.opencontainers.image.title":   "vox-mcp",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// WriteImage writes img as a docker-archive tarball (what `podman load`
// and `docker load` read) tagged ref.
func WriteImage(path, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image tag %q: %v", ref, err)
	}
	return tarball.WriteToFile(path, tag, img)
}
