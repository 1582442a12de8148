package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/schemajson"
)

var (
	toolNameRE    = regexp.MustCompile(registry.ToolNamePattern)
	latinAliasRE  = regexp.MustCompile(registry.LatinAliasPattern)
	catalogSchema = sync.OnceValues(compileCatalogSchema)
)

const catalogSchemaURL = "mem:///catalog.v1.schema.json"

// catalogSchemaDoc is the parsed schema, used to name the keys allowed
// where an unknown key was found.
var catalogSchemaDoc = sync.OnceValue(func() map[string]any {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(contracts.CatalogSchema))
	if err != nil {
		panic("embedded catalog schema: " + err.Error())
	}
	return doc.(map[string]any)
})

func compileCatalogSchema() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource(catalogSchemaURL, catalogSchemaDoc()); err != nil {
		return nil, err
	}
	return c.Compile(catalogSchemaURL)
}

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
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(registry.CatalogPath)))
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

// ProductModule is the module path of this product.
const ProductModule = "github.com/vox-lang/vox-mcp"

// IsProductRepository reports whether root is this product's own
// repository (its go.mod declares ProductModule).
func IsProductRepository(root string) bool {
	return ModulePath(root) == ProductModule
}

// ModulePath returns the module path declared by root/go.mod, or "".
func ModulePath(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// ParseCatalog validates catalog source and compiles it into a table.
// path is the repo-relative path used in errors.
func ParseCatalog(path string, src []byte, opts CatalogOptions) (*registry.Catalog, Errors) {
	doc, perrs := parseYAML(src)
	var errs Errors
	for _, pe := range perrs {
		errs = append(errs, Error{path, pe.Pos.Line, pe.Pos.Col, pe.Msg})
	}
	if doc == nil {
		return nil, errs
	}
	v := &catalogValidator{path: path, doc: doc, opts: opts, errs: errs}
	// The extra rules run even when the schema failed, so one run reports
	// every problem; their accessors tolerate values of the wrong type.
	v.validateSchema()
	v.buildAndCheck()
	if len(v.errs) > 0 {
		return nil, v.errs.dedupe()
	}
	return v.cat, nil
}

type catalogValidator struct {
	path string
	doc  *yamlDoc
	opts CatalogOptions
	errs Errors
	cat  *registry.Catalog
}

func (v *catalogValidator) errorAt(p Pos, format string, args ...any) {
	v.errs = append(v.errs, Error{v.path, p.Line, p.Col, fmt.Sprintf(format, args...)})
}

// validateSchema checks the document against catalog.v1.schema.json and
// turns each failure into a positioned message.
func (v *catalogValidator) validateSchema() {
	sch, err := catalogSchema()
	if err != nil {
		v.errorAt(Pos{1, 1}, "internal error: catalog schema does not compile: %v", err)
		return
	}
	err = sch.Validate(v.doc.root.Any())
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		if err != nil {
			v.errorAt(Pos{1, 1}, "%v", err)
		}
		return
	}
	v.reportValidation(ve)
}

func (v *catalogValidator) reportValidation(ve *jsonschema.ValidationError) {
	switch k := ve.ErrorKind.(type) {
	case *kindAnyOf, *kindOneOf:
		// A union failed. When some branches fail only because the value
		// has the wrong type for them, report the branches that expected
		// this type: their errors say what is wrong inside the value.
		causes := specificCauses(ve)
		if len(causes) == 0 {
			if v.rowNeedsProjection(ve) {
				return
			}
			v.errorAt(v.doc.pos(pointerOf(ve.InstanceLocation)), "%s: %s", v.describe(ve.InstanceLocation), unionTypes(ve))
			return
		}
		for _, c := range causes {
			v.reportValidation(c)
		}
		return
	case *kindAdditionalProperties:
		for _, key := range k.Properties {
			loc := append(slices.Clone(ve.InstanceLocation), key)
			v.errorAt(v.doc.keyPosition(pointerOf(loc)), "unknown key %q in %s; allowed: %s",
				key, v.describe(ve.InstanceLocation), strings.Join(allowedKeys(ve.SchemaURL), ", "))
		}
		return
	}
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			v.reportValidation(c)
		}
		return
	}
	v.errorAt(v.doc.pos(pointerOf(ve.InstanceLocation)), "%s", v.message(ve))
}

// rowNeedsProjection reports the operation-level rule "a row must have mcp,
// cli, or both" in words when that union failed.
func (v *catalogValidator) rowNeedsProjection(ve *jsonschema.ValidationError) bool {
	loc := ve.InstanceLocation
	if len(loc) != 2 || loc[0] != "operations" {
		return false
	}
	v.errorAt(v.doc.pos(pointerOf(loc)), "%s has neither mcp nor cli: a row must have mcp, cli, or both", v.describe(loc))
	return true
}

// specificCauses drops the branches of a failed union that reject the
// value's type outright.
func specificCauses(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		if !onlyTypeMismatch(c, len(ve.InstanceLocation)) {
			out = append(out, c)
		}
	}
	return out
}

func onlyTypeMismatch(ve *jsonschema.ValidationError, depth int) bool {
	if len(ve.Causes) == 0 {
		switch ve.ErrorKind.(type) {
		case *kindType, *kindEnum, *kindRequired:
			return len(ve.InstanceLocation) == depth
		}
		return false
	}
	for _, c := range ve.Causes {
		if !onlyTypeMismatch(c, depth) {
			return false
		}
	}
	return true
}

// unionTypes summarises what a failed union accepts.
func unionTypes(ve *jsonschema.ValidationError) string {
	var want []string
	got := ""
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch k := e.ErrorKind.(type) {
		case *kindType:
			want = append(want, k.Want...)
			got = k.Got
		case *kindEnum:
			for _, w := range k.Want {
				want = append(want, fmt.Sprint(jsonText(w)))
			}
			got = jsonText(k.Got)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(want)
	want = slices.Compact(want)
	return fmt.Sprintf("got %s, want %s", got, strings.Join(want, " or "))
}

// message words a leaf validation error.
func (v *catalogValidator) message(ve *jsonschema.ValidationError) string {
	where := v.describe(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kindType:
		return fmt.Sprintf("%s: got %s, want %s", where, k.Got, strings.Join(k.Want, " or "))
	case *kindRequired:
		return fmt.Sprintf("%s: missing required key %s", where, quoteList(k.Missing))
	case *kindEnum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return fmt.Sprintf("%s: %s is not allowed; allowed: %s", where, jsonText(k.Got), strings.Join(want, ", "))
	case *kindPattern:
		return fmt.Sprintf("%s: %q does not match %s", where, k.Got, k.Want)
	case *kindMinLength:
		return fmt.Sprintf("%s: must not be empty", where)
	case *kindMinItems:
		return fmt.Sprintf("%s: want at least %d item(s), got %d", where, k.Want, k.Got)
	case *kindMinimum:
		return fmt.Sprintf("%s: %s is below the minimum %s", where, k.Got.RatString(), k.Want.RatString())
	case *kindMaximum:
		return fmt.Sprintf("%s: %s is above the maximum %s", where, k.Got.RatString(), k.Want.RatString())
	}
	return fmt.Sprintf("%s: %s", where, ve.ErrorKind.LocalizedString(englishPrinter))
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
	if ops, ok := v.doc.root.Get("operations"); ok && ops.Kind == schemajson.Array && idx < len(ops.Items) {
		if id, ok := ops.Items[idx].Get("id"); ok && id.Kind == schemajson.String {
			row = fmt.Sprintf("operation %q", id.Text)
		}
	}
	if len(loc) == 2 {
		return row
	}
	return strings.Join(loc[2:], ".") + " of " + row
}

// allowedKeys lists the properties of the schema object at schemaURL's
// fragment (the URL of an additionalProperties keyword), sorted.
func allowedKeys(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	var node any = catalogSchemaDoc()
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	m, _ := node.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func pointerOf(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(tok))
	}
	return b.String()
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// validSchemas caches schema literals that compiled, across runs: catalogs
// repeat the same few schemas many times.
var validSchemas sync.Map
