package gates

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/skills"
)

// The reference implementation's skill files (*.skill.md, and the files
// Plugin.toml names with skill-md; docs/skills.md §1–2) are checked never
// more strictly than the reference's own gate checks them
// (docs/ci-gates.md §4): a problem only where both reject — no front
// matter, no name, no description, a plugin whose skill file is missing
// or empty —, and a warning naming the fix wherever the Agent Skills
// format differs. List-valued vox-* metadata, legacy top-level keys and
// dotted ids pass.

// refLine finds the reference gate's `name = "…"` and `description =
// "…"` lines (double or single quotes).
var refLine = regexp.MustCompile(`^(name|description)\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// checkReferenceFiles checks the reference's skill sources that discovery
// finds in the workspace: in its skill roots and walking it.
func (c *skillChecker) checkReferenceFiles() {
	cfg := skills.Config{Workspace: c.root}
	cands, warnings := skills.ReferenceCandidates(cfg.SearchRoots(), cfg.ReferencePlaces())
	for _, w := range warnings {
		c.report.Warnf(Problem{Path: c.display(c.root)}, "%s", w)
	}
	for _, cand := range cands {
		if cand.Origin == skills.OriginPlugin {
			c.checkPlugin(cand.Path)
		} else {
			c.checkSkillFile(cand.Path)
		}
	}
}

// holdsReferenceFiles reports whether the folder dir holds *.skill.md
// files or plugin folders, as a skill root would.
func (c *skillChecker) holdsReferenceFiles(dir string) bool {
	cands, _ := skills.ReferenceCandidates([]string{dir}, nil)
	return len(cands) > 0
}

// checkReferenceIn checks the *.skill.md files and plugin folders directly
// in dir, a folder given as an argument.
func (c *skillChecker) checkReferenceIn(dir string) {
	cands, _ := skills.ReferenceCandidates([]string{dir}, nil)
	for _, cand := range cands {
		if cand.Origin == skills.OriginPlugin {
			c.checkPlugin(cand.Path)
		} else {
			c.checkSkillFile(cand.Path)
		}
	}
}

// once reports whether p is seen for the first time (by its real path).
func (c *skillChecker) once(p string) bool {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if c.seen[p] {
		return false
	}
	c.seen[p] = true
	return true
}

// readBeneath reads file beneath its folder (internal/safefs), as discovery
// does: no link leaves the folder, no FIFO is waited on.
func readBeneath(dir, rel string) ([]byte, error) {
	r, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(rel, skills.MaxFileSize)
}

// checkSkillFile checks one *.skill.md file.
func (c *skillChecker) checkSkillFile(file string) {
	if !c.once(file) {
		return
	}
	c.checked++
	r := c.report
	at := func(line, col int) Problem { return Problem{Path: c.display(file), Line: line, Col: col} }
	data, err := readBeneath(filepath.Dir(file), filepath.Base(file))
	if err != nil {
		r.Problemf(at(0, 0), "cannot be read: %v", unwrapAll(err))
		return
	}
	fm, err := skills.ParseFrontMatter(data)
	if err != nil {
		c.referenceScan(data, err, at)
		return
	}
	name, okName := c.requiredString(fm, "name", at)
	_, okDesc := c.requiredString(fm, "description", at)
	if !okName || !okDesc {
		return
	}
	if fm.Format == skills.FormatTOML {
		r.Warnf(at(1, 0), "TOML front matter: the Agent Skills format writes YAML (name: x); the reference reads only TOML, so keep TOML while the reference must read this file, or write YAML for other clients")
	}
	for _, f := range fm.Fields {
		switch {
		case slices.Contains(allowedKeys, f.Key):
		case slices.Contains(skills.ManifestKeys, f.Key):
			r.Warnf(at(f.Line, f.Col), "top-level %s is the reference's legacy form: the Agent Skills format allows only %s at top level; move it under metadata as vox-%s (the reference reads both)",
				f.Key, strings.Join(allowedKeys, ", "), f.Key)
		default:
			r.Warnf(at(f.Line, f.Col), "unexpected top-level key %q: the Agent Skills format allows only %s; move it under metadata", f.Key, strings.Join(allowedKeys, ", "))
		}
	}
	if f, ok := fm.Get("metadata"); ok && f.Value.Kind == skills.KindMap {
		for _, mf := range f.Value.Fields {
			// A list is the reference's canonical form of the vox-* lists
			// (vox-tools, vox-tags, ...): it passes, since a string would
			// be ignored by the reference.
			if mf.Value.Kind == skills.KindString || mf.Value.Kind == skills.KindList && strings.HasPrefix(mf.Key, "vox-") {
				continue
			}
			r.Warnf(at(mf.Value.Line, mf.Value.Col), "metadata.%s is a %s: Agent Skills metadata values are strings; write it as one", mf.Key, mf.Value.Kind)
		}
	}
	if problem := skills.NameProblem(name); problem != "" {
		f, _ := fm.Get("name")
		fix := ""
		if slug, ok := skills.SlugID(name); ok {
			fix = fmt.Sprintf("; to follow it, set name to %q and keep the reference's id as metadata vox-id", slug)
		}
		r.Warnf(at(f.Value.Line, f.Value.Col), "%s, as the Agent Skills format wants%s", problem, fix)
	}
	desc, _ := fm.Get("description")
	if n := utf8.RuneCountInString(desc.Value.Text); n > skills.MaxDescriptionLength {
		r.Warnf(at(desc.Value.Line, desc.Value.Col), "description is %d characters long: the Agent Skills format allows %d; shorten it", n, skills.MaxDescriptionLength)
	}
	if sk, _, err := skills.ParseReference(data); err == nil && sk.DeclaredID != "" {
		r.Warnf(at(idPosition(fm)), "id %q is served as %q (skill://%s/SKILL.md): an Agent Skills name holds only lowercase letters, digits and hyphens", sk.DeclaredID, sk.ID, sk.ID)
	}
	c.checkToolsOf(data, fm, at)
}

// referenceScan judges a front matter vox-mcp cannot read as the
// reference's gate would: a block opened by --- and closed, holding a
// name and a description line. Lacking those is a problem (both reject
// it); having them is a warning, since vox-mcp skips the skill.
func (c *skillChecker) referenceScan(data []byte, parseErr error, at func(int, int) Problem) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		c.report.Problemf(at(1, 0), "no front matter block (--- ... ---) found: open the file with a line --- and close the front matter with another")
		return
	}
	end := strings.Index(text[3:], "\n---")
	if end < 0 {
		c.report.Problemf(at(1, 0), "the front matter opened on line 1 is never closed by a line ---")
		return
	}
	found := map[string]bool{}
	for _, line := range strings.Split(text[4:3+end], "\n") {
		if m := refLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			found[m[1]] = true
		}
	}
	for _, key := range []string{"name", "description"} {
		if !found[key] {
			c.report.Problemf(at(0, 0), "missing required field %s", key)
		}
	}
	if found["name"] && found["description"] {
		p := at(0, 0)
		var pe *skills.ParseError
		if errors.As(parseErr, &pe) {
			p = at(pe.Line, pe.Col)
		}
		c.report.Warnf(p, "%s: vox-mcp does not serve this skill until its front matter is valid TOML (or YAML); the reference's gate reads only its name and description lines", messageOf(parseErr))
	}
}

// checkPlugin checks one Plugin.toml whose payload is a skill as the
// reference's plugin-skill-parity gate does (skill-md set, the file
// readable and not blank), the rest as warnings.
func (c *skillChecker) checkPlugin(manifest string) {
	if !c.once(manifest) {
		return
	}
	r := c.report
	at := func(line, col int) Problem { return Problem{Path: c.display(manifest), Line: line, Col: col} }
	dir := filepath.Dir(manifest)
	data, err := readBeneath(dir, skills.PluginManifest)
	if err != nil {
		c.checked++
		r.Problemf(at(0, 0), "cannot be read: %v", unwrapAll(err))
		return
	}
	ps, err := skills.ReadPluginManifest(data)
	switch {
	case errors.Is(err, skills.ErrNotSkillPlugin):
		return // a plugin of another kind holds no skill
	case err != nil:
		c.checked++
		var pe *skills.ParseError
		if errors.As(err, &pe) && strings.Contains(pe.Msg, "leaves the plugin folder") {
			r.Warnf(at(0, 0), "%s: vox-mcp does not serve this skill", pe.Msg)
			return
		}
		if errors.As(err, &pe) {
			r.Problemf(at(pe.Line, pe.Col), "%s", pe.Msg)
			return
		}
		r.Problemf(at(0, 0), "%v", err)
		return
	}
	c.checked++
	doc, err := readBeneath(dir, filepath.FromSlash(ps.SkillMD))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Problemf(at(0, 0), "the skill file %s that skill-md names does not exist: write it, or name the file beside Plugin.toml that holds the skill", ps.SkillMD)
	case err != nil:
		r.Problemf(at(0, 0), "the skill file %s that skill-md names cannot be read: %v", ps.SkillMD, unwrapAll(err))
	case strings.TrimSpace(string(doc)) == "":
		r.Problemf(at(0, 0), "the skill file %s that skill-md names is empty: write the skill's instructions in it", ps.SkillMD)
	}
	if ps.Name == "" && ps.ID == "" {
		r.Warnf(at(0, 0), "[plugin] has neither name nor id: vox-mcp does not serve this skill; add name")
	}
	if ps.Description == "" {
		r.Warnf(at(0, 0), "[plugin] has no description: vox-mcp does not serve this skill; add description saying what the skill does and when to use it")
	}
	if len(ps.Tools) == 0 {
		r.Warnf(at(0, 0), "the skill payload exposes no tools: the reference's plugin-skill-parity gate wants [plugin.payload.tools] exposes to list them")
	}
}

// checkToolsOf is checkTools for a reference file, whose id may be free
// text.
func (c *skillChecker) checkToolsOf(data []byte, fm *skills.FrontMatter, at func(int, int) Problem) {
	sk, _, err := skills.ParseReference(data)
	if err != nil {
		return
	}
	c.warnUnknownTools(sk, fm, at)
}

// idPosition is where the skill's id is written: metadata vox-id, else
// the top-level id, else the name it defaults to.
func idPosition(fm *skills.FrontMatter) (line, col int) {
	if meta, ok := fm.Get("metadata"); ok && meta.Value.Kind == skills.KindMap {
		if f, ok := meta.Value.Get("vox-id"); ok {
			return f.Value.Line, f.Value.Col
		}
	}
	if f, ok := fm.Get("id"); ok {
		return f.Value.Line, f.Value.Col
	}
	f, _ := fm.Get("name")
	return f.Value.Line, f.Value.Col
}

func messageOf(err error) string {
	var pe *skills.ParseError
	if errors.As(err, &pe) {
		return pe.Msg
	}
	return err.Error()
}

// unwrapAll is the innermost error of a path error chain, which names no
// path the problem's position does not already name.
func unwrapAll(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
