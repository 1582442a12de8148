package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/runtime/contractdoc"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/safefs"
	"github.com/vox-lang/vox-mcp/runtime/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

var (
	toolNameRE   = regexp.MustCompile(registry.ToolNamePattern)
	latinAliasRE = regexp.MustCompile(registry.LatinAliasPattern)
)

// catalogSchema is contracts/operations/catalog.v1.schema.json, compiled
// once.
var catalogSchema = sync.OnceValue(func() *contractdoc.Schema {
	s := contractdoc.MustCompileSchema("catalog.v1.schema.json", contracts.CatalogSchema)
	s.ExplainUnion("/$defs/operation/anyOf", "has neither mcp nor cli: a row must have mcp, cli, or both")
	s.ExplainUnion("/$defs/operation/properties/side_effect_class/anyOf",
		`is not a side-effect class, a list of them or null; allowed: "none", "read_only", "changes_state", "removes_state", "writes_files", "spawns_process", "network", "destructive"`)
	return s
})

// CatalogOptions adjust the checks that depend on whose catalog it is.
type CatalogOptions struct {
	// RequireVoxPrefix enforces the vox_ prefix of this product's own tool
	// names; it is set only for this repository's catalog.
	RequireVoxPrefix bool
}

// LoadCatalog reads and validates the catalog of the repository at root.
// A missing file is reported as fs.ErrNotExist; an invalid one as Errors
// holding every problem with its position.
func LoadCatalog(root string) (*registry.Catalog, error) {
	src, err := readCatalog(root)
	if err != nil {
		return nil, err
	}
	opts := CatalogOptions{RequireVoxPrefix: IsProductRepository(root)}
	cat, errs := ParseCatalog(registry.CatalogPath, src, opts)
	if len(errs) > 0 {
		return nil, errs
	}
	return cat, nil
}

// readCatalog reads the catalog beneath root through runtime/safefs, like
// the server reads the workspace: a named pipe, socket or device in its
// place is refused at once instead of blocking vox gen on an open that
// waits for a writer, and a file over the contract size limit is refused
// before a byte is read (docs/security.md). A missing catalog is
// fs.ErrNotExist; every other problem is a positioned Error.
func readCatalog(root string) ([]byte, error) {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	limit := int64(contractdoc.ContractLimits.MaxBytes)
	src, err := dir.ReadFile(registry.CatalogPath, limit)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return src, err
	}
	at := Error{Path: registry.CatalogPath, Line: 1, Col: 1}
	var tooLarge *safefs.TooLargeError
	var pe *fs.PathError
	switch {
	case errors.As(err, &tooLarge):
		at.Message = contractdoc.TooLargeMessage(tooLarge.Size, limit)
	case errors.As(err, &pe):
		at.Message = "cannot read: " + pe.Err.Error() + "; the catalog must be a regular file beneath the repository root"
	default:
		at.Message = "cannot read: " + err.Error()
	}
	return nil, Errors{at}
}

// ProductModule is the module path of this product.
const ProductModule = "github.com/vox-lang/vox-mcp"

// IsProductRepository reports whether root is this product's own
// repository (its go.mod declares ProductModule).
func IsProductRepository(root string) bool {
	return workspace.ModulePath(root) == ProductModule
}

// ParseCatalog validates catalog source and compiles it into a table.
// path is the repo-relative path used in errors.
func ParseCatalog(path string, src []byte, opts CatalogOptions) (*registry.Catalog, Errors) {
	doc, perrs := contractdoc.ParseYAML(src, "a mapping with schema_version and operations")
	errs := contractdoc.At(path, perrs)
	if doc == nil {
		return nil, errs
	}
	v := &catalogValidator{path: path, doc: doc, opts: opts, errs: errs}
	// The extra rules run even when the schema failed, so one run reports
	// every problem; their accessors tolerate values of the wrong type.
	v.errs = append(v.errs, contractdoc.At(path, v.validateSchema())...)
	v.buildAndCheck()
	if len(v.errs) > 0 {
		return nil, v.errs.Dedupe()
	}
	return v.cat, nil
}

type catalogValidator struct {
	path string
	doc  *contractdoc.Doc
	opts CatalogOptions
	errs Errors
	cat  *registry.Catalog
}

func (v *catalogValidator) errorAt(p contractdoc.Pos, format string, args ...any) {
	v.errs = append(v.errs, Error{Path: v.path, Line: p.Line, Col: p.Col, Message: fmt.Sprintf(format, args...)})
}

// rowSchema is the schema of one operation row.
var rowSchema = sync.OnceValue(func() *contractdoc.Schema { return catalogSchema().Sub("/$defs/operation") })

// validateSchema checks the document against the catalog schema. A
// catalog holds hundreds to tens of thousands of rows, so the top level is
// validated with the rows left out and the rows are validated on their
// own, in parallel: less live memory at once and both cores busy.
func (v *catalogValidator) validateSchema() []contractdoc.PosError {
	root := v.doc.Root
	ops, ok := root.Get("operations")
	if !ok || ops.Kind != schemajson.Array {
		return catalogSchema().Validate(v.doc, v.describe)
	}
	top := root
	top.Members = slices.Clone(root.Members)
	for i := range top.Members {
		if top.Members[i].Key == "operations" {
			top.Members[i].Value = schemajson.ArrayValue()
		}
	}
	errs := catalogSchema().ValidateValue(v.doc, top, nil, v.describe)

	perRow := make([][]contractdoc.PosError, len(ops.Items))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ops.Items)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(ops.Items); i = int(next.Add(1)) - 1 {
				perRow[i] = rowSchema().ValidateValue(v.doc, ops.Items[i], []string{"operations", strconv.Itoa(i)}, v.describe)
			}
		})
	}
	wg.Wait()
	for _, e := range perRow {
		errs = append(errs, e...)
	}
	return errs
}

// describe names an instance location for messages: "top level",
// "operation \"skill.search\"", "mcp of operation \"skill.search\"", ...
func (v *catalogValidator) describe(loc []string) string {
	if len(loc) == 0 {
		return "top level"
	}
	if loc[0] != "operations" || len(loc) < 2 {
		return strings.Join(loc, ".")
	}
	idx, _ := strconv.Atoi(loc[1])
	row := fmt.Sprintf("operations[%d]", idx)
	if ops, ok := v.doc.Root.Get("operations"); ok && ops.Kind == schemajson.Array && idx < len(ops.Items) {
		if id, ok := ops.Items[idx].Get("id"); ok && id.Kind == schemajson.String {
			row = fmt.Sprintf("operation %q", id.Text)
		}
	}
	if len(loc) == 2 {
		return row
	}
	return strings.Join(loc[2:], ".") + " of " + row
}
