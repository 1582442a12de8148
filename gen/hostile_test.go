package gen

import (
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestHostileCatalogCompiles generates the catalog of the attack case
// catalog_hostile_text (e2e/attacks) and type-checks the result: property
// names that are no Go identifiers, keys that collide once made
// identifiers, hostile text in every string.
func TestHostileCatalogCompiles(t *testing.T) {
	ar, err := txtar.ParseFile("../e2e/attacks/testdata/catalog_hostile_text.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range ar.Files {
		if f.Name == "contracts/operations/catalog.v1.yaml" {
			src = f.Data
		}
	}
	cat, errs := ParseCatalog("contracts/operations/catalog.v1.yaml", src, CatalogOptions{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	outs, err := renderCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if strings.ContainsRune(string(o.data), '\ufeff') || strings.ContainsRune(string(o.data), '\u202e') {
			t.Errorf("%s holds a raw BOM or bidi override", o.path)
		}
	}
	if errs := typeCheckGenerated(t, outs); len(errs) > 0 {
		t.Fatalf("the generated code does not type-check: %v", errs)
	}
}
