package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// The surface cache (docs/federation.md §6, "The surface cache") lets a
// start serve the workspace tools of its last scan while the first scan
// of this start runs: compiling every .vox file was most of a cold
// start's time with many tools (docs/benchmarks.md). After each first
// scan the server records the surface's descriptors — the snapshot go
// generate writes for the repository itself — in the user's cache folder,
// outside the workspace, one file per workspace root. At the next start
// it serves that record only when it still describes the workspace: the
// same root, the same vox-mcp build, the same scan config, and every
// source file it names with the content it had when it was compiled
// (SHA-256). Anything else — a changed, removed or unreadable file, a
// record that does not decode — discards the whole record. The first
// scan then replaces it as it replaces a generated snapshot: files added
// since appear with it, and a call compiles its file from the disk either
// way, so the record decides only what is listed for those milliseconds.
//
// The record also keeps each listed workspace tool's JSON as the server
// encoded it for tools/list (recordedEntry), so that a start from the
// record joins them instead of encoding every tool again (tools_list.go).
// An entry is used only for the tool of the record's surface that bears
// its name, with the same read-only hint (the powers may have changed
// since), and only when the entries' SHA-256 in the record holds; the
// record lives outside the workspace, in a folder the repository cannot
// write (docs/security.md, protect.Table), as the descriptors it was
// always trusted for do.

// surfaceCacheFormat is the version of the record's layout.
const surfaceCacheFormat = 2

// maxSurfaceCacheBytes bounds the record read at start: far above the
// record of a 20,000-file workspace (about 5 MB).
const maxSurfaceCacheBytes = 64 << 20

// surfaceRecord is the cached record of one workspace root, in
// encoding/gob: it decodes several times faster than the same record in
// JSON, whose decoding cost about half the scan it replaces.
type surfaceRecord struct {
	Format   int
	Root     string
	Build    string
	Snapshot *workspace.Snapshot
	// Entries are the listed workspace tools' JSON, EntriesSum their
	// digest (entriesSum).
	Entries    []recordedEntry
	EntriesSum [sha256.Size]byte
}

// recordedEntry is a workspace tool's JSON in tools/list, as the server
// encoded the tool it registered (json.Marshal of its mcp.Tool), with the
// name and read-only hint of that tool.
type recordedEntry struct {
	Name     string
	ReadOnly bool
	JSON     []byte
}

// entriesSum is the SHA-256 of the entries, each length-prefixed, bound
// to the record's root and build.
func entriesSum(root, build string, entries []recordedEntry) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(root))
	field([]byte(build))
	for _, e := range entries {
		field([]byte(e.Name))
		if e.ReadOnly {
			field([]byte{1})
		} else {
			field([]byte{0})
		}
		field(e.JSON)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// surfaceCache is the record file of one root; a nil *surfaceCache
// caches nothing.
type surfaceCache struct {
	path  string // the record file
	root  string // the absolute workspace root
	build string // this vox-mcp build (buildKey)
	read  []byte // the record as read at start, to write only a changed one
}

// newSurfaceCache is the cache of root under dir; none when dir is "",
// lies inside the workspace (which the repository controls), or the build
// cannot be named.
func newSurfaceCache(dir, root string) *surfaceCache {
	if dir == "" {
		return nil
	}
	if abs, err := filepath.Abs(dir); err != nil || workspace.Inside(root, abs) {
		return nil
	}
	build, ok := buildKey()
	if !ok {
		return nil
	}
	sum := sha256.Sum256([]byte(root))
	return &surfaceCache{path: filepath.Join(dir, hex.EncodeToString(sum[:16])+".gob"), root: root, build: build}
}

// buildKey names this vox-mcp build: its version and commit, and the size
// and modification time of its executable, so that a rebuilt binary — a
// compiler that may describe the same file otherwise — never reads the
// records of another.
func buildKey() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	info, err := os.Stat(exe)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s %s %d %d", buildinfo.Version(), buildinfo.Commit(), info.Size(), info.ModTime().UnixNano()), true
}

// load returns the recorded snapshot when it still describes the
// workspace (see above) and the scan config cfg, with the recorded
// entries by name when their digest holds (none otherwise); why says why
// the snapshot is not served.
func (c *surfaceCache) load(cfg *workspace.Config) (snap *workspace.Snapshot, entries map[string]recordedEntry, why error) {
	f, err := os.Open(c.path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSurfaceCacheBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxSurfaceCacheBytes {
		return nil, nil, errors.New("the record is larger than its bound")
	}
	var rec surfaceRecord
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&rec); err != nil {
		return nil, nil, fmt.Errorf("the record does not decode: %w", err)
	}
	switch {
	case rec.Format != surfaceCacheFormat:
		return nil, nil, fmt.Errorf("record format %d, want %d", rec.Format, surfaceCacheFormat)
	case rec.Root != c.root:
		return nil, nil, fmt.Errorf("the record is of root %s", rec.Root)
	case rec.Build != c.build:
		return nil, nil, errors.New("the record is of another vox-mcp build")
	case rec.Snapshot == nil:
		return nil, nil, errors.New("the record holds no surface")
	case rec.Snapshot.ConfigSHA256 != cfg.SHA256:
		return nil, nil, fmt.Errorf("the scan config %s changed", workspace.ConfigPath)
	}
	if err := sourcesUnchanged(c.root, rec.Snapshot); err != nil {
		return nil, nil, err
	}
	c.read = data
	if len(rec.Entries) > 0 && entriesSum(c.root, c.build, rec.Entries) == rec.EntriesSum {
		entries = make(map[string]recordedEntry, len(rec.Entries))
		for _, e := range rec.Entries {
			entries[e.Name] = e
		}
	}
	return rec.Snapshot, entries, nil
}

// sourcesUnchanged checks that every source file the snapshot names holds
// the content it was compiled from, in the order of their paths, so that
// the reason a record is refused names the same file from run to run.
func sourcesUnchanged(root string, snap *workspace.Snapshot) error {
	want := map[string]string{}
	for _, t := range snap.Tools {
		want[t.Path] = t.Hash
	}
	for _, r := range snap.Resources {
		want[r.Path] = r.Hash
	}
	for _, p := range snap.Prompts {
		want[p.Path] = p.Hash
	}
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return err
	}
	defer dir.Close()
	for _, path := range slices.Sorted(maps.Keys(want)) {
		hash := want[path]
		src, err := dir.ReadFile(path, workspace.MaxSourceBytes)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if workspace.Hash(src) != hash {
			return fmt.Errorf("%s changed since it was recorded", path)
		}
	}
	return nil
}

// save records the surface of a scan and the JSON of its listed tools,
// unless the record holds them already; it writes a temporary file and
// renames it over the record, so a reader sees a whole record or the
// previous one.
func (c *surfaceCache) save(s *workspace.Surface, entries []recordedEntry) error {
	rec := surfaceRecord{Format: surfaceCacheFormat, Root: c.root, Build: c.build, Snapshot: s.Snapshot(""), Entries: entries}
	if len(entries) > 0 {
		rec.EntriesSum = entriesSum(c.root, c.build, entries)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(rec); err != nil {
		return err
	}
	data := buf.Bytes()
	if bytes.Equal(data, c.read) {
		return nil
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".record-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	c.read = data
	return nil
}
