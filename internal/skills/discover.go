package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// MaxFileSize is the largest skill file that can be read (SKILL.md
// included); larger files are listed but reading one fails.
const MaxFileSize = 1 << 20

// ErrFileTooLarge is the error of reading a file over MaxFileSize.
var ErrFileTooLarge = errors.New("file larger than 1 MiB")

// maxSkillFiles bounds the files listed for one skill, so that a skill
// folder holding a dependency tree does not register a million resources.
const maxSkillFiles = 10_000

// RootsEnv is the environment variable whose PATH-style list of folders
// replaces the standard roots.
const RootsEnv = "VOX_SKILL_ROOTS"

// Config says where skills live.
type Config struct {
	// Workspace is the workspace root (absolute).
	Workspace string
	// Home is the user's home folder; empty leaves out the home roots.
	Home string
	// Roots, when non-empty, replaces the nine standard roots and the
	// reference places (it is VOX_SKILL_ROOTS); installs then go to
	// Roots[0].
	Roots []string
	// PluginsDir is the reference's plugins folder, walked for
	// Plugin.toml files (ReferencePlaces); empty leaves it out.
	PluginsDir string
}

// ConfigFromEnv is the configuration of a server or CLI working on
// workspace: the user's home from the environment and VOX_SKILL_ROOTS,
// whose relative entries are taken relative to the workspace and whose
// empty entries are ignored.
func ConfigFromEnv(workspace string) Config {
	home, _ := os.UserHomeDir()
	c := configFrom(workspace, home, os.Getenv(RootsEnv))
	c.PluginsDir = pluginsDir(home, os.Getenv)
	return c
}

func configFrom(workspace, home, roots string) Config {
	c := Config{Workspace: workspace, Home: home}
	for _, r := range filepath.SplitList(roots) {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(workspace, r)
		}
		c.Roots = append(c.Roots, filepath.Clean(r))
	}
	return c
}

// Custom reports whether the roots come from VOX_SKILL_ROOTS.
func (c Config) Custom() bool { return len(c.Roots) > 0 }

// SearchRoots are the folders searched for skills, highest precedence
// first: the workspace's .vox, .cursor, .agents and .claude skill folders,
// the same four in the home folder, then the workspace's assets/skills —
// or the VOX_SKILL_ROOTS entries.
func (c Config) SearchRoots() []string {
	if c.Custom() {
		return append([]string(nil), c.Roots...)
	}
	var roots []string
	add := func(base string, rel ...string) {
		if base != "" {
			roots = append(roots, filepath.Join(append([]string{base}, rel...)...))
		}
	}
	for _, dot := range []string{".vox", ".cursor", ".agents", ".claude"} {
		add(c.Workspace, dot, "skills")
	}
	for _, dot := range []string{".vox", ".cursor", ".agents", ".claude"} {
		add(c.Home, dot, "skills")
	}
	add(c.Workspace, "assets", "skills")
	return roots
}

// InstallTarget is the folder that install and add write into:
// ws/.vox/skills, home/.vox/skills with global, or the first VOX_SKILL_ROOTS
// entry (where global is an error).
func (c Config) InstallTarget(global bool) (string, error) {
	switch {
	case c.Custom() && global:
		return "", fmt.Errorf("global is not available while %s is set: installs go to %s; drop global", RootsEnv, c.Roots[0])
	case c.Custom():
		return c.Roots[0], nil
	case global && c.Home == "":
		return "", errors.New("global needs a home folder, and none is known: set HOME or drop global")
	case global:
		return filepath.Join(c.Home, ".vox", "skills"), nil
	case c.Workspace == "":
		return "", errors.New("no workspace root is known: start the server in the workspace or use global")
	}
	return filepath.Join(c.Workspace, ".vox", "skills"), nil
}

// installTargets are the folders whose direct subfolders remove may
// delete: the folders install writes into.
func (c Config) installTargets() []string {
	if c.Custom() {
		return []string{c.Roots[0]}
	}
	var out []string
	for _, g := range []bool{false, true} {
		if t, err := c.InstallTarget(g); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// File is one file of a skill folder.
type File struct {
	// Path is relative to the skill folder, slash-separated.
	Path string
	Size int64
	// modTime is the file's modification time (Unix nanoseconds) when
	// listed: with Size, what tells a reloaded folder's unchanged file
	// (Registry.Hydrate keeps an unchanged skill as it was).
	modTime int64
}

// Installed is a skill loaded from its folder.
type Installed struct {
	*Skill
	// Path is the skill folder as found (absolute and clean).
	Path string
	// Root is the search root the folder was found under (or installed
	// into).
	Root string
	// Files lists every file of the folder (SKILL.md included), sorted by
	// path; symlinks leaving the folder and .git folders are left out.
	Files []File
	// Dev and Ino identify the folder at RealPath when the skill was
	// loaded (0 where the system has none): vox_skill_run runs a command
	// only in that same folder, never in whatever a path swapped since
	// leads to (docs/security.md).
	Dev, Ino uint64
	// Origin says how the skill was found: OriginFolder (an Agent Skills
	// folder), OriginSkillFile or OriginPlugin (the reference's files,
	// reference.go). The last two have one file, SKILL.md, read from the
	// skill file in place; their Path is that file.
	Origin string

	real string // the folder (Path's, or the skill file's) with symlinks resolved
	doc  string // the skill file relative to real; "" for a folder (SKILL.md)
}

// IsFolder reports whether the skill is an Agent Skills folder, whose
// whole folder is the skill's (and is what vox_skill_run binds); the
// reference's single files are not.
func (in *Installed) IsFolder() bool { return in.doc == "" }

// RealPath is the skill folder with symlinks resolved, as loaded; for a
// skill that is not a folder (IsFolder), the folder holding its file.
func (in *Installed) RealPath() string { return in.real }

// FilePaths are the relative paths of the skill's files.
func (in *Installed) FilePaths() []string {
	out := make([]string, len(in.Files))
	for i, f := range in.Files {
		out[i] = f.Path
	}
	return out
}

// ReadFile reads the file rel (as listed in Files) of the skill folder,
// resolved beneath the folder at every read (internal/safefs): symlinks are
// followed only while they stay inside it, and anything but a regular file
// — a FIFO swapped in since the listing, say — is refused at once, never
// waited on.
func (in *Installed) ReadFile(rel string) ([]byte, error) {
	data, _, err := in.readFileInfo(rel)
	return data, err
}

// Found is one skill folder seen by discovery.
type Found struct {
	*Installed
	// ShadowedBy is the folder of the skill that took this id first, ""
	// when this one did.
	ShadowedBy string
}

// Scan reads every skill under roots, in precedence order and, within a
// root, in lexical folder order. Immediate subfolders holding SKILL.md
// are skills; hidden folders (".git", unfinished installs) are not. Then
// come the reference's skill files: those in the roots, then those found
// by walking places (ReferenceCandidates). Loading
// is lenient: a skill that cannot be loaded is skipped with a warning, and
// every lesser problem is a warning naming its file. The first skill with a
// given id wins; later ones are returned with ShadowedBy set.
func Scan(roots []string, places ...Place) ([]Found, []string) {
	found, _, warnings := ScanReport(roots, places...)
	return found, warnings
}

// Skipped is a skill folder that discovery could not load: where its
// SKILL.md is and why (positioned as path:line:col when the front matter
// says where). Skipped skills are never silent: vox_skill_discover lists
// them and the server logs them.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ScanReport is Scan also returning the skills it skipped.
func ScanReport(roots []string, places ...Place) ([]Found, []Skipped, []string) {
	var found []Found
	var skipped []Skipped
	var warnings []string
	winners := map[string]string{}
	seenRoots := map[string]bool{}
	for _, root := range roots {
		root = filepath.Clean(root)
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("%s: %v: skipped", root, err))
			}
			continue
		}
		// A root reached twice (the workspace is the home folder, or a
		// symlinked root) would only shadow itself.
		if seenRoots[realRoot] {
			continue
		}
		seenRoots[realRoot] = true
		entries, err := ReadDir(root)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v: skipped", root, err))
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			dir := filepath.Join(root, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(dir)
				if err != nil {
					continue // a dangling link holds no skill
				}
				if !within(realRoot, target) || target == realRoot {
					if _, err := os.Stat(filepath.Join(target, "SKILL.md")); err == nil {
						warnings = append(warnings, fmt.Sprintf("%s: symlinked skill folder leaves its root %s: skipped", dir, root))
						skipped = append(skipped, Skipped{Path: filepath.Join(dir, "SKILL.md"), Reason: "the symlinked skill folder leaves its root " + root})
					}
					continue
				}
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, "SKILL.md")); err != nil {
				continue
			}
			in, warns, err := Load(dir, root)
			for _, w := range warns {
				warnings = append(warnings, fmt.Sprintf("%s: %s", filepath.Join(dir, "SKILL.md"), w))
			}
			if err != nil {
				w := skipWarning(filepath.Join(dir, "SKILL.md"), err)
				warnings = append(warnings, w)
				path, reason := splitSkip(filepath.Join(dir, "SKILL.md"), w)
				skipped = append(skipped, Skipped{Path: path, Reason: reason})
				continue
			}
			f := Found{Installed: in}
			if winner, ok := winners[in.ID]; ok {
				f.ShadowedBy = winner
				warnings = append(warnings, fmt.Sprintf("%s: skill %q is shadowed by %s", dir, in.ID, winner))
			} else {
				winners[in.ID] = dir
			}
			found = append(found, f)
		}
	}
	// Then the reference's skill files (reference.go): after every Agent
	// Skills folder, so that they never take an id from one.
	cands, warns := ReferenceCandidates(roots, places)
	warnings = append(warnings, warns...)
	docs := map[string]bool{}
	for _, c := range cands {
		// A file is loaded once: a plugin's skill file is the plugin's,
		// and a root inside the workspace is walked again.
		seen := realFile(c.Path)
		if docs[seen] {
			continue
		}
		docs[seen] = true
		var in *Installed
		var warns []string
		var err error
		if c.Origin == OriginPlugin {
			in, warns, err = LoadPlugin(c.Path, c.Root)
		} else {
			in, warns, err = LoadSkillFile(c.Path, c.Root)
		}
		if errors.Is(err, ErrNotSkillPlugin) {
			continue
		}
		at := c.Path
		if in != nil {
			at = in.Path
		}
		for _, w := range warns {
			warnings = append(warnings, fmt.Sprintf("%s: %s", at, w))
		}
		if err != nil {
			w := skipWarning(at, err)
			warnings = append(warnings, w)
			path, reason := splitSkip(at, w)
			skipped = append(skipped, Skipped{Path: path, Reason: reason})
			continue
		}
		if key := realFile(filepath.Join(in.real, filepath.FromSlash(in.doc))); key != seen {
			if docs[key] {
				continue // a plugin's skill file loaded before
			}
			docs[key] = true
		}
		f := Found{Installed: in}
		if winner, ok := winners[in.ID]; ok {
			f.ShadowedBy = winner
			warnings = append(warnings, fmt.Sprintf("%s: skill %q is shadowed by %s", in.Path, in.ID, winner))
		} else {
			winners[in.ID] = in.Path
		}
		found = append(found, f)
	}
	return found, skipped, warnings
}

// realFile is p with symlinks resolved, or p when it cannot be.
func realFile(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// splitSkip splits a skip warning of the file at file into the position
// (file, or file:line:col) and the reason.
func splitSkip(file, warning string) (path, reason string) {
	rest := strings.TrimSuffix(strings.TrimPrefix(warning, file), ": skipped")
	pos, reason, ok := strings.Cut(rest, ": ")
	if !ok {
		return file, strings.TrimPrefix(rest, ": ")
	}
	return file + pos, reason
}

// ReadDir lists the folder root as discovery does: sorted, and without
// blocking whatever is in its place (a FIFO is "not a directory").
func ReadDir(root string) ([]fs.DirEntry, error) {
	r, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadDir(".")
}

// skipWarning words why the skill of SKILL.md at path was skipped: at
// path:line:col when the front matter says where.
func skipWarning(path string, err error) string {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line > 0 {
		if pe.Col > 0 {
			return fmt.Sprintf("%s:%d:%d: %s: skipped", path, pe.Line, pe.Col, pe.Msg)
		}
		return fmt.Sprintf("%s:%d: %s: skipped", path, pe.Line, pe.Msg)
	}
	return fmt.Sprintf("%s: %v: skipped", path, err)
}

// Load reads the skill in folder dir (found under root): its SKILL.md and
// the list of its files. Warnings are positioned relative to SKILL.md.
func Load(dir, root string) (*Installed, []string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, err
	}
	folder, err := os.Lstat(real)
	if err != nil {
		return nil, nil, err
	}
	in := &Installed{Path: dir, Root: root, Origin: OriginFolder, real: real}
	in.Dev, in.Ino = folderIdentity(real, folder)
	in.Skill = &Skill{ID: filepath.Base(dir)}
	data, err := in.ReadFile("SKILL.md")
	if err != nil {
		if errors.Is(err, ErrFileTooLarge) {
			return nil, nil, errors.New("SKILL.md is larger than 1 MiB")
		}
		return nil, nil, err
	}
	sk, warnings, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	in.Skill = sk
	if base := filepath.Base(dir); base != sk.Name {
		warnings = append(warnings, fmt.Sprintf("the folder name %q differs from the skill name %q", base, sk.Name))
	}
	files, fileWarnings := listFiles(real)
	in.Files = files
	return in, append(warnings, fileWarnings...), nil
}

// listFiles lists the regular files under dir, sorted by relative path,
// resolving every path beneath dir (internal/safefs). Symlinks are listed
// when they lead to a file inside dir; symlinked folders are not followed
// (they could loop), .git folders are not skill content, and FIFOs,
// sockets and devices are never opened.
func listFiles(dir string) ([]File, []string) {
	files := []File{}
	var warnings []string
	root, err := safefs.OpenRoot(dir)
	if err != nil {
		return files, []string{err.Error()}
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			warnings = append(warnings, err.Error())
			if d != nil && d.IsDir() && rel != "." {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		var size, modTime int64
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			st, err := root.Stat(rel)
			switch {
			case errors.Is(err, safefs.ErrEscapes):
				if target, lerr := os.Readlink(filepath.Join(dir, filepath.FromSlash(rel))); lerr == nil && filepath.IsAbs(target) && within(dir, filepath.Clean(target)) {
					warnings = append(warnings, fmt.Sprintf("%s is an absolute symlink: only relative symlinks inside the skill folder are served", rel))
				} else {
					warnings = append(warnings, fmt.Sprintf("%s is a symlink leaving the skill folder: not served", rel))
				}
				return nil
			case err != nil:
				return nil // dangling
			case st.IsDir():
				warnings = append(warnings, fmt.Sprintf("%s is a symlinked folder: not followed", rel))
				return nil
			case !st.Mode().IsRegular():
				warnings = append(warnings, fmt.Sprintf("%s leads to %s: not served", rel, safefs.KindOf(st.Mode())))
				return nil
			}
			size, modTime = st.Size(), st.ModTime().UnixNano()
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return nil
			}
			size, modTime = info.Size(), info.ModTime().UnixNano()
		default:
			warnings = append(warnings, fmt.Sprintf("%s is %s: not served", rel, safefs.KindOf(d.Type())))
			return nil
		}
		if len(files) == maxSkillFiles {
			warnings = append(warnings, fmt.Sprintf("more than %d files: the rest are not served", maxSkillFiles))
			return fs.SkipAll
		}
		files = append(files, File{Path: rel, Size: size, modTime: modTime})
		return nil
	})
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, warnings
}

// within reports whether p is base or lies under it (both clean and
// absolute).
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
