package server

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/internal/skills"
)

// The skills extension (SEP-2640; docs/skills.md §5): the server declares
// io.modelcontextprotocol/skills and serves skills/list and skills/get
// through the shim (shim.go). Each skill is an entry: the URI of its
// SKILL.md, its front matter, and its manifest — every file of the folder
// as a skill:// resource with its size and SHA-256 digest, so that a
// client reading the files with resources/read can verify them.

const (
	// SkillsExtension is the extension's identifier in capabilities.extensions.
	SkillsExtension  = "io.modelcontextprotocol/skills"
	methodSkillsList = "skills/list"
	methodSkillsGet  = "skills/get"
)

// skillEntry is one skill of skills/list and skills/get.
type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []skillFile    `json:"resources"`
}

// skillFile is one file of a skill's manifest. Digest is "sha256:" and 64
// lowercase hex digits; it is absent for a file that cannot be read (over
// the 1 MiB a skill file may have, or gone), which a client then cannot
// verify.
type skillFile struct {
	URI      string `json:"uri"`
	Size     int64  `json:"size"`
	Digest   string `json:"digest,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// skillManifests are the entries of one skills snapshot, computed at the
// first request after it changed (install, uninstall, refresh) and kept
// until the next change, so that listing skills does not read every file
// each time. A file edited in place since then is listed with its old
// digest, which a client verifying it flags.
type skillManifests struct {
	mu      sync.Mutex
	version uint64
	built   bool
	entries []skillEntry
	byURI   map[string]int
}

func (p *skillPlane) manifests() ([]skillEntry, map[string]int) {
	snap := p.reg.Snapshot()
	m := &p.skillManifests
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.built && m.version == snap.Version() {
		return m.entries, m.byURI
	}
	m.entries, m.byURI = buildManifests(snap.Skills())
	m.version, m.built = snap.Version(), true
	return m.entries, m.byURI
}

func buildManifests(installed []*skills.Installed) ([]skillEntry, map[string]int) {
	entries := make([]skillEntry, 0, len(installed))
	byURI := make(map[string]int, len(installed))
	for _, in := range installed {
		e := skillEntry{URI: skills.SkillURI(in.ID, "SKILL.md"), Frontmatter: frontmatter(in), Resources: []skillFile{}}
		for _, f := range in.Manifest() {
			e.Resources = append(e.Resources, skillFile{URI: skills.SkillURI(in.ID, f.Path), Size: f.Size, Digest: f.Digest, MIMEType: skills.MIMEType(f.Path)})
		}
		byURI[e.URI] = len(entries)
		entries = append(entries, e)
	}
	return entries, byURI
}

// frontmatter is what skills/list shows of a skill's front matter: every
// field as SKILL.md writes it (a client compares the two), non-string
// scalars as JSON numbers or booleans where they are such. Should the
// front matter not parse again (the skill loaded, so it did), its name
// and description stand in, as they do for a plugin's skill, whose fields
// come from its Plugin.toml, not from its file (docs/skills.md §1).
func frontmatter(in *skills.Installed) map[string]any {
	sk := in.Skill
	fm, err := skills.ParseFrontMatter(sk.Source)
	if err != nil || in.Origin == skills.OriginPlugin {
		return map[string]any{"name": sk.Name, "description": sk.Description}
	}
	return fieldsJSON(fm.Fields)
}

func fieldsJSON(fields []skills.Field) map[string]any {
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		out[f.Key] = valueJSON(f.Value)
	}
	return out
}

func valueJSON(v skills.Value) any {
	switch v.Kind {
	case skills.KindString:
		return v.Text
	case skills.KindScalar:
		var x any
		if unmarshal([]byte(v.Text), &x) == nil {
			if _, isString := x.(string); !isString {
				return x
			}
		}
		return v.Text // a date, say
	case skills.KindList:
		items := make([]any, 0, len(v.Items))
		for _, it := range v.Items {
			items = append(items, valueJSON(it))
		}
		return items
	case skills.KindMap:
		return fieldsJSON(v.Fields)
	}
	return nil
}

// skillsList answers skills/list: every installed skill, by id, in one
// page.
func (s *Server) skillsList(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 && unmarshal(params, &p) != nil {
		return nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: "skills/list params must be an object, such as {}"}
	}
	if p.Cursor != nil {
		return nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("unknown cursor %q: skills/list answers in one page and issues no cursor", *p.Cursor)}
	}
	entries, _ := s.skills.manifests()
	return map[string]any{"skills": entries}, nil
}

// skillsGet answers skills/get {uri}: the entry of the skill whose
// SKILL.md is at uri.
func (s *Server) skillsGet(params json.RawMessage) (any, *rpcError) {
	var p struct {
		URI string `json:"uri"`
	}
	if unmarshal(params, &p) != nil || p.URI == "" {
		return nil, &rpcError{Code: mcp.INVALID_PARAMS, Message: `skills/get needs params {"uri": "skill://<id>/SKILL.md"}: skills/list gives each skill's uri`}
	}
	entries, byURI := s.skills.manifests()
	i, ok := byURI[p.URI]
	if !ok {
		return nil, &rpcError{Code: mcp.RESOURCE_NOT_FOUND, Message: fmt.Sprintf("no skill at %s: skills/list gives the uri of every installed skill", p.URI), Data: map[string]string{"uri": p.URI}}
	}
	return map[string]any{"skill": entries[i]}, nil
}

// shimExtensions are the extensions the server declares: the tasks
// extension, and the skills extension unless it serves no skills.
func shimExtensions(opts Options) map[string]any {
	ext := map[string]any{TasksExtension: map[string]any{}} // tasks_modern.go
	if !opts.NoSkills {
		ext[SkillsExtension] = map[string]any{}
	}
	return ext
}
