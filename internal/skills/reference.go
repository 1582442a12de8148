package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// The skill sources of the Vox reference implementation (docs/skills.md
// §2): single `*.skill.md` files, and plugin folders whose Plugin.toml
// names a skill file with the key skill-md. They are served beside the
// Agent Skills folders, in place, as skill://<id>/SKILL.md.

// Names of the reference's skill files.
const (
	// SkillFileSuffix ends the name of a single-file skill.
	SkillFileSuffix = ".skill.md"
	// PluginManifest is the file of a plugin folder.
	PluginManifest = "Plugin.toml"
	// PluginsDirEnv names the plugins folder, as in the reference.
	PluginsDirEnv = "VOX_PLUGINS_DIR"
)

// How a skill was found (Installed.Origin).
const (
	OriginFolder    = "folder"     // <root>/<folder>/SKILL.md
	OriginSkillFile = "skill-file" // a *.skill.md file
	OriginPlugin    = "plugin"     // the file Plugin.toml names with skill-md
)

// The walk of a place stops this deep (the reference's `vox skill
// discover` walks to depth 6) and after this many entries, so that a
// workspace holding a dependency tree costs a bounded start-up.
const (
	placeDepth      = 6
	maxPlaceEntries = 20_000
	// maxPlaceSkills bounds the skill files and plugins one walk loads:
	// each skill keeps its file (up to 1 MiB) in memory, and a cloned
	// repository decides how many it holds.
	maxPlaceSkills = 500
)

// placeSkipped are the folder names a walk never enters besides hidden
// ones, as in the reference.
var placeSkipped = []string{"target", "node_modules"}

// Place is a folder walked (to depth 6) for the reference's skill files.
type Place struct {
	Dir string
	// SkillFiles collects *.skill.md files; Plugins collects Plugin.toml.
	SkillFiles, Plugins bool
}

// ReferencePlaces are the folders walked for the reference's skill files
// after the search roots: the workspace (*.skill.md and Plugin.toml), then
// the plugins folder (Plugin.toml). VOX_SKILL_ROOTS replaces them too.
func (c Config) ReferencePlaces() []Place {
	if c.Custom() {
		return nil
	}
	var out []Place
	if c.Workspace != "" {
		out = append(out, Place{Dir: c.Workspace, SkillFiles: true, Plugins: true})
	}
	if c.PluginsDir != "" {
		out = append(out, Place{Dir: c.PluginsDir, Plugins: true})
	}
	return out
}

// pluginsDir is the reference's plugins folder: VOX_PLUGINS_DIR, else
// vox/plugins in the user's local data folder ($XDG_DATA_HOME or
// ~/.local/share on Linux and the BSDs, ~/Library/Application Support on
// macOS, %LOCALAPPDATA% on Windows); "" when none is known.
func pluginsDir(home string, getenv func(string) string) string {
	if d := getenv(PluginsDirEnv); d != "" && filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	var data string
	switch runtime.GOOS {
	case "windows":
		data = getenv("LOCALAPPDATA")
	case "darwin":
		if home != "" {
			data = filepath.Join(home, "Library", "Application Support")
		}
	default:
		if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
			data = d
		} else if home != "" {
			data = filepath.Join(home, ".local", "share")
		}
	}
	if data == "" {
		return ""
	}
	return filepath.Join(data, "vox", "plugins")
}

// Candidate is one reference skill source seen by discovery.
type Candidate struct {
	// Origin is OriginSkillFile or OriginPlugin.
	Origin string
	// Path is the *.skill.md file, or the plugin's Plugin.toml.
	Path string
	// Root is the search root or place it was found under.
	Root string
}

// ReferenceCandidates lists the reference's skill sources in discovery
// order: in each root, its *.skill.md files and the subfolders holding a
// Plugin.toml (and no SKILL.md, which makes an Agent Skills folder); then
// in each place, walked to depth 6 without entering hidden folders,
// target or node_modules, and following no symlinked folder, first every
// Plugin.toml, then every *.skill.md. Hidden files are not skills.
func ReferenceCandidates(roots []string, places []Place) ([]Candidate, []string) {
	var out []Candidate
	var warnings []string
	for _, root := range roots {
		root = filepath.Clean(root)
		entries, err := ReadDir(root)
		if err != nil {
			continue // Scan reports an unreadable root
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(root, name)
			st, err := os.Stat(p)
			switch {
			case err != nil:
			case st.Mode().IsRegular() && isSkillFileName(name):
				out = append(out, Candidate{Origin: OriginSkillFile, Path: p, Root: root})
			case st.IsDir() && e.Type()&fs.ModeSymlink == 0:
				if _, err := os.Lstat(filepath.Join(p, "SKILL.md")); err == nil {
					continue
				}
				if st, err := os.Lstat(filepath.Join(p, PluginManifest)); err == nil && st.Mode().IsRegular() {
					out = append(out, Candidate{Origin: OriginPlugin, Path: filepath.Join(p, PluginManifest), Root: root})
				}
			}
		}
	}
	for _, pl := range places {
		found, warns := walkPlace(pl)
		out = append(out, found...)
		warnings = append(warnings, warns...)
	}
	return out, warnings
}

func isSkillFileName(name string) bool {
	return len(name) > len(SkillFileSuffix) && strings.HasSuffix(name, SkillFileSuffix)
}

// walkPlace lists the candidates of one place, beneath it (internal/safefs:
// the walk never leaves it through a link).
func walkPlace(pl Place) ([]Candidate, []string) {
	dir := filepath.Clean(pl.Dir)
	root, err := safefs.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s: %v: not searched for skill files", dir, err)}
	}
	defer root.Close()
	var plugins, files []Candidate
	var warnings []string
	seen := 0
	_ = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil || rel == "." {
			return nil // an unreadable folder holds no skill we can serve
		}
		name := d.Name()
		if seen++; seen > maxPlaceEntries {
			warnings = append(warnings, fmt.Sprintf("%s: more than %d entries: the rest is not searched for skill files", dir, maxPlaceEntries))
			return fs.SkipAll
		}
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || slices.Contains(placeSkipped, name) || strings.Count(rel, "/")+1 >= placeDepth {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if len(plugins)+len(files) == maxPlaceSkills && (pl.Plugins && name == PluginManifest || pl.SkillFiles && isSkillFileName(name)) {
			warnings = append(warnings, fmt.Sprintf("%s: more than %d skill files and plugins: the rest are not loaded", dir, maxPlaceSkills))
			return fs.SkipAll
		}
		switch {
		case pl.Plugins && name == PluginManifest && d.Type().IsRegular():
			plugins = append(plugins, Candidate{Origin: OriginPlugin, Path: p, Root: dir})
		case pl.SkillFiles && isSkillFileName(name):
			files = append(files, Candidate{Origin: OriginSkillFile, Path: p, Root: dir})
		}
		return nil
	})
	return append(plugins, files...), warnings
}

// LoadSkillFile reads the single-file skill at file (found under root).
// The file is read beneath its folder (internal/safefs): a symlink leaving
// the folder is refused, as is anything but a regular file. The skill has
// one file, served as SKILL.md.
func LoadSkillFile(file, root string) (*Installed, []string, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, nil, err
	}
	in, err := newDocSkill(file, filepath.Dir(file), filepath.Base(file), root, OriginSkillFile)
	if err != nil {
		return nil, nil, err
	}
	data, err := in.readDoc()
	if err != nil {
		return nil, nil, err
	}
	sk, warnings, err := ParseReference(data)
	if err != nil {
		return nil, nil, err
	}
	in.Skill = sk
	return in, warnings, nil
}

// newDocSkill is the Installed of a skill whose one file is doc (relative
// to the folder dir), displayed as path.
func newDocSkill(path, dir, doc, root, origin string) (*Installed, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	folder, err := os.Lstat(real)
	if err != nil {
		return nil, err
	}
	in := &Installed{Path: path, Root: root, Origin: origin, real: real, doc: filepath.ToSlash(doc)}
	in.Dev, in.Ino = folderIdentity(real, folder)
	in.Skill = &Skill{ID: strings.TrimSuffix(filepath.Base(path), SkillFileSuffix)}
	return in, nil
}

// readDoc reads the skill's one file and lists it as SKILL.md.
func (in *Installed) readDoc() ([]byte, error) {
	data, info, err := in.readFileInfo("SKILL.md")
	if err != nil {
		if errors.Is(err, ErrFileTooLarge) {
			return nil, fmt.Errorf("%s is larger than 1 MiB", filepath.Base(in.doc))
		}
		return nil, err
	}
	in.Files = []File{{Path: "SKILL.md", Size: info.Size(), modTime: info.ModTime().UnixNano()}}
	return data, nil
}

// pluginManifest is what discovery reads of a Plugin.toml.
type pluginManifest struct {
	Plugin struct {
		ID          string `toml:"id"`
		Name        string `toml:"name"`
		Version     string `toml:"version"`
		Description string `toml:"description"`
		Payload     struct {
			Kind    string         `toml:"kind"`
			SkillMD string         `toml:"skill-md"`
			Tools   pluginTools    `toml:"tools"`
			Skill   *pluginPayload `toml:"skill"`
		} `toml:"payload"`
	} `toml:"plugin"`
}

type pluginPayload struct {
	SkillMD string      `toml:"skill-md"`
	Tools   pluginTools `toml:"tools"`
}

type pluginTools struct {
	Exposes []string `toml:"exposes"`
}

// ErrNotSkillPlugin is the error of a Plugin.toml whose payload is not a
// skill: a plugin of another kind, which discovery passes over silently.
var ErrNotSkillPlugin = errors.New("the plugin's payload is not a skill")

// PluginSkill is what a Plugin.toml says of its skill.
type PluginSkill struct {
	ID, Name, Version, Description string
	// SkillMD is the skill file, relative to the Plugin.toml folder
	// (slash-separated, as written).
	SkillMD string
	// Tools are [plugin.payload.tools] exposes.
	Tools []string
}

// ReadPluginManifest parses a Plugin.toml: a payload of kind "skill"
// names its file with skill-md under [plugin.payload], one of kind
// "composite" under [plugin.payload.skill] (the tools are read beside
// it, else under [plugin.payload]). Any other kind is ErrNotSkillPlugin.
// Errors are positioned as line N:col when the TOML says where.
func ReadPluginManifest(data []byte) (*PluginSkill, error) {
	var m pluginManifest
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{Line: pe.Position.Line, Col: pe.Position.Col, Msg: pe.Message}
		}
		return nil, &ParseError{Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	p := m.Plugin
	ps := &PluginSkill{ID: strings.TrimSpace(p.ID), Name: strings.TrimSpace(p.Name), Version: strings.TrimSpace(p.Version),
		Description: strings.TrimSpace(p.Description)}
	switch p.Payload.Kind {
	case "skill":
		ps.SkillMD, ps.Tools = p.Payload.SkillMD, p.Payload.Tools.Exposes
	case "composite":
		if p.Payload.Skill == nil {
			return nil, &ParseError{Msg: `[plugin.payload] has kind "composite" but no [plugin.payload.skill]: add it with skill-md naming the skill file, or another kind`}
		}
		ps.SkillMD, ps.Tools = p.Payload.Skill.SkillMD, p.Payload.Skill.Tools.Exposes
		if len(ps.Tools) == 0 {
			ps.Tools = p.Payload.Tools.Exposes
		}
	default:
		return nil, ErrNotSkillPlugin
	}
	ps.SkillMD = strings.TrimSpace(ps.SkillMD)
	switch {
	case ps.SkillMD == "":
		return nil, &ParseError{Msg: fmt.Sprintf("[plugin.payload] has kind %q but no skill-md: add skill-md = \"<file>.skill.md\" naming the skill file beside Plugin.toml", p.Payload.Kind)}
	case !filepath.IsLocal(filepath.FromSlash(ps.SkillMD)) || strings.Contains(ps.SkillMD, `\`):
		return nil, &ParseError{Msg: fmt.Sprintf("skill-md %q leaves the plugin folder: it must name a file inside it, relative to Plugin.toml, with / between folders", ps.SkillMD)}
	}
	return ps, nil
}

// LoadPlugin reads the skill of the plugin folder holding manifest (a
// Plugin.toml found under root). As in the reference, the skill's id,
// name, version and description come from [plugin] (id defaults to the
// name) and its tools from exposes; the skill file's front matter, when
// it has one, is not read for them, and the body is the text after it
// (the whole file when it has none). Both files are read beneath the
// plugin folder (internal/safefs).
func LoadPlugin(manifest, root string) (*Installed, []string, error) {
	manifest, err := filepath.Abs(manifest)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(manifest)
	r, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	data, err := r.ReadFile(PluginManifest, MaxFileSize)
	r.Close()
	if err != nil {
		return nil, nil, err
	}
	ps, err := ReadPluginManifest(data)
	if err != nil {
		return nil, nil, err
	}
	doc := filepath.FromSlash(ps.SkillMD)
	in, err := newDocSkill(filepath.Join(dir, doc), dir, doc, root, OriginPlugin)
	if err != nil {
		return nil, nil, err
	}
	text, err := in.readDoc()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("the skill file %s that skill-md names does not exist: write it, or name the file beside Plugin.toml that holds the skill", ps.SkillMD)
	case err != nil:
		return nil, nil, fmt.Errorf("the skill file %s that skill-md names cannot be read: %w", ps.SkillMD, err)
	}
	if strings.TrimSpace(string(text)) == "" {
		return nil, nil, fmt.Errorf("the skill file %s that skill-md names is empty", ps.SkillMD)
	}
	fm := &FrontMatter{Format: FormatTOML}
	str := func(s string) Value { return Value{Kind: KindString, Text: s} }
	for _, kv := range [][2]string{{"name", ps.Name}, {"description", ps.Description}, {"id", ps.ID}, {"version", ps.Version}} {
		if kv[1] != "" {
			fm.Fields = append(fm.Fields, Field{Key: kv[0], Value: str(kv[1])})
		}
	}
	if ps.Name == "" && ps.ID != "" {
		fm.Fields = append(fm.Fields, Field{Key: "name", Value: str(ps.ID)})
	}
	tools := Value{Kind: KindList}
	for _, t := range ps.Tools {
		tools.Items = append(tools.Items, str(t))
	}
	fm.Fields = append(fm.Fields, Field{Key: "tools", Value: tools})
	if split, err := ParseFrontMatter(text); err == nil {
		fm.Body = split.Body
	} else {
		fm.Body = strings.TrimSpace(string(text))
	}
	p := manifestParser{fm: fm, reference: true, plugin: true}
	sk := p.skill()
	if p.err != nil {
		var pe *ParseError
		if errors.As(p.err, &pe) {
			return nil, nil, fmt.Errorf("%s: %s (from [plugin] of Plugin.toml)", PluginManifest, pe.Msg)
		}
		return nil, nil, p.err
	}
	sk.Source = text
	in.Skill = sk
	return in, p.warnings, nil
}
