package contractdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/internal/suggest"
)

var englishPrinter = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema of a contract, kept with its parsed
// document so that errors about unknown keys can list the allowed ones.
type Schema struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	url      string
	compiled *jsonschema.Schema
	// unionHints explain, by schema keyword location, a union that a value
	// matched no branch of (see ExplainUnion).
	unionHints map[string]string
}

// ExplainUnion words the failure of the anyOf/oneOf at keywordLocation (a
// JSON pointer into the schema, such as "/$defs/operation/anyOf") when the
// value fits none of its branches: the message becomes
// "<location> <explanation>".
func (s *Schema) ExplainUnion(keywordLocation, explanation string) {
	s.unionHints[keywordLocation] = explanation
}

// Sub returns the schema at fragment (a JSON pointer such as
// "/$defs/operation") of the same document, sharing its explanations, so
// that the parts of a large document can be validated one by one.
func (s *Schema) Sub(fragment string) *Schema {
	sub, err := s.compiler.Compile(s.url + "#" + fragment)
	if err != nil {
		panic("contract schema " + s.url + "#" + fragment + ": " + err.Error())
	}
	return &Schema{doc: s.doc, compiler: s.compiler, url: s.url, compiled: sub, unionHints: s.unionHints}
}

// MustCompileSchema compiles an embedded schema; name is used as its URL.
// It panics when the schema is invalid, which is a bug of the binary.
func MustCompileSchema(name string, data []byte) *Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		panic("contract schema " + name + ": " + err.Error())
	}
	url := "mem:///" + name
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		panic("contract schema " + name + ": " + err.Error())
	}
	sch, err := c.Compile(url)
	if err != nil {
		panic("contract schema " + name + ": " + err.Error())
	}
	return &Schema{doc: doc.(map[string]any), compiler: c, url: url, compiled: sch, unionHints: map[string]string{}}
}

// Describer names an instance location in messages ("top level",
// "fixtures[2]", ...).
type Describer func(loc []string) string

// DescribePath is the default Describer: the location's tokens joined with
// dots, list indices in brackets.
func DescribePath(loc []string) string {
	if len(loc) == 0 {
		return "top level"
	}
	var b strings.Builder
	for i, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil && i > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// Validate checks the document against the schema and returns every
// failure as a positioned message: unknown keys at the key with the keys
// allowed there, wrong types and missing keys at the value, failed unions
// reduced to the branches that expected the value's type.
func (s *Schema) Validate(d *Doc, describe Describer) []PosError {
	return s.ValidateValue(d, d.Root, nil, describe)
}

// ValidateValue checks v, the value at location at of document d (for
// instance one row of a large list), and reports failures with their
// positions in d. It may run concurrently with other validations.
func (s *Schema) ValidateValue(d *Doc, v schemajson.Value, at []string, describe Describer) []PosError {
	if describe == nil {
		describe = DescribePath
	}
	err := s.compiled.Validate(v.Any())
	if err == nil {
		return nil
	}
	r := &reporter{schema: s, doc: d, describe: describe, at: at}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []PosError{{d.Pos(PointerOf(at)), err.Error()}}
	}
	r.report(ve)
	return r.errs
}

type reporter struct {
	schema   *Schema
	doc      *Doc
	describe Describer
	at       []string // where the validated value sits in the document
	errs     []PosError
}

// abs is the location of an error in the whole document.
func (r *reporter) abs(ve *jsonschema.ValidationError) []string {
	if len(r.at) == 0 {
		return ve.InstanceLocation
	}
	return append(slices.Clone(r.at), ve.InstanceLocation...)
}

func (r *reporter) errorAt(p Pos, format string, args ...any) {
	r.errs = append(r.errs, PosError{p, fmt.Sprintf(format, args...)})
}

func (r *reporter) report(ve *jsonschema.ValidationError) {
	switch k := ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		causes := specificCauses(ve)
		if len(causes) == 0 {
			_, frag, _ := strings.Cut(ve.SchemaURL, "#")
			if hint, ok := r.schema.unionHints[frag+"/"+strings.Join(ve.ErrorKind.KeywordPath(), "/")]; ok {
				r.errorAt(r.doc.Pos(PointerOf(r.abs(ve))), "%s %s", r.describe(r.abs(ve)), hint)
				return
			}
			r.errorAt(r.doc.Pos(PointerOf(r.abs(ve))), "%s: %s", r.describe(r.abs(ve)), unionTypes(ve))
			return
		}
		for _, c := range causes {
			r.report(c)
		}
		return
	case *kind.AdditionalProperties:
		for _, key := range k.Properties {
			loc := append(r.abs(ve), key)
			allowed := r.schema.allowedKeys(ve.SchemaURL)
			hint := ""
			if near := suggest.Name(key, allowed); near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			r.errorAt(r.doc.KeyPos(PointerOf(loc)), "unknown key %q in %s%s; allowed: %s",
				key, r.describe(r.abs(ve)), hint, strings.Join(allowed, ", "))
		}
		return
	}
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			r.report(c)
		}
		return
	}
	r.errorAt(r.doc.Pos(PointerOf(r.abs(ve))), "%s", r.message(ve))
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
		case *kind.Type, *kind.Enum, *kind.Required, *kind.Const:
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
		case *kind.Type:
			want = append(want, k.Want...)
			got = k.Got
		case *kind.Enum:
			for _, w := range k.Want {
				want = append(want, jsonText(w))
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
	if got == "" {
		return "matches none of the allowed forms"
	}
	return fmt.Sprintf("got %s, want %s", got, strings.Join(want, " or "))
}

// message words a leaf validation error.
func (r *reporter) message(ve *jsonschema.ValidationError) string {
	where := r.describe(r.abs(ve))
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("%s: got %s, want %s", where, k.Got, strings.Join(k.Want, " or "))
	case *kind.Required:
		return fmt.Sprintf("%s: missing required key %s", where, quoteList(k.Missing))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return fmt.Sprintf("%s: %s is not allowed; allowed: %s", where, jsonText(k.Got), strings.Join(want, ", "))
	case *kind.Const:
		return fmt.Sprintf("%s: %s is not allowed; want %s", where, jsonText(k.Got), jsonText(k.Want))
	case *kind.Pattern:
		return fmt.Sprintf("%s: %q does not match %s", where, k.Got, k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("%s: must not be empty", where)
	case *kind.MinItems:
		return fmt.Sprintf("%s: want at least %d item(s), got %d", where, k.Want, k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("%s: %s is below the minimum %s", where, k.Got.RatString(), k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("%s: %s is above the maximum %s", where, k.Got.RatString(), k.Want.RatString())
	}
	return fmt.Sprintf("%s: %s", where, ve.ErrorKind.LocalizedString(englishPrinter))
}

// allowedKeys lists the properties of the schema object at schemaURL's
// fragment (the URL of an additionalProperties keyword), sorted.
func (s *Schema) allowedKeys(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	var node any = s.doc
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

// SchemaProblem is one reason a JSON Schema document is invalid, at a JSON
// pointer inside that document.
type SchemaProblem struct {
	Pointer string
	Message string
}

// validSchemas caches schema literals that compiled: catalogs repeat the
// same few input schemas many times.
var validSchemas sync.Map

// CheckSchemaDocument compiles v as a JSON Schema against its meta-schema
// (draft 2020-12 unless v names another with $schema) and returns the
// meta-schema violations at their place in v. Remote references are not
// fetched: they are problems too.
func CheckSchemaDocument(v schemajson.Value) []SchemaProblem {
	lit := string(schemajson.Canonical(v))
	if _, ok := validSchemas.Load(lit); ok {
		return nil
	}
	const url = "mem:///schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v.Any()); err != nil {
		return []SchemaProblem{{Message: oneLine(err.Error(), url)}}
	}
	if _, err := c.Compile(url); err != nil {
		var se *jsonschema.SchemaValidationError
		var ve *jsonschema.ValidationError
		if errors.As(err, &se) && errors.As(se.Err, &ve) {
			var out []SchemaProblem
			for _, leaf := range leafErrors(ve) {
				msg := leaf.ErrorKind.LocalizedString(englishPrinter)
				switch leaf.ErrorKind.(type) {
				case *kind.AnyOf, *kind.OneOf:
					msg = unionTypes(leaf)
				}
				out = append(out, SchemaProblem{PointerOf(leaf.InstanceLocation), msg})
			}
			return out
		}
		return []SchemaProblem{{Message: oneLine(err.Error(), url)}}
	}
	validSchemas.Store(lit, true)
	return nil
}

// leafErrors flattens a validation error to its leaves, preferring within
// a failed union the branches that expected the value's type.
func leafErrors(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	causes := ve.Causes
	switch ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		specific := specificCauses(ve)
		if len(specific) == 0 {
			return []*jsonschema.ValidationError{ve}
		}
		causes = specific
	}
	var out []*jsonschema.ValidationError
	for _, c := range causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

func oneLine(s, url string) string {
	s = strings.ReplaceAll(s, url, "schema")
	return strings.Join(strings.Fields(s), " ")
}
