package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// Digest is the digest of a skill file as the skills extension lists it
// (SEP-2640, docs/skills.md §5): "sha256:" and 64 lowercase hex digits.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ManifestFile is one file of a skill's manifest: what skills/list and
// skills/get list of it, and what vox skill export copies.
type ManifestFile struct {
	// Path is relative to the skill folder, slash-separated.
	Path string
	Size int64
	// Digest is Digest of the file's bytes; "" when the file cannot be
	// read (over MaxFileSize, gone, swapped for a FIFO or a link leaving
	// the folder), and Err says why.
	Digest string
	Err    error
}

// Manifest lists every file of the skill (SKILL.md included, as loaded:
// Source) with its digest, reading each other file beneath the folder.
// It is the manifest the skills extension serves; a client, or vox skill
// export, verifies the files it reads against it.
func (in *Installed) Manifest() []ManifestFile {
	out := make([]ManifestFile, 0, len(in.Files))
	for _, f := range in.Files {
		m := ManifestFile{Path: f.Path, Size: f.Size}
		data, err := in.Source, error(nil)
		if f.Path != "SKILL.md" {
			data, err = in.ReadFile(f.Path)
		}
		if err == nil {
			m.Size, m.Digest = int64(len(data)), Digest(data)
		} else {
			m.Err = err
		}
		out = append(out, m)
	}
	return out
}

// ReadVerified reads the file of m again, beneath the skill folder, and
// returns its bytes and mode only when they still have m's digest: the
// file as the manifest lists it, or an error naming the file.
func (in *Installed) ReadVerified(m ManifestFile) ([]byte, fs.FileMode, error) {
	if m.Digest == "" {
		err := m.Err
		if err == nil {
			err = errors.New("it has no digest")
		}
		return nil, 0, fmt.Errorf("%s cannot be verified: %w", m.Path, err)
	}
	data, info, err := in.readFileInfo(m.Path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s cannot be read: %w", m.Path, err)
	}
	if got := Digest(data); got != m.Digest {
		return nil, 0, fmt.Errorf("%s does not match its digest (%s listed, %s read): it changed since the skill was listed", m.Path, m.Digest, got)
	}
	return data, info.Mode(), nil
}

// readFileInfo is ReadFile also returning what the opened file's fstat
// says of it.
func (in *Installed) readFileInfo(rel string) ([]byte, fs.FileInfo, error) {
	if rel == "SKILL.md" && in.doc != "" {
		rel = in.doc // a reference skill's one file (reference.go)
	}
	root, err := safefs.OpenRoot(in.real)
	if err != nil {
		return nil, nil, fmt.Errorf("skill %s: %w", in.ID, err)
	}
	defer root.Close()
	data, info, err := root.ReadFileInfo(rel, MaxFileSize)
	var tl *safefs.TooLargeError
	if errors.As(err, &tl) {
		return nil, nil, ErrFileTooLarge
	}
	if err != nil {
		return nil, nil, fmt.Errorf("skill %s: %w", in.ID, err)
	}
	return data, info, nil
}
