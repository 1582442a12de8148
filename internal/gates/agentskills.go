package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// AgentSkillsGate is the name of the agentskills-compliance gate.
const AgentSkillsGate = "agentskills-compliance"

// AgentSkillsCompliance checks skill folders against the Agent Skills
// specification with the rules of the reference validator (skills-ref
// validate): every folder under the discovery roots inside the workspace
// root (.vox, .cursor, .agents and .claude skills folders, assets/skills),
// plus paths (relative to root): a skill folder, or a folder of skill
// folders. The Vox reference's skill files that discovery finds in the
// workspace (and *.skill.md or Plugin.toml paths) are checked no more
// strictly than the reference checks them (agentskills_reference.go). VOX_SKILL_ROOTS is ignored: the gate checks the repository, not
// the machine. catalogTools are the catalog's tool names: a name in a
// skill's metadata.vox-tools that neither they nor the workspace's tools
// provide is a warning (agentskills_tools.go).
func AgentSkillsCompliance(root string, paths []string, catalogTools []string) *Report {
	r := NewReport(AgentSkillsGate)
	c := skillChecker{root: root, report: r, seen: map[string]bool{}}
	if k, why := loadKnownTools(root, catalogTools); k != nil {
		c.tools = k
	} else {
		r.Warnf(Problem{Path: workspace.ConfigPath}, "the tools of metadata.vox-tools are not checked, because the workspace does not load: %s", why)
	}
	for _, dir := range (skills.Config{Workspace: root}).SearchRoots() {
		c.checkRoot(dir)
	}
	c.checkReferenceFiles()
	for _, p := range paths {
		dir := p
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		st, err := os.Stat(dir)
		switch {
		case err != nil:
			r.Problemf(Problem{Path: p}, "no such skill folder: %v", errors.Unwrap(err))
		case !st.IsDir() && strings.HasSuffix(dir, skills.SkillFileSuffix):
			c.checkSkillFile(dir)
		case !st.IsDir() && filepath.Base(dir) == skills.PluginManifest:
			c.checkPlugin(dir)
		case !st.IsDir():
			r.Problemf(Problem{Path: p}, "not a folder: give a skill folder, a folder of skill folders, a *.skill.md file or a Plugin.toml")
		case exists(filepath.Join(dir, "SKILL.md")) || !holdsSkills(dir) && !c.holdsReferenceFiles(dir):
			c.check(dir)
		default:
			c.checkRoot(dir)
			c.checkReferenceIn(dir)
		}
	}
	r.Summary = map[string]any{"skills_checked": c.checked}
	r.Detail = fmt.Sprintf("%d skills checked", c.checked)
	return r.Finish()
}

type skillChecker struct {
	root    string
	report  *Report
	seen    map[string]bool
	checked int
	tools   *knownTools // nil: the tool names are not checked
}

// checkRoot checks every non-hidden subfolder of dir, as discovery would
// find them; a missing root holds nothing to check.
func (c *skillChecker) checkRoot(dir string) {
	entries, err := skills.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if st, err := os.Stat(sub); err == nil && st.IsDir() {
			c.check(sub)
		}
	}
}

func holdsSkills(dir string) bool {
	entries, err := skills.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if exists(filepath.Join(dir, e.Name(), "SKILL.md")) {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// display is p relative to the root when inside it, slash-separated.
func (c *skillChecker) display(p string) string {
	if rel, err := filepath.Rel(c.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

var allowedKeys = skills.StandardKeys

func (c *skillChecker) check(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		if c.seen[real] {
			return
		}
		c.seen[real] = true
	}
	c.checked++
	r := c.report
	file := filepath.Join(dir, "SKILL.md")
	at := func(line, col int) Problem { return Problem{Path: c.display(file), Line: line, Col: col} }
	if _, err := os.Stat(file); err != nil {
		r.Problemf(Problem{Path: c.display(dir)}, "missing SKILL.md: a skill folder holds SKILL.md with front matter")
		return
	}
	data, err := skills.ReadSkillMD(dir)
	switch {
	case errors.Is(err, skills.ErrFileTooLarge):
		r.Problemf(at(0, 0), "SKILL.md is larger than 1 MiB")
		return
	case err != nil:
		r.Problemf(at(0, 0), "%v", errors.Unwrap(err))
		return
	}
	fm, err := skills.ParseFrontMatter(data)
	if err != nil {
		var pe *skills.ParseError
		if errors.As(err, &pe) {
			r.Problemf(at(pe.Line, pe.Col), "%s", pe.Msg)
		} else {
			r.Problemf(at(0, 0), "%v", err)
		}
		return
	}
	if fm.Format == skills.FormatTOML {
		r.Warnf(at(2, 0), "TOML front matter: use YAML front matter")
	}
	for _, f := range fm.Fields {
		if slices.Contains(allowedKeys, f.Key) {
			continue
		}
		hint := "only " + strings.Join(allowedKeys, ", ") + " are allowed at top level"
		switch {
		case slices.Contains(skills.ManifestKeys, f.Key):
			hint += fmt.Sprintf(" (put it under metadata as vox-%s)", f.Key)
		case strings.HasPrefix(f.Key, "vox-"):
			hint += " (vox-* keys go under metadata)"
		}
		r.Problemf(at(f.Line, f.Col), "unexpected key %q: %s", f.Key, hint)
	}

	name, ok := c.requiredString(fm, "name", at)
	if ok {
		if problem := skills.NameProblem(name); problem != "" {
			f, _ := fm.Get("name")
			r.Problemf(at(f.Value.Line, f.Value.Col), "%s", problem)
		}
		folder := filepath.Base(dir)
		if norm.NFKC.String(folder) != norm.NFKC.String(strings.TrimSpace(name)) {
			f, _ := fm.Get("name")
			r.Problemf(at(f.Value.Line, f.Value.Col), "the folder name %q must equal the skill name %q", folder, name)
		}
	}
	if desc, ok := c.requiredString(fm, "description", at); ok {
		if n := utf8.RuneCountInString(desc); n > skills.MaxDescriptionLength {
			f, _ := fm.Get("description")
			r.Problemf(at(f.Value.Line, f.Value.Col), "description is %d characters long: at most %d are allowed", n, skills.MaxDescriptionLength)
		}
	}
	if f, ok := fm.Get("compatibility"); ok {
		if f.Value.Kind != skills.KindString {
			r.Problemf(at(f.Value.Line, f.Value.Col), "compatibility is a %s: it must be a string", f.Value.Kind)
		} else if n := utf8.RuneCountInString(f.Value.Text); n > skills.MaxCompatibilityLength {
			r.Problemf(at(f.Value.Line, f.Value.Col), "compatibility is %d characters long: at most %d are allowed", n, skills.MaxCompatibilityLength)
		}
	}
	if f, ok := fm.Get("metadata"); ok {
		if f.Value.Kind != skills.KindMap {
			r.Problemf(at(f.Value.Line, f.Value.Col), "metadata is a %s: it must be a mapping of strings to strings", f.Value.Kind)
		} else {
			for _, mf := range f.Value.Fields {
				if mf.Value.Kind != skills.KindString {
					r.Problemf(at(mf.Value.Line, mf.Value.Col), "metadata.%s is a %s: metadata values must be strings (write a list as a comma-separated string)", mf.Key, mf.Value.Kind)
				}
			}
		}
	}
	c.checkTools(data, fm, at)
}

// requiredString checks that the field key is a non-empty string.
func (c *skillChecker) requiredString(fm *skills.FrontMatter, key string, at func(int, int) Problem) (string, bool) {
	f, ok := fm.Get(key)
	switch {
	case !ok:
		c.report.Problemf(at(0, 0), "missing required field %s", key)
	case f.Value.Kind != skills.KindString:
		c.report.Problemf(at(f.Value.Line, f.Value.Col), "%s is a %s: it must be a string", key, f.Value.Kind)
	case strings.TrimSpace(f.Value.Text) == "":
		c.report.Problemf(at(f.Value.Line, f.Value.Col), "%s is empty", key)
	default:
		return f.Value.Text, true
	}
	return "", false
}
