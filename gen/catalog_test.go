package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden tests")

// TestCatalogGolden runs every case of testdata/catalog: each txtar holds
// a catalog.v1.yaml and either the expected errors ("errors") or the
// expected generated files (named by their paths). Run with -update to
// rewrite the expectations.
func TestCatalogGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/catalog/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(ar.Files) == 0 || ar.Files[0].Name != "catalog.v1.yaml" {
				t.Fatalf("%s must start with catalog.v1.yaml", file)
			}
			got := []txtar.File{ar.Files[0]}
			cat, errs := ParseCatalog("contracts/operations/catalog.v1.yaml", ar.Files[0].Data, CatalogOptions{})
			if len(errs) > 0 {
				got = append(got, txtar.File{Name: "errors", Data: []byte(errs.Error() + "\n")})
			} else {
				outs, err := renderCatalog(cat)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range outs {
					got = append(got, txtar.File{Name: o.path, Data: o.data})
				}
			}
			if *update {
				ar.Files = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := ar.Files
			if len(want) != len(got) {
				t.Fatalf("got %d sections, want %d (run go test ./gen -run TestCatalogGolden -update to accept); got:\n%s", len(got), len(want), txtar.Format(&txtar.Archive{Files: got}))
			}
			for i := range want {
				if want[i].Name != got[i].Name || !bytes.Equal(want[i].Data, got[i].Data) {
					t.Errorf("section %d differs (run with -update to accept):\n got %s:\n%s\nwant %s:\n%s", i, got[i].Name, got[i].Data, want[i].Name, want[i].Data)
				}
			}
		})
	}
}
