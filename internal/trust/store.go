package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// FileName is the records' file in the user's vox-mcp config folder.
const FileName = "trust.json"

// maxStoreBytes bounds the records' file: about 10,000 workspaces.
const maxStoreBytes = 4 << 20

// Record is one trusted workspace: its root and the powers trusted.
type Record struct {
	Root    string    `json:"root"`
	Digest  string    `json:"digest"`
	Env     []string  `json:"env_allow,omitempty"`
	Write   []string  `json:"write_globs,omitempty"`
	Trusted time.Time `json:"trusted_at"`
}

// Powers are the powers the record trusted.
func (r Record) Powers() Powers { return Powers{Env: r.Env, Write: r.Write} }

type storeFile struct {
	Version    int      `json:"version"`
	Workspaces []Record `json:"workspaces"`
}

// Store is the file of records. Only the user who runs vox-mcp writes it:
// it lives in their config folder, outside every workspace, and a
// workspace tool can never write it even when the workspace holds that
// folder (internal/protect, Options.Dirs).
type Store struct {
	// Path is the file: Dir()/trust.json.
	Path string
}

// Dir is the user's vox-mcp config folder: vox-mcp in os.UserConfigDir
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows).
func Dir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config folder for the trust records: %w", err)
	}
	return filepath.Join(base, "vox-mcp"), nil
}

// DefaultStore is the records of the user running the process.
func DefaultStore() (*Store, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	return &Store{Path: filepath.Join(dir, FileName)}, nil
}

// Canonical is the form of a workspace root the records keep: absolute,
// cleaned, symbolic links resolved, so that every way of naming a folder
// finds its record.
func Canonical(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return filepath.Clean(real), nil
}

// sameRoot compares two canonical roots as the system's file names
// compare: without case on macOS and Windows.
func sameRoot(a, b string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Records reads every record; a missing file is none.
func (s *Store) Records() ([]Record, error) {
	data, err := safefs.ReadNamedFile(s.Path, maxStoreBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkOwner(s.Path); err != nil {
		return nil, err
	}
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %v: fix or remove the file (vox trust writes it)", s.Path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d: this vox-mcp reads version 1", s.Path, f.Version)
	}
	return f.Workspaces, nil
}

// Lookup finds the record of root (any name of the folder).
func (s *Store) Lookup(root string) (Record, bool, error) {
	canon, err := Canonical(root)
	if err != nil {
		return Record{}, false, err
	}
	recs, err := s.Records()
	if err != nil {
		return Record{}, false, err
	}
	for _, r := range recs {
		if sameRoot(r.Root, canon) {
			return r, true, nil
		}
	}
	return Record{}, false, nil
}

// Trust records root as trusted with the powers p, replacing its earlier
// record.
func (s *Store) Trust(root string, p Powers, now time.Time) (Record, error) {
	canon, err := Canonical(root)
	if err != nil {
		return Record{}, err
	}
	n := p.Normal()
	rec := Record{Root: canon, Digest: p.Digest(), Env: n.Env, Write: n.Write, Trusted: now.UTC().Truncate(time.Second)}
	err = s.update(func(recs []Record) []Record {
		recs = slices.DeleteFunc(recs, func(r Record) bool { return sameRoot(r.Root, canon) })
		return append(recs, rec)
	})
	return rec, err
}

// Revoke removes the record of root, reporting whether there was one. A
// root that no longer exists is matched as written, made absolute.
func (s *Store) Revoke(root string) (bool, error) {
	canon, err := Canonical(root)
	if err != nil {
		if canon, err = filepath.Abs(root); err != nil {
			return false, err
		}
	}
	found := false
	err = s.update(func(recs []Record) []Record {
		return slices.DeleteFunc(recs, func(r Record) bool {
			if sameRoot(r.Root, canon) {
				found = true
				return true
			}
			return false
		})
	})
	return found, err
}

// update rewrites the file with what change makes of its records: a new
// file beside it, renamed over it, so that a reader never sees half of
// it. The folder is the user's alone (0700), the file 0600.
func (s *Store) update(change func([]Record) []Record) error {
	recs, err := s.Records()
	if err != nil {
		return err
	}
	recs = change(recs)
	slices.SortFunc(recs, func(a, b Record) int { return strings.Compare(a.Root, b.Root) })
	data, err := json.MarshalIndent(storeFile{Version: 1, Workspaces: orNone(recs)}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o600)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.Path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

func orNone(r []Record) []Record {
	if r == nil {
		return []Record{}
	}
	return r
}
