package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/registry"
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
	// HandlerFiles, when set, is the repository the catalog's cli.handler
	// paths must name a file of. It is set only for this repository's
	// catalog, whose handlers are its own Go files; another repository's
	// catalog may name files of another implementation (handler_rust).
	HandlerFiles fs.FS
}

// LoadCatalog reads and validates the catalog of the repository at root.
// A missing file is reported as fs.ErrNotExist; an invalid one as Errors
// holding every problem with its position.
func LoadCatalog(root string) (*registry.Catalog, error) {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, size, err := openCatalog(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opts := CatalogOptions{RequireVoxPrefix: IsProductRepository(root)}
	if opts.RequireVoxPrefix {
		opts.HandlerFiles = os.DirFS(root)
	}
	cat, errs := parseCatalog(registry.CatalogPath, opts, func(start func() func(contractdoc.Row)) (*contractdoc.Doc, []contractdoc.PosError) {
		return contractdoc.ParseYAMLRowsFrom(f, size, "operations", catalogEmptyHint, contractdoc.RowsLimits, start)
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return cat, nil
}

// openCatalog opens the catalog beneath root through internal/safefs, like
// the server reads the workspace: a named pipe, socket or device in its
// place is refused at once instead of blocking vox gen on an open that
// waits for a writer, and a file over the catalog's size limit is refused
// before a byte is read (docs/security.md). The catalog is then read
// piece by piece as its rows are parsed. A missing catalog is
// fs.ErrNotExist; every other problem is a positioned Error.
func openCatalog(dir *safefs.Root) (*os.File, int64, error) {
	at := Error{Path: registry.CatalogPath, Line: 1, Col: 1}
	limit := int64(contractdoc.RowsLimits.MaxBytes)
	f, info, err := dir.Open(registry.CatalogPath)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, err
	case errors.As(err, &pe):
		at.Message = "cannot read: " + pe.Err.Error() + "; the catalog must be a regular file beneath the repository root"
	case err != nil:
		at.Message = "cannot read: " + err.Error()
	case info.IsDir():
		f.Close()
		at.Message = "cannot read: is a folder, not a file; the catalog must be a regular file beneath the repository root"
	case info.Size() > limit:
		f.Close()
		at.Message = contractdoc.TooLargeMessage(info.Size(), limit)
	default:
		return f, info.Size(), nil
	}
	return nil, 0, Errors{at}
}

// ProductModule is the module path of this product.
const ProductModule = "github.com/vox-lang/vox-mcp"

// IsProductRepository reports whether root is this product's own
// repository (its go.mod declares ProductModule).
func IsProductRepository(root string) bool {
	return workspace.ModulePath(root) == ProductModule
}

// catalogEmptyHint completes the message for an empty catalog.
const catalogEmptyHint = "a mapping with schema_version and operations"

// ParseCatalog validates catalog source and compiles it into a table.
// path is the repo-relative path used in errors. The rows are read,
// validated and compiled one at a time (contractdoc.ParseYAMLRows), so
// memory holds the compiled table and one row's tree, not the whole
// document's (docs/contracts.md §1).
func ParseCatalog(path string, src []byte, opts CatalogOptions) (*registry.Catalog, Errors) {
	return parseCatalog(path, opts, func(start func() func(contractdoc.Row)) (*contractdoc.Doc, []contractdoc.PosError) {
		return contractdoc.ParseYAMLRows(src, "operations", catalogEmptyHint, contractdoc.RowsLimits, start)
	})
}

// parseCatalog validates and compiles the catalog that read hands row by
// row to the visitor it starts.
func parseCatalog(path string, opts CatalogOptions, read func(start func() func(contractdoc.Row)) (*contractdoc.Doc, []contractdoc.PosError)) (*registry.Catalog, Errors) {
	var v *catalogValidator
	doc, perrs := read(func() func(contractdoc.Row) {
		v = newCatalogValidator(path, opts)
		return v.row
	})
	errs := contractdoc.At(path, perrs)
	if doc == nil {
		return nil, errs
	}
	v.doc = doc
	v.errs = append(v.errs, errs...)
	// The top level's rules run even when the rows failed, so one run
	// reports every problem; their accessors tolerate values of the
	// wrong type.
	v.errs = append(v.errs, contractdoc.At(path, catalogSchema().Validate(doc, v.describe))...)
	v.finish()
	if len(v.errs) > 0 {
		return nil, v.errs.Dedupe()
	}
	return v.cat, nil
}

// catalogValidator checks and compiles a catalog row by row, then its
// top level.
type catalogValidator struct {
	path string
	doc  *contractdoc.Doc // the top level, once the rows are read
	opts CatalogOptions
	errs Errors
	cat  *registry.Catalog

	// What the rules across rows need of the rows read so far.
	firstID, firstName, firstPath map[string]contractdoc.Pos
	aliases                       map[string]aliasUse
	idsAndNames                   map[string]string // id or canonical_name -> the row id it belongs to
	aliasChecks                   []aliasUse        // compared with idsAndNames once every row is read

	// What rows repeat, kept once: schema literals, and short words.
	literals map[string][]byte
	words    map[string]string
}

type aliasUse struct {
	pos   contractdoc.Pos
	id    string
	alias string
}

func newCatalogValidator(path string, opts CatalogOptions) *catalogValidator {
	return &catalogValidator{
		path: path, opts: opts, cat: &registry.Catalog{Source: path},
		firstID: map[string]contractdoc.Pos{}, firstName: map[string]contractdoc.Pos{}, firstPath: map[string]contractdoc.Pos{},
		aliases: map[string]aliasUse{}, idsAndNames: map[string]string{},
		literals: map[string][]byte{}, words: map[string]string{},
	}
}

func (v *catalogValidator) errorAt(p contractdoc.Pos, format string, args ...any) {
	v.errs = append(v.errs, Error{Path: v.path, Line: p.Line, Col: p.Col, Message: fmt.Sprintf(format, args...)})
}

// rowSchema is the schema of one operation row.
var rowSchema = sync.OnceValue(func() *contractdoc.Schema { return catalogSchema().Sub("/$defs/operation") })

// row validates one operation row against the row schema and compiles
// it. Its rules run even when the schema failed, so one run reports every
// problem.
func (v *catalogValidator) row(r contractdoc.Row) {
	v.errs = append(v.errs, contractdoc.At(v.path, r.Errs)...)
	describe := func(loc []string) string { return describeRow(r.Doc.Root, loc) }
	at := []string{"operations", strconv.Itoa(r.Index)}
	v.errs = append(v.errs, contractdoc.At(v.path, rowSchema().ValidateValue(r.Doc, r.Doc.Root, at, describe))...)
	v.buildRow(row{doc: r.Doc, pointer: contractdoc.PointerOf(at), obj: r.Doc.Root})
}

// describe names an instance location of the top level for messages:
// "top level", "exemptions.mcp_tools", and the rows' locations when the
// rows could not be read one by one.
func (v *catalogValidator) describe(loc []string) string {
	if len(loc) >= 2 && loc[0] == "operations" {
		idx, _ := strconv.Atoi(loc[1])
		if ops, ok := v.doc.Root.Get("operations"); ok && ops.Kind == schemajson.Array && idx < len(ops.Items) {
			return describeRow(ops.Items[idx], loc)
		}
		return describeRow(schemajson.Value{}, loc)
	}
	if len(loc) == 0 {
		return "top level"
	}
	return strings.Join(loc, ".")
}

// describeRow names a location within the operation row obj (at
// operations.<index>): "operation \"skill.search\"", "mcp of operation
// \"skill.search\"", or "operations[3]" for a row without an id.
func describeRow(obj schemajson.Value, loc []string) string {
	if len(loc) < 2 {
		return strings.Join(loc, ".")
	}
	idx, _ := strconv.Atoi(loc[1])
	row := fmt.Sprintf("operations[%d]", idx)
	if id, ok := obj.Get("id"); ok && id.Kind == schemajson.String {
		row = fmt.Sprintf("operation %q", id.Text)
	}
	if len(loc) == 2 {
		return row
	}
	return strings.Join(loc[2:], ".") + " of " + row
}
