package gen

import (
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/schemajson"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// row reads the members of one operation row, which the schema has
// already validated, so a missing or null member is simply absent.
type row struct {
	doc     *contractdoc.Doc
	pointer string
	obj     schemajson.Value
}

func (r row) get(keys ...string) (schemajson.Value, string, bool) {
	cur, ptr := r.obj, r.pointer
	for _, k := range keys {
		next, ok := cur.Get(k)
		if !ok || next.Kind == schemajson.Null {
			return schemajson.Value{}, "", false
		}
		cur, ptr = next, ptr+"/"+contractdoc.EscapePointer(k)
	}
	return cur, ptr, true
}

func (r row) str(keys ...string) string {
	v, _, ok := r.get(keys...)
	if !ok {
		return ""
	}
	return v.Text
}

func (r row) optBool(keys ...string) registry.OptBool {
	v, _, ok := r.get(keys...)
	switch {
	case !ok:
		return registry.Unset
	case v.Bool:
		return registry.True
	}
	return registry.False
}

func (r row) strings(keys ...string) []string {
	v, _, ok := r.get(keys...)
	if !ok {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind == schemajson.String {
			out = append(out, it.Text)
		}
	}
	return out
}

func (r row) pos(keys ...string) contractdoc.Pos {
	_, ptr, ok := r.get(keys...)
	if !ok {
		return r.doc.Pos(r.pointer)
	}
	return r.doc.Pos(ptr)
}

// buildRow compiles one row into the table and checks the rules the JSON
// Schema cannot express, against the rows before it.
func (v *catalogValidator) buildRow(r row) {
	at := r.doc.Pos(r.pointer)
	op := registry.Operation{
		ID:              r.str("id"),
		Title:           r.str("title"),
		Description:     r.str("description"),
		ProductLane:     v.shared(r.str("product_lane")),
		SideEffectClass: v.shared(r.str("side_effect_class")),
		Line:            at.Line,
		Col:             at.Col,
	}
	// side_effect_class is one class or a list of them; the first is the
	// row's class (docs/contracts.md §1), all of them decide the
	// annotations.
	if classes := r.strings("side_effect_class"); len(classes) > 0 {
		op.SideEffectClass = v.shared(classes[0])
		if len(classes) > 1 {
			op.SideEffects = classes
		}
	}
	if p, dup := v.firstID[op.ID]; dup {
		v.errorAt(r.pos("id"), "duplicate id %q (first at line %d)", op.ID, p.Line)
	} else {
		v.firstID[op.ID] = r.pos("id")
	}
	v.idsAndNames[op.ID] = op.ID
	// canonical_name and latin_aliases are validated here and not tabled
	// (runtime/registry's package comment).
	if name := r.str("canonical_name"); name != "" {
		v.idsAndNames[name] = op.ID
	}
	for j, alias := range r.strings("latin_aliases") {
		use := aliasUse{pos: r.doc.Pos(r.pointer + "/latin_aliases/" + strconv.Itoa(j)), id: op.ID, alias: alias}
		if !latinAliasRE.MatchString(alias) {
			continue // the schema reported it
		}
		if prev, dup := v.aliases[alias]; dup {
			v.errorAt(use.pos, "latin alias %q of operation %q is already an alias of operation %q (line %d): aliases are unique across the catalog", alias, op.ID, prev.id, prev.pos.Line)
			continue
		}
		v.aliases[alias] = use
		v.aliasChecks = append(v.aliasChecks, use)
	}
	if _, _, ok := r.get("mcp"); ok {
		op.MCP = v.buildMCP(r, op.ID)
	}
	if _, _, ok := r.get("cli"); ok {
		op.CLI = &registry.CLI{
			Path:   r.strings("cli", "path"),
			Status: v.shared(r.str("cli", "status")),
		}
		v.checkHandler(r, op.ID)
		key := strings.Join(op.CLI.Path, " ")
		if p, dup := v.firstPath[key]; dup {
			v.errorAt(r.pos("cli", "path"), "duplicate CLI path %q in operation %q (first at line %d)", key, op.ID, p.Line)
		} else {
			v.firstPath[key] = r.pos("cli", "path")
		}
	}
	v.cat.Operations = append(v.cat.Operations, op)
}

// checkHandler checks that the row's cli.handler (or handler_rust) names a
// file of the repository when the catalog is this repository's: the field
// tells readers where a command lives, and a path that moved sends them
// nowhere. The path is validated and not tabled.
func (v *catalogValidator) checkHandler(r row, id string) {
	key := "handler"
	path := r.str("cli", key)
	if path == "" {
		key = "handler_rust"
		path = r.str("cli", key)
	}
	if path == "" || v.opts.HandlerFiles == nil {
		return
	}
	if !fs.ValidPath(path) {
		v.errorAt(r.pos("cli", key), "cli.%s %q of operation %q is not a slash-separated path relative to the repository root; hint: write it as cmd/vox/NAME.go", key, path, id)
		return
	}
	if info, err := fs.Stat(v.opts.HandlerFiles, path); err != nil || !info.Mode().IsRegular() {
		v.errorAt(r.pos("cli", key), "cli.%s %q of operation %q names no file of this repository; hint: the path of the Go file that implements the command, relative to the repository root", key, path, id)
	}
}

// shared returns s, or the equal string of an earlier row: the values of
// a few words (lanes, classes, statuses) repeat in every row, and the
// table keeps one copy of each.
func (v *catalogValidator) shared(s string) string {
	if same, ok := v.words[s]; ok {
		return same
	}
	if len(v.words) < 1024 {
		v.words[s] = s
	}
	return s
}

// finish compiles the top level, once every row is read, and checks the
// rules across all rows.
func (v *catalogValidator) finish() {
	cat := v.cat
	top := row{doc: v.doc, obj: v.doc.Root}
	sv, _, _ := top.get("schema_version")
	cat.SchemaVersion, _ = strconv.Atoi(sv.Text)
	if x, _, ok := top.get("x-vox-version"); ok {
		cat.XVoxVersion, _ = strconv.Atoi(x.Text)
	}
	cat.Exemptions.MCPTools = top.strings("exemptions", "mcp_tools")
	if paths, _, ok := top.get("exemptions", "cli_paths"); ok {
		for _, p := range paths.Items {
			path := make([]string, len(p.Items))
			for i, w := range p.Items {
				path[i] = w.Text
			}
			cat.Exemptions.CLIPaths = append(cat.Exemptions.CLIPaths, path)
		}
	}
	for _, use := range v.aliasChecks {
		if owner, clash := v.idsAndNames[use.alias]; clash {
			v.errorAt(use.pos, "latin alias %q of operation %q equals the id or canonical_name of operation %q: aliases must differ from every id and canonical_name", use.alias, use.id, owner)
		}
	}
	sort.SliceStable(cat.Operations, func(i, j int) bool { return cat.Operations[i].ID < cat.Operations[j].ID })
}

// buildMCP compiles the MCP projection of row r and checks its name and
// schemas.
func (v *catalogValidator) buildMCP(r row, id string) *registry.MCP {
	m := &registry.MCP{
		Name:                 r.str("mcp", "name"),
		Title:                r.str("mcp", "title"),
		Exposure:             v.shared(r.str("mcp", "exposure")),
		Requires:             r.strings("mcp", "requires"),
		HTTPReadRoleEligible: r.optBool("mcp", "http_read_role_eligible") == registry.True,
		AllowlistExempt:      r.optBool("mcp", "allowlist_exempt") == registry.True,
		TaskSupport:          r.str("mcp", "task_support"),
	}
	if m.TaskSupport == registry.TaskForbidden {
		m.TaskSupport = "" // the default, spelled out
	}
	namePos := r.pos("mcp", "name")
	if nv, _, ok := r.get("mcp", "name"); !ok || nv.Kind != schemajson.String {
		return m // the schema reported it
	}
	switch {
	case !toolNameRE.MatchString(m.Name):
		v.errorAt(namePos, "operation %q: invalid tool name %q: MCP tool names must match %s (letters, digits, _ and -, at most 64)", id, m.Name, registry.ToolNamePattern)
	case v.opts.RequireVoxPrefix && !strings.HasPrefix(m.Name, "vox_"):
		v.errorAt(namePos, "operation %q: tool name %q must start with vox_ (the convention of this product's catalog)", id, m.Name)
	}
	if p, dup := v.firstName[m.Name]; dup {
		v.errorAt(namePos, "duplicate MCP tool name %q in operation %q (first at line %d)", m.Name, id, p.Line)
	} else {
		v.firstName[m.Name] = namePos
	}
	if tier := r.str("mcp", "tier"); tier != "" {
		if m.Exposure != "" && m.Exposure != tier {
			v.errorAt(r.pos("mcp", "tier"), "operation %q: tier %q disagrees with exposure %q (tier is the deprecated spelling of exposure: keep only exposure)", id, tier, m.Exposure)
		}
		if m.Exposure == "" {
			m.Exposure = tier
		}
	}
	if m.Exposure == "" {
		m.Exposure = registry.DefaultExposure
	}
	slices.Sort(m.Requires)
	m.Requires = slices.Compact(m.Requires)

	m.InputSchema = []byte(registry.DefaultInputSchema)
	if s, ptr, ok := r.get("mcp", "input_schema"); ok {
		if lit, ok := v.checkSchema(r.doc, s, ptr, id, "input_schema"); ok {
			m.InputSchema = lit
			v.checkDefaults(r.doc, s, ptr, id)
		}
	}
	if s, ptr, ok := r.get("mcp", "output_schema"); ok {
		if lit, ok := v.checkSchema(r.doc, s, ptr, id, "output_schema"); ok {
			m.OutputSchema = lit
		}
	}
	return m
}

// checkSchema verifies that s is a JSON Schema of type object and returns
// its canonical literal. Identical schemas are compiled once per run, and
// share one literal.
func (v *catalogValidator) checkSchema(doc *contractdoc.Doc, s schemajson.Value, ptr, id, key string) ([]byte, bool) {
	lit := schemajson.Schema(s)
	pos := doc.Pos(ptr)
	if t, ok := s.Get("type"); !ok || t.Kind != schemajson.String || t.Text != "object" {
		v.errorAt(pos, "operation %q: %s must be a JSON Schema with \"type\": \"object\"", id, key)
		return nil, false
	}
	if problems := contractdoc.CheckSchemaDocument(s); len(problems) > 0 {
		for _, p := range problems {
			v.errorAt(doc.Pos(ptr+p.Pointer), "operation %q: %s is not a valid JSON Schema: %s", id, key, p.Message)
		}
		return nil, false
	}
	if same, ok := v.literals[string(lit)]; ok {
		return same, true
	}
	v.literals[string(lit)] = lit
	return lit, true
}

// checkDefaults reports every argument default that does not fit its
// property's type: the generated decoder applies defaults as Go values of
// that type (docs/contracts.md §5), so such a default is an error at its
// own line, not a surprise at call time.
func (v *catalogValidator) checkDefaults(doc *contractdoc.Doc, s schemajson.Value, ptr, id string) {
	props, ok := s.Get("properties")
	if !ok || props.Kind != schemajson.Object {
		return
	}
	for _, p := range props.Members {
		d, ok := p.Value.Get("default")
		types := schemaTypes(p.Value)
		if !ok || len(types) == 0 || slices.ContainsFunc(types, func(t string) bool { return valueHasType(d, t) }) {
			continue
		}
		at := doc.Pos(ptr + "/properties/" + pointerToken(p.Key) + "/default")
		v.errorAt(at, "operation %q: input_schema property %q: default %s is not %s", id, p.Key, schemajson.Compact(d), typeNoun(types))
	}
}

// valueHasType reports whether a JSON value is of a JSON Schema type.
func valueHasType(v schemajson.Value, t string) bool {
	switch t {
	case "string":
		return v.Kind == schemajson.String
	case "boolean":
		return v.Kind == schemajson.Bool
	case "number":
		return v.Kind == schemajson.Number
	case "integer":
		return v.Kind == schemajson.Number && defaultFits(argInt, v)
	case "array":
		return v.Kind == schemajson.Array
	case "object":
		return v.Kind == schemajson.Object
	case "null":
		return v.Kind == schemajson.Null
	}
	return true
}

// typeNoun names types for a message: "an integer", "a string or null".
func typeNoun(types []string) string {
	article := "a "
	if strings.IndexAny(types[0][:1], "aeiou") == 0 {
		article = "an "
	}
	return article + strings.Join(types, " or ")
}

// pointerToken escapes a key for a JSON pointer (RFC 6901).
func pointerToken(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
