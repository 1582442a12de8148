package attacks

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// plantedRecord mirrors the surface cache's record
// (internal/server/workspace_cache.go) field by field, as gob matches
// them by name.
type plantedRecord struct {
	Format   int
	Root     string
	Build    string
	Snapshot *workspace.Snapshot
	Entries  []struct {
		Name     string
		ReadOnly bool
		JSON     []byte
	}
	EntriesSum [32]byte
}

// cmdRecordTamper is record-tamper DIR OLD NEW: in every surface record
// in DIR it replaces OLD by NEW in each tool's stored JSON, leaving the
// rest of the record as it is, as a process that can write the record
// but not sign it would.
func cmdRecordTamper(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: record-tamper DIR OLD NEW")
	}
	records, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), "*.gob"))
	ts.Check(err)
	if len(records) == 0 {
		ts.Fatalf("record-tamper: no record in %s", args[0])
	}
	for _, path := range records {
		data, err := os.ReadFile(path)
		ts.Check(err)
		var rec plantedRecord
		ts.Check(gob.NewDecoder(bytes.NewReader(data)).Decode(&rec))
		changed := 0
		for i := range rec.Entries {
			if bytes.Contains(rec.Entries[i].JSON, []byte(args[1])) {
				rec.Entries[i].JSON = bytes.ReplaceAll(rec.Entries[i].JSON, []byte(args[1]), []byte(args[2]))
				changed++
			}
		}
		if changed == 0 {
			ts.Fatalf("record-tamper: no stored entry of %s holds %q", path, args[1])
		}
		var buf bytes.Buffer
		ts.Check(gob.NewEncoder(&buf).Encode(rec))
		ts.Check(os.WriteFile(path, buf.Bytes(), 0o600))
	}
}
