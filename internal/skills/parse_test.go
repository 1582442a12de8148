package skills

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		folder      string
		format      string
		id, version string
		category    string
		author      string
		tools, tags []string
		perms, deps []string
		allowed     []string
		license     string
		compat      string
		warnings    []string // substrings, in order
		bodyStart   string
	}{
		{folder: "release-notes", format: FormatYAML, id: "release-notes", version: "1.2.0", category: "release",
			tools: []string{"git_log", "vox_check"}, tags: []string{"git", "changelog", "release"},
			perms: []string{"read_files", "shell_exec"}, license: "Apache-2.0",
			compat:    "Needs git and a repository with at least one tag.",
			allowed:   []string{"Bash(git log:*)", "Bash(git describe:*)", "Read"},
			bodyStart: "# Release notes\n\n1. Find the last tag"},
		{folder: "pdf-forms", format: FormatYAML, id: "pdf-forms", version: "0.3.1", category: "documents", author: "Docs Team",
			tools: []string{"pdf_fill_form", "pdf_read_fields"}, tags: []string{"pdf", "forms", "documents"},
			perms: []string{"read_files", "write_files"}, deps: []string{"pypdf"}, license: "MIT"},
		// TOML front matter of older Vox plugin skills: a [metadata] table of
		// strings.
		{folder: "sql-review", format: FormatTOML, id: "sql-review", version: "2.0.0", category: "database", author: "Data Platform",
			tools: []string{"db_query", "vox_check"}, tags: []string{"sql", "migrations", "postgres"},
			perms: []string{"db_read"}, license: "Apache-2.0",
			warnings: []string{"TOML front matter: use YAML front matter"}},
		// Manifest fields at top level, a TOML array for the tags.
		{folder: "changelog-lint", format: FormatTOML, id: "changelog-lint", version: "0.2.0", author: "vox plugins",
			tools: []string{"vox_check"}, tags: []string{"changelog", "lint", "markdown"},
			warnings: []string{"TOML front matter"}},
		// vox-tools as a YAML list inside metadata.
		{folder: "test-triage", format: FormatYAML, id: "test-triage", version: "1.1.0", category: "testing",
			tools: []string{"run_tests", "vox_check", "git_log"}, tags: []string{"testing", "ci", "flaky"}},
		// No manifest at all: defaults.
		{folder: "commit-message", format: FormatYAML, id: "commit-message", version: DefaultVersion},
		// BOM and CRLF line ends.
		{folder: "i18n-strings", format: FormatYAML, id: "i18n-strings", version: DefaultVersion, category: "localisation",
			tags: []string{"i18n", "translation", "localisation"}, bodyStart: "# Translation sweep\n\nSearch the UI code"},
		{folder: "security-audit", format: FormatYAML, id: "security-audit", version: "3.0.0", category: "security",
			tools: []string{"audit_deps", "vox_check", "scan_secrets!"},
			tags:  []string{"security", "vulnerabilities", "dependencies", "audit"},
			perms: []string{"read_files", "network", "root_access"},
			warnings: []string{
				`line 9: unknown permission "root_access"`,
				`line 8: tool name "scan_secrets!" is not a valid MCP tool name`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.folder, func(t *testing.T) {
			sk, warnings, err := Parse(readFixture(t, "skills", tt.folder))
			if err != nil {
				t.Fatal(err)
			}
			nz := func(s []string) []string {
				if s == nil {
					return []string{}
				}
				return s
			}
			got := []any{sk.Format, sk.ID, sk.Name, sk.Version, sk.Category, sk.Author, sk.Tools, sk.Tags,
				sk.Permissions, sk.Dependencies, sk.License, sk.Compatibility}
			want := []any{tt.format, tt.id, tt.folder, tt.version, tt.category, tt.author, nz(tt.tools), nz(tt.tags),
				nz(tt.perms), nz(tt.deps), tt.license, tt.compat}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			if tt.allowed != nil && !reflect.DeepEqual(sk.AllowedTools, tt.allowed) {
				t.Errorf("allowed tools %q, want %q", sk.AllowedTools, tt.allowed)
			}
			if sk.Description == "" || strings.Contains(sk.Body, "---") {
				t.Errorf("description %q, body %q", sk.Description, sk.Body)
			}
			if tt.bodyStart != "" && !strings.HasPrefix(sk.Body, tt.bodyStart) {
				t.Errorf("body starts %q, want %q", sk.Body[:min(len(sk.Body), 60)], tt.bodyStart)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings %q, want %d", warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
		})
	}
}

// Every array of the JSON form is [], never null.
func TestParseJSONArraysNeverNull(t *testing.T) {
	sk, _, err := Parse([]byte(skillMD("plain", "A plain skill.")))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(sk)
	const want = `{"id":"plain","name":"plain","description":"A plain skill.","version":"0.1.0","category":"","tags":[],"tools":[],"author":"","dependencies":[],"permissions":[],"allowed_tools":[],"license":"","compatibility":""}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		want      string
	}{
		{"no front matter", "# Title\n", 1, "line 1: SKILL.md must start with front matter: a first line ---"},
		{"unclosed", "---\nname: x\n", 1, "line 1: the front matter opened on line 1 is never closed by a line ---"},
		// YAML fails on line 3 (the flow list opened there is never closed);
		// TOML fails on line 2 (a bare key needs '='): both reasons, in
		// SKILL.md lines.
		{"neither YAML nor TOML", "---\nname: x\ndescription: [open\n---\n", 0,
			"front matter is neither a YAML nor a TOML mapping (YAML: line 3: did not find expected ',' or ']'; TOML: line 2, column 5: expected '.' or '=', but got ':' instead)"},
		{"YAML scalar, bad TOML", "---\njust some words\n---\n", 0,
			"front matter is neither a YAML nor a TOML mapping (YAML: line 2, column 1: front matter is a scalar, not a mapping; TOML: line 2, column 6: expected '.' or '=', but got 's' instead)"},
		{"duplicate key", "---\nname: a\ndescription: b\nname: c\n---\n", 4, `line 4:1: key "name" is already defined on line 2`},
		{"no name", "---\ndescription: d\n---\n", 0, "front matter has no name: add a name"},
		{"no description", "---\nname: n\n---\n", 0, "front matter has no description: add a description"},
		{"empty description", "---\nname: n\ndescription: \"  \"\n---\n", 3, "line 3: description is empty"},
		{"list name", "---\nname: [a]\ndescription: d\n---\n", 2, "line 2: name is a list, not a string"},
		{"bad id from name", "---\nname: Bad_Name\ndescription: d\n---\n", 2, `line 2: id "Bad_Name" is not valid`},
		{"bad vox-id", "---\nname: good\ndescription: d\nmetadata:\n  vox-id: a--b\n---\n", 5, `line 5: id "a--b" is not valid`},
		{"long id", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", 2, "is not valid"},
		{"alias bomb", "---\nname: n\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
			"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n", 7,
			"line 7:36: alias *c repeats 1111 values, and aliases may repeat at most 10000 values in one file: write the repeated part out or use fewer aliases"},
		// One long string repeated into tags would cost the search index
		// gigabytes.
		{"repeated string", "---\nname: n\ndescription: d\ns: &s " + strings.Repeat("tag ", 4<<10) + "\ntags: [" +
			strings.TrimSuffix(strings.Repeat("*s, ", 1000), ", ") + "]\n---\n", 5,
			"line 5:24: alias *s repeats 16383 bytes of text, and aliases may repeat at most 64 KiB of text in one file"},
		{"nested too deep", "---\nname: n\ndescription: d\nx: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n---\n", 4,
			"line 4:67: nested deeper than 64 levels: at most 64 are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse([]byte(tt.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got  %q\nwant it to contain %q", err, tt.want)
			}
			if tt.line != 0 && pe.Line != tt.line {
				t.Errorf("line %d, want %d", pe.Line, tt.line)
			}
		})
	}
}

func TestParseBrokenFixtures(t *testing.T) {
	for folder, want := range map[string]string{
		"no-description": "front matter has no description",
		"Bad_Name":       `id "Bad_Name" is not valid`,
		"unparseable":    "front matter is neither a YAML nor a TOML mapping (YAML: line 3",
	} {
		if _, _, err := Parse(readFixture(t, "broken", folder)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", folder, err, want)
		}
	}
	// Lenient loading: these load, with warnings.
	for folder, want := range map[string]string{
		"long-description": "line 3: description is 1143 characters long: at most 1024 are allowed",
		"top-level-fields": "",
		"folder-mismatch":  "",
	} {
		_, warnings, err := Parse(readFixture(t, "broken", folder))
		if err != nil {
			t.Fatalf("%s: %v", folder, err)
		}
		if want != "" && (len(warnings) != 1 || warnings[0] != want) {
			t.Errorf("%s: warnings %q, want [%q]", folder, warnings, want)
		}
	}
}

func TestParseWarnings(t *testing.T) {
	src := skillMD("warned", "d",
		"colour: blue",
		"compatibility: "+strings.Repeat("c", 501),
		"metadata:",
		"  owner: [a, b]",
		"  vox-tags: [ok, {x: y}]",
		"  vox-version: [1]",
		"allowed-tools: {a: b}")
	_, warnings, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`line 4: unknown front matter key "colour" (Vox fields belong under metadata as vox-<key>)`,
		"line 7: metadata.owner is a list: its values are joined with \", \" (metadata values are strings)",
		"line 5: compatibility is 501 characters long: at most 500 are allowed",
		"line 10: allowed-tools is a mapping, not a string or list: ignored",
		"line 9: version is a list, not a string: ignored",
		"line 8: an item of tags is a mapping, not a string: ignored",
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("got  %q\nwant %q", warnings, want)
	}
}

func TestParseListForms(t *testing.T) {
	for _, src := range []string{
		skillMD("lists", "d", "metadata:", "  vox-tools: a, b ,, c"),
		// Space-separated, as allowed-tools is, or both at once.
		skillMD("lists", "d", "metadata:", "  vox-tools: a b  c"),
		skillMD("lists", "d", "metadata:", "  vox-tools: \"a,b\\tc\""),
		skillMD("lists", "d", "metadata:", "  vox-tools: >-", "    a", "    b, c"),
		skillMD("lists", "d", "metadata:", "  vox-tools: [a, b, c]"),
		skillMD("lists", "d", "tools:", "  - a", "  - b", "  - c"),
		skillMD("lists", "d", "tools: a,b,c", "metadata:", "  other: x"),
		"---\nname = \"lists\"\ndescription = \"d\"\n[metadata]\nvox-tools = \"a, b, c\"\n---\n",
		"---\nname = \"lists\"\ndescription = \"d\"\n[metadata]\nvox-tools = \"a b c\"\n---\n",
		"---\nname = \"lists\"\ndescription = \"d\"\ntools = [\"a\", \"b\", \"c\"]\n---\n",
	} {
		sk, _, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sk.Tools, []string{"a", "b", "c"}) {
			t.Errorf("tools %q from\n%s", sk.Tools, src)
		}
	}
	// metadata.vox-<key> wins over the top-level key.
	sk, _, err := Parse([]byte(skillMD("both", "d", "tools: top", "version: 9.9.9", "metadata:", "  vox-tools: meta", "  vox-version: 1.0.0")))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sk.Tools, []string{"meta"}) || sk.Version != "1.0.0" {
		t.Errorf("tools %q version %q: metadata must win", sk.Tools, sk.Version)
	}
	// Other lists split on commas only: a tag may hold a space.
	sk, _, err = Parse([]byte(skillMD("tags", "d", "metadata:", "  vox-tags: machine learning, data")))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sk.Tags, []string{"machine learning", "data"}) {
		t.Errorf("tags %q", sk.Tags)
	}
}

func TestSplitAllowedTools(t *testing.T) {
	for in, want := range map[string][]string{
		"Read Grep":                       {"Read", "Grep"},
		"Read, Grep,Glob":                 {"Read", "Grep", "Glob"},
		"Bash(git add:*) Bash(git st:*)":  {"Bash(git add:*)", "Bash(git st:*)"},
		"Bash(jq:*), Read":                {"Bash(jq:*)", "Read"},
		"  ":                              {},
		"Bash(unclosed paren Read":        {"Bash(unclosed paren Read"},
		"Bash(a, b) Write(/tmp/*)  Read ": {"Bash(a, b)", "Write(/tmp/*)", "Read"},
	} {
		if got := splitAllowedTools(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitAllowedTools(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFrontMatterPositions(t *testing.T) {
	fm, err := ParseFrontMatter([]byte("---\r\nname: x\r\nmetadata:\r\n  vox-tools: a\r\n---\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := fm.Get("metadata")
	tools, _ := meta.Value.Get("vox-tools")
	if fm.Format != FormatYAML || tools.Line != 4 || tools.Col != 3 || tools.Value.Col != 14 || fm.Body != "body" || fm.BodyLine != 6 {
		t.Errorf("got %+v / %+v", fm, tools)
	}
	fm, err = ParseFrontMatter([]byte("---\nname = \"x\"\n[metadata]\n  vox-tools = [\"a\", \"b\"]\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	meta, _ = fm.Get("metadata")
	tools, _ = meta.Value.Get("vox-tools")
	name, _ := fm.Get("name")
	if fm.Format != FormatTOML || name.Line != 2 || meta.Line != 3 || tools.Line != 4 || tools.Col != 3 ||
		tools.Value.Kind != KindList || tools.Value.Items[1].Text != "b" {
		t.Errorf("got %+v / %+v / %+v", name, meta, tools)
	}
	// A non-string scalar is told apart from a string.
	fm, _ = ParseFrontMatter([]byte("---\na: 1.5\nb: \"1.5\"\nc: true\nd:\n---\n"))
	var kinds []ValueKind
	for _, f := range fm.Fields {
		kinds = append(kinds, f.Value.Kind)
	}
	if !reflect.DeepEqual(kinds, []ValueKind{KindScalar, KindString, KindScalar, KindNull}) {
		t.Errorf("kinds %v", kinds)
	}
}

func TestNameProblem(t *testing.T) {
	for name, want := range map[string]string{
		"pdf-forms":                    "",
		"données":                      "",
		"ｐｄｆ":                          "", // NFKC folds full-width letters
		"PDF":                          `name "PDF" must be lowercase`,
		"-pdf":                         `name "-pdf" must not start or end with a hyphen`,
		"pdf-":                         `must not start or end with a hyphen`,
		"a--b":                         `name "a--b" must not contain consecutive hyphens`,
		"a_b":                          `name "a_b" contains '_': only lowercase letters, digits and hyphens are allowed`,
		strings.Repeat("a", 65):        "is 65 characters long: at most 64 are allowed",
		"":                             "name is empty",
		"ab" + strings.Repeat("é", 62): "",
	} {
		got := NameProblem(name)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("NameProblem(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"a": true, "a1": true, "pdf-forms": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false, "a/b": false, "..": false,
		strings.Repeat("a", 65): false, "données": false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range goodFixtures {
		f.Add(readFixture(f, "skills", name))
	}
	f.Add([]byte("---\nname = \"x\"\n[metadata]\nvox-tools = [\"a\"]\n---\n"))
	f.Add([]byte("---\na: &a [x]\nb: [*a, *a]\n---\n"))
	f.Add([]byte("---\nid = \"Vox Git!\"\nname = \"G\"\ndescription = \"d\"\n---\n"))
	f.Add([]byte("[plugin]\nname = \"p\"\n[plugin.payload]\nkind = \"skill\"\nskill-md = \"a/b.skill.md\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sk, warnings, err := Parse(data)
		if err == nil && (sk == nil || warnings == nil || !ValidID(sk.ID) || sk.Description == "") {
			t.Fatalf("accepted an invalid skill: %+v", sk)
		}
		// The reference's leniency still serves only valid ids.
		sk, warnings, err = ParseReference(data)
		if err == nil && (sk == nil || warnings == nil || !ValidID(sk.ID) || sk.Description == "") {
			t.Fatalf("accepted an invalid reference skill: %+v", sk)
		}
		if ps, err := ReadPluginManifest(data); err == nil && (ps.SkillMD == "" || !filepath.IsLocal(filepath.FromSlash(ps.SkillMD))) {
			t.Fatalf("a plugin's skill-md leaves its folder: %+v", ps)
		}
	})
}

// A skill of the Vox plugin convention — a dotted name, TOML front matter
// whose metadata holds lists — loads: the id is mapped to a valid name and
// list values are joined, each with a warning (docs/skills.md §1).
func TestPluginConventionLoads(t *testing.T) {
	in, warnings, err := Load(filepath.Join("testdata", "plugin", "vox.compiler"), filepath.Join("testdata", "plugin"))
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != "vox-compiler" || in.Name != "vox-compiler" || in.Metadata["maintainers"] != "Ada, Grace" ||
		strings.Join(in.Tags, ",") != "vox,compiler" || strings.Join(in.Tools, ",") != "vox_check" {
		t.Errorf("skill %+v, metadata %v", in.Skill, in.Metadata)
	}
	want := []string{
		`id "vox.compiler" follows the Vox plugin convention: it is served as "vox-compiler", since an Agent Skills name holds no dots`,
		`metadata.maintainers is a list: its values are joined with ", " (metadata values are strings)`,
	}
	for _, w := range want {
		if !slices.ContainsFunc(warnings, func(got string) bool { return strings.HasSuffix(got, w) }) {
			t.Errorf("no warning %q in %q", w, warnings)
		}
	}
	for _, bad := range []string{"a..b", ".x", "Vox.Lint", "x_y"} {
		if id, ok := PluginID(bad); ok {
			t.Errorf("PluginID(%q) = %q", bad, id)
		}
	}
}
