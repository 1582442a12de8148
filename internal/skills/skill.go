// Package skills is the skills system of vox-mcp (docs/skills.md): skills in
// the open Agent Skills format (a folder holding SKILL.md with front matter,
// plus scripts/, references/ and assets/), found in the standard skill
// folders, held in an in-memory registry keyed by id, searched with the
// shared BM25F index, served as skill:// resources (SEP-2640), turned into
// instructional macro tools, and activated to restrict which tools may be
// called (the allowlist).
//
// The package knows nothing of MCP: the server asks a Registry for a
// Snapshot and registers what it holds (resources, macro tools), answers the
// vox_skill_* tools through the Registry's methods, and applies Allow in its
// tool middleware. A Snapshot is immutable; every change builds a new one
// (one search index rebuild per change) and announces it to the OnChange
// callbacks, so many goroutines may read while one writes.
package skills

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Skill is one parsed SKILL.md: the standard Agent Skills fields and the
// Vox manifest fields (read from metadata.vox-<key>, else from a top-level
// <key>). The JSON form is the manifest part of the vox_skill_info result.
type Skill struct {
	ID string `json:"id"`
	// DeclaredID is the id as written when it is not a valid id and the
	// skill is served under one derived from it (a dotted id of the Vox
	// plugin convention, "vox.compiler" served as "vox-compiler"): a
	// lookup by id accepts it too. "" when the id is served as written.
	DeclaredID    string   `json:"declared_id,omitempty"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Version       string   `json:"version"`
	Category      string   `json:"category"`
	Tags          []string `json:"tags"`
	Tools         []string `json:"tools"`
	Author        string   `json:"author"`
	Dependencies  []string `json:"dependencies"`
	Permissions   []string `json:"permissions"`
	AllowedTools  []string `json:"allowed_tools"`
	License       string   `json:"license"`
	Compatibility string   `json:"compatibility"`

	// Metadata is the standard string-to-string metadata map (non-string
	// values are kept in their written form).
	Metadata map[string]string `json:"-"`
	// Format is FormatYAML or FormatTOML.
	Format string `json:"-"`
	// Body is the Markdown after the front matter: the skill's instructions.
	Body string `json:"-"`
	// Source is the SKILL.md exactly as read.
	Source []byte `json:"-"`
}

// DefaultVersion is the version of a skill whose manifest names none.
const DefaultVersion = "0.1.0"

// Permissions a manifest may list. They are informational: vox_skill_info
// shows them, the sandbox does not depend on them.
var KnownPermissions = []string{"read_files", "write_files", "shell_exec", "network", "db_read", "db_write", "secrets"}

// Agent Skills limits (the reference validator's), in characters.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

// StandardKeys are the top-level front matter keys of the Agent Skills
// specification.
var StandardKeys = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// ManifestKeys are the Vox manifest fields; each may also appear at top
// level in older skills.
var ManifestKeys = []string{"id", "version", "author", "category", "tools", "tags", "dependencies", "permissions"}

// The id and tool-name rules are written out rather than as regular
// expressions: their bounded repetitions ({0,62}, {1,64}) compiled to
// programs of a hundred-odd instructions at every start of vox-mcp, half a
// millisecond of its cold start (docs/benchmarks.md). TestNameRules checks
// them against the expressions they replace.

// ValidID reports whether id can name a skill: it goes into skill:// URIs
// and folder names, so it is 1 to 64 lowercase letters, digits and single
// hyphens, neither first nor last.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxNameLength || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && id[i-1] != '-': // i > 0: id[0] is not '-'
		default:
			return false
		}
	}
	return true
}

// PluginID maps a dotted id of the Vox plugin convention, such as
// "vox.compiler", to a valid id by making every dot a hyphen ("vox-compiler").
// ok is false when the id has no dot or the result is still not valid.
func PluginID(id string) (string, bool) {
	if !strings.Contains(id, ".") {
		return "", false
	}
	mapped := strings.ReplaceAll(id, ".", "-")
	return mapped, ValidID(mapped)
}

// SlugID derives an id from any text, as the reference allows ids
// ("Git Helper", "vox.git"): NFKC, lowercase, every run of characters
// other than ASCII letters and digits one hyphen, none at either end, at
// most 64 characters (cut at a hyphen boundary when it can be). ok is
// false when nothing of the text is left.
func SlugID(text string) (string, bool) {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(norm.NFKC.String(text)) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	id := b.String()
	if len(id) > MaxNameLength {
		id = strings.TrimRight(id[:MaxNameLength], "-")
	}
	return id, ValidID(id)
}

// ValidToolName reports whether name can be an MCP tool name (and so a
// macro tool).
// It is 1 to 64 ASCII letters, digits, underscores and hyphens.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// NameProblem checks name against the Agent Skills naming rules (after NFKC
// normalisation: 1–64 characters, lowercase letters, digits and single
// hyphens, no hyphen at either end) and says what is wrong, or "" when the
// name is valid.
func NameProblem(name string) string {
	n := norm.NFKC.String(strings.TrimSpace(name))
	switch {
	case n == "":
		return "name is empty"
	case utf8.RuneCountInString(n) > MaxNameLength:
		return fmt.Sprintf("name %q is %d characters long: at most %d are allowed", n, utf8.RuneCountInString(n), MaxNameLength)
	case n != strings.ToLower(n):
		return fmt.Sprintf("name %q must be lowercase", n)
	case strings.HasPrefix(n, "-") || strings.HasSuffix(n, "-"):
		return fmt.Sprintf("name %q must not start or end with a hyphen", n)
	case strings.Contains(n, "--"):
		return fmt.Sprintf("name %q must not contain consecutive hyphens", n)
	}
	for _, r := range n {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return fmt.Sprintf("name %q contains %q: only lowercase letters, digits and hyphens are allowed", n, r)
		}
	}
	return ""
}

// Parse reads a SKILL.md: front matter (YAML, or TOML for older Vox plugin
// skills) and body. It fails when the front matter cannot be read, when
// name or description is missing, or when the id is not a valid id; every
// lesser problem is a warning ("line N: ..." where the line is known).
// Parse serves discovery, installation and vox_skill_parse alike.
func Parse(skillMD []byte) (sk *Skill, warnings []string, err error) {
	return parse(skillMD, false)
}

// ParseReference is Parse for a skill file of the reference
// implementation (a *.skill.md, docs/skills.md §1): it is as lenient as
// the reference about the id, which may be any text there: an id that is
// neither valid nor dotted is served under its slug (SlugID) with a
// warning, and only an id with no ASCII letter or digit is refused.
func ParseReference(skillMD []byte) (sk *Skill, warnings []string, err error) {
	return parse(skillMD, true)
}

func parse(skillMD []byte, reference bool) (sk *Skill, warnings []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			sk, warnings, err = nil, nil, fmt.Errorf("internal error while parsing SKILL.md: %v", v)
		}
	}()
	fm, err := ParseFrontMatter(skillMD)
	if err != nil {
		return nil, nil, err
	}
	p := manifestParser{fm: fm, reference: reference}
	sk = p.skill()
	if p.err != nil {
		return nil, nil, p.err
	}
	sk.Source = skillMD
	if p.warnings == nil {
		p.warnings = []string{}
	}
	return sk, p.warnings, nil
}

type manifestParser struct {
	fm       *FrontMatter
	meta     Value
	warnings []string
	err      error
	// reference: the reference's leniency about ids (ParseReference);
	// plugin: the fields come from a Plugin.toml, not a front matter.
	reference, plugin bool
}

func (p *manifestParser) warnf(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("line %d: %s", line, msg)
	}
	p.warnings = append(p.warnings, msg)
}

func (p *manifestParser) fail(line int, format string, args ...any) {
	if p.err == nil {
		p.err = &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
	}
}

func (p *manifestParser) skill() *Skill {
	fm := p.fm
	sk := &Skill{Format: fm.Format, Body: fm.Body, Metadata: map[string]string{}}
	// TOML is the reference's own format (docs/skills.md §1): its files
	// are not told to change it; the compliance gate says what differs.
	if fm.Format == FormatTOML && !p.reference {
		p.warnf(0, "TOML front matter: use YAML front matter, the Agent Skills standard")
	}
	for _, f := range fm.Fields {
		if !slices.Contains(StandardKeys, f.Key) && !slices.Contains(ManifestKeys, f.Key) {
			p.warnf(f.Line, "unknown front matter key %q (Vox fields belong under metadata as vox-<key>)", f.Key)
		}
	}
	if f, ok := fm.Get("metadata"); ok {
		switch f.Value.Kind {
		case KindMap:
			p.meta = f.Value
			for _, mf := range f.Value.Fields {
				if text, ok := scalar(mf.Value); ok {
					sk.Metadata[mf.Key] = text
				} else if joined, ok := joinedList(mf.Value); ok && !isManifestMetaKey(mf.Key) {
					// Vox plugins keep lists in metadata (docs/skills.md §1).
					sk.Metadata[mf.Key] = joined
					p.warnf(mf.Line, "metadata.%s is a list: its values are joined with \", \" (metadata values are strings)", mf.Key)
				} else if !isManifestMetaKey(mf.Key) {
					p.warnf(mf.Line, "metadata.%s is a %s: metadata values are strings", mf.Key, mf.Value.Kind)
				}
			}
		case KindNull:
		default:
			p.warnf(f.Line, "metadata is a %s, not a mapping: ignored", f.Value.Kind)
		}
	}

	sk.Name = p.requiredString("name", "add a name: lowercase letters, digits and hyphens, like the skill's folder")
	sk.Description = p.requiredString("description", "add a description saying what the skill does and when to use it")
	if p.err != nil {
		return nil
	}
	if problem := NameProblem(sk.Name); problem != "" {
		p.warnf(p.line("name"), "%s (Agent Skills naming rules)", problem)
	}
	if n := utf8.RuneCountInString(sk.Description); n > MaxDescriptionLength {
		p.warnf(p.line("description"), "description is %d characters long: at most %d are allowed", n, MaxDescriptionLength)
	}
	sk.License = p.optionalString("license")
	sk.Compatibility = p.optionalString("compatibility")
	if n := utf8.RuneCountInString(sk.Compatibility); n > MaxCompatibilityLength {
		p.warnf(p.line("compatibility"), "compatibility is %d characters long: at most %d are allowed", n, MaxCompatibilityLength)
	}
	sk.AllowedTools = p.allowedTools()

	idLine := p.line("name")
	sk.ID = sk.Name
	if f, ok := p.manifest("id"); ok {
		if text, ok := scalar(f.Value); ok && strings.TrimSpace(text) != "" {
			sk.ID, idLine = strings.TrimSpace(text), f.Line
		} else {
			p.warnf(f.Line, "id is a %s, not a string: the name is used as id", f.Value.Kind)
		}
	}
	if !ValidID(sk.ID) {
		mapped, ok := PluginID(sk.ID)
		why := "follows the Vox plugin convention: it is served as %q, since an Agent Skills name holds no dots"
		if !ok && p.reference {
			mapped, ok = SlugID(sk.ID)
			why = "is the reference's free text: it is served as %q, since a skill:// URI needs lowercase letters, digits and hyphens"
		}
		if !ok {
			p.fail(idLine, "id %q is not valid: an id is 1–64 lowercase letters, digits and single hyphens, "+
				"starting and ending with a letter or digit (rename the skill or set metadata.vox-id)", sk.ID)
			return nil
		}
		// A skill of the Vox plugin convention (docs/skills.md §1).
		p.warnf(idLine, "id %q "+why, sk.ID, mapped)
		if sk.Name == sk.ID {
			sk.Name = mapped
		}
		sk.DeclaredID, sk.ID = sk.ID, mapped
	}
	sk.Version = p.manifestString("version")
	if sk.Version == "" {
		sk.Version = DefaultVersion
	}
	sk.Author = p.manifestString("author")
	sk.Category = p.manifestString("category")
	sk.Tools = p.manifestList("tools", toolSeparator)
	sk.Tags = p.manifestList("tags", comma)
	sk.Dependencies = p.manifestList("dependencies", comma)
	sk.Permissions = p.manifestList("permissions", comma)
	for _, perm := range sk.Permissions {
		if !slices.Contains(KnownPermissions, perm) {
			p.warnf(p.manifestLine("permissions"), "unknown permission %q (known: %s)", perm, strings.Join(KnownPermissions, " "))
		}
	}
	for _, tool := range sk.Tools {
		if !ValidToolName(tool) {
			p.warnf(p.manifestLine("tools"), "tool name %q is not a valid MCP tool name (^[A-Za-z0-9_-]{1,64}$): "+
				"it gets no macro tool but still counts in the allowlist", tool)
		}
	}
	return sk
}

// isManifestMetaKey says whether a metadata key holds a manifest field,
// whose type problems the field's own reading reports.
func isManifestMetaKey(key string) bool {
	k, ok := strings.CutPrefix(key, "vox-")
	return ok && slices.Contains(ManifestKeys, k)
}

// scalar is the text of a string or other scalar value.
// joinedList is a list of scalars joined with ", ".
func joinedList(v Value) (string, bool) {
	if v.Kind != KindList {
		return "", false
	}
	parts := make([]string, len(v.Items))
	for i, it := range v.Items {
		text, ok := scalar(it)
		if !ok {
			return "", false
		}
		parts[i] = text
	}
	return strings.Join(parts, ", "), true
}

func scalar(v Value) (string, bool) {
	switch v.Kind {
	case KindString, KindScalar:
		return v.Text, true
	}
	return "", false
}

func (p *manifestParser) line(key string) int {
	f, _ := p.fm.Get(key)
	return f.Line
}

func (p *manifestParser) requiredString(key, hint string) string {
	f, ok := p.fm.Get(key)
	if !ok || f.Value.Kind == KindNull {
		p.fail(0, "front matter has no %s: %s", key, hint)
		return ""
	}
	text, ok := scalar(f.Value)
	if !ok {
		p.fail(f.Line, "%s is a %s, not a string", key, f.Value.Kind)
		return ""
	}
	if strings.TrimSpace(text) == "" {
		p.fail(f.Line, "%s is empty: %s", key, hint)
		return ""
	}
	return strings.TrimSpace(text)
}

func (p *manifestParser) optionalString(key string) string {
	f, ok := p.fm.Get(key)
	if !ok || f.Value.Kind == KindNull {
		return ""
	}
	text, ok := scalar(f.Value)
	if !ok {
		p.warnf(f.Line, "%s is a %s, not a string: ignored", key, f.Value.Kind)
	}
	return text
}

// manifest finds a manifest field: metadata.vox-<key> first, then <key>.
func (p *manifestParser) manifest(key string) (Field, bool) {
	if f, ok := p.meta.Get("vox-" + key); ok && f.Value.Kind != KindNull {
		return f, true
	}
	if f, ok := p.fm.Get(key); ok && f.Value.Kind != KindNull {
		return f, true
	}
	return Field{}, false
}

func (p *manifestParser) manifestLine(key string) int {
	f, _ := p.manifest(key)
	return f.Line
}

func (p *manifestParser) manifestString(key string) string {
	f, ok := p.manifest(key)
	if !ok {
		return ""
	}
	text, ok := scalar(f.Value)
	if !ok {
		p.warnf(f.Line, "%s is a %s, not a string: ignored", key, f.Value.Kind)
	}
	return strings.TrimSpace(text)
}

// comma separates the items of a list written as a string.
func comma(r rune) bool { return r == ',' }

// toolSeparator separates tool names written as a string: commas or white
// space, as allowed-tools is space-separated in the Agent Skills format
// (a tool name never holds a space).
func toolSeparator(r rune) bool { return r == ',' || unicode.IsSpace(r) }

// manifestList reads a list field: a YAML or TOML list, or a string of
// items separated by sep (the standard metadata map holds strings only).
func (p *manifestParser) manifestList(key string, sep func(rune) bool) []string {
	out := []string{}
	f, ok := p.manifest(key)
	if !ok {
		return out
	}
	switch f.Value.Kind {
	case KindString, KindScalar:
		for _, item := range strings.FieldsFunc(f.Value.Text, sep) {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	case KindList:
		for _, item := range f.Value.Items {
			text, ok := scalar(item)
			if !ok {
				p.warnf(item.Line, "an item of %s is a %s, not a string: ignored", key, item.Kind)
				continue
			}
			if text = strings.TrimSpace(text); text != "" {
				out = append(out, text)
			}
		}
	default:
		p.warnf(f.Line, "%s is a %s, not a list: ignored", key, f.Value.Kind)
	}
	return out
}

// allowedTools reads the standard allowed-tools field. The Agent Skills
// specification writes it space-delimited ("Bash(git:*) Read"), Claude
// skills comma-delimited ("Read, Grep"); both are split, except inside
// parentheses, where a pattern may hold spaces ("Bash(git add:*)").
func (p *manifestParser) allowedTools() []string {
	out := []string{}
	f, ok := p.fm.Get("allowed-tools")
	if !ok {
		return out
	}
	switch f.Value.Kind {
	case KindString, KindScalar:
		return splitAllowedTools(f.Value.Text)
	case KindList:
		for _, item := range f.Value.Items {
			if text, ok := scalar(item); ok && strings.TrimSpace(text) != "" {
				out = append(out, strings.TrimSpace(text))
			}
		}
	case KindNull:
	default:
		p.warnf(f.Line, "allowed-tools is a %s, not a string or list: ignored", f.Value.Kind)
	}
	return out
}

func splitAllowedTools(s string) []string {
	out := []string{}
	depth := 0
	var cur strings.Builder
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || unicode.IsSpace(r)):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

// Allow decides whether the tool may be called while this skill is active
// (see the package function Allow).
func (sk *Skill) Allow(tool string) (ok bool, denial string) { return Allow(sk.ID, sk.Tools, tool) }
