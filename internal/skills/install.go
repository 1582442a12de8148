package skills

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// Limits on what one install or add may write.
const (
	maxInstallFiles = 1_000
	maxAddFiles     = 10_000
	maxAddBytes     = 64 << 20
)

// checkSegment says why s cannot be one path segment (a folder or file
// name), or returns nil.
func checkSegment(s string) error {
	switch {
	case s == "":
		return errors.New("is empty")
	case s == "." || s == "..":
		return errors.New("is a relative path step")
	case len(s) > 255:
		return errors.New("is longer than 255 bytes")
	case !utf8.ValidString(s):
		return errors.New("is not valid UTF-8")
	case strings.ContainsAny(s, `/\`):
		return errors.New("contains a path separator")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return errors.New("contains a control character")
		}
	}
	return nil
}

// checkFolderName says why name cannot name a skill folder: it must be a
// safe segment, and not hidden (discovery skips hidden folders) nor start
// with '-' (it could be read as an option).
func checkFolderName(name string) error {
	if err := checkSegment(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-") {
		return errors.New("starts with '.' or '-'")
	}
	return nil
}

// checkRelPath says why p cannot be the relative path of a file written
// into a skill folder.
func checkRelPath(p string) error {
	switch {
	case p == "":
		return errors.New("is empty")
	case strings.HasPrefix(p, "/"):
		return errors.New("is absolute")
	case strings.Contains(p, `\`):
		return errors.New(`contains '\': separate folders with '/'`)
	case path.Clean(p) != p:
		return errors.New("is not a clean relative path")
	case p == "SKILL.md":
		return errors.New("is SKILL.md, which comes from skill_md")
	}
	for _, seg := range strings.Split(p, "/") {
		if err := checkSegment(seg); err != nil {
			return fmt.Errorf("segment %q %v", seg, err)
		}
		if seg == ".git" {
			return errors.New("is inside .git")
		}
	}
	return nil
}

// Install writes a skill given as SKILL.md text plus files (relative path
// to UTF-8 text) into <target>/<name>/ and installs it. The target is
// ws/.vox/skills, home/.vox/skills with global, or the first
// VOX_SKILL_ROOTS entry. It refuses when an installed skill already has
// the name or id, or when the folder exists. It returns the parse warnings.
func (r *Registry) Install(skillMD []byte, files map[string]string, global bool) (*Installed, []string, error) {
	sk, warnings, err := Parse(skillMD)
	if err != nil {
		return nil, nil, fmt.Errorf("skill_md: %w: fix the front matter and try again (vox_skill_parse checks it without installing)", err)
	}
	if err := checkFolderName(sk.Name); err != nil {
		return nil, nil, fmt.Errorf("the skill name %q cannot be a folder name: it %v; rename the skill", sk.Name, err)
	}
	if len(files) > maxInstallFiles {
		return nil, nil, fmt.Errorf("files: %d files, at most %d may be installed at once", len(files), maxInstallFiles)
	}
	rels := make([]string, 0, len(files))
	for rel, text := range files {
		if err := checkRelPath(rel); err != nil {
			return nil, nil, fmt.Errorf("files: %q %v: give relative paths inside the skill folder, like references/guide.md", rel, err)
		}
		if len(text) > MaxFileSize {
			return nil, nil, fmt.Errorf("files: %q is larger than 1 MiB: ship it some other way", rel)
		}
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	tgt, err := r.cfg.prepare(snap, []*Skill{sk}, global)
	if err != nil {
		return nil, nil, err
	}
	defer tgt.dir.Close()
	name, staging, err := tgt.stage()
	if err != nil {
		return nil, nil, err
	}
	defer tgt.dir.RemoveAll(name)
	defer staging.Close()
	if err := staging.WriteFile("SKILL.md", skillMD, 0o644); err != nil {
		return nil, nil, err
	}
	for _, rel := range rels {
		if dir := path.Dir(rel); dir != "." {
			if err := staging.MkdirAll(dir, 0o755); err != nil {
				return nil, nil, err
			}
		}
		if err := staging.WriteFile(rel, []byte(files[rel]), 0o644); err != nil {
			return nil, nil, err
		}
	}
	ins, err := tgt.place(map[string]string{sk.Name: name})
	if err != nil {
		return nil, nil, err
	}
	r.commit(append(snap.Skills(), ins...))
	return ins[0], warnings, nil
}

// target is an install target held open: its path (for the registry and
// messages) and the folder itself, opened beneath the workspace or home
// folder it belongs to (internal/safefs). Every write of an install goes
// through the folder, never through the path again.
type target struct {
	path string
	dir  *safefs.Root
}

// openTarget opens the install target (see InstallTarget), making it when
// create is set. The folders on the way from the workspace or home folder
// (.vox, .vox/skills) are made and opened beneath it, following a symlink
// only while it stays inside: a .vox or .vox/skills that is a symlink
// leading elsewhere — which would redirect the write — is refused, not
// checked and then used. A VOX_SKILL_ROOTS entry is the user's own
// choice: it is made and opened as given.
func (c Config) openTarget(global, create bool) (*target, error) {
	path, err := c.InstallTarget(global)
	if err != nil {
		return nil, err
	}
	if c.Custom() {
		if create {
			if err := os.MkdirAll(path, 0o755); err != nil {
				return nil, fmt.Errorf("cannot create the install target: %w", err)
			}
		}
		dir, err := safefs.OpenRoot(path)
		if err != nil {
			return nil, fmt.Errorf("install target %s: %w", path, err)
		}
		return &target{path: path, dir: dir}, nil
	}
	anchor, what := c.Workspace, "the workspace"
	if global {
		anchor, what = c.Home, "the home folder"
	}
	base, err := safefs.OpenRoot(anchor)
	if err != nil {
		return nil, fmt.Errorf("install target %s: %s: %w", path, what, err)
	}
	defer base.Close()
	const rel = ".vox/skills"
	if create {
		err = base.MkdirAll(rel, 0o755)
	}
	var dir *safefs.Root
	if err == nil {
		dir, err = base.OpenRoot(rel)
	}
	switch {
	case errors.Is(err, safefs.ErrEscapes):
		return nil, fmt.Errorf("the install target %s leads outside %s (%s): a symlinked .vox or .vox/skills would redirect the write; refused: make it a real folder, or set %s", path, what, anchor, RootsEnv)
	case err != nil:
		return nil, fmt.Errorf("cannot open the install target %s: %w", path, unwrapPathErr(err))
	}
	return &target{path: path, dir: dir}, nil
}

// unwrapPathErr drops the relative path of a safefs error when the
// message names the folder already.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// prepare refuses skills whose id or name is installed or that collide
// with each other — before anything is made on disk — then opens the
// install target, making it, and refuses skills whose folder exists there.
func (c Config) prepare(snap *Snapshot, skills []*Skill, global bool) (*target, error) {
	seen := map[string]bool{}
	for _, sk := range skills {
		for _, key := range []string{sk.ID, sk.Name} {
			if in, ok := snap.Get(key); ok {
				return nil, fmt.Errorf("a skill named %q is already installed (id %s, from %s): uninstall or remove it first, or rename the new skill", key, in.ID, in.Path)
			}
		}
		if seen[sk.ID] || seen[sk.Name] {
			return nil, fmt.Errorf("two of the skills to add are named %q: add them one at a time with skill", sk.Name)
		}
		seen[sk.ID], seen[sk.Name] = true, true
	}
	t, err := c.openTarget(global, true)
	if err != nil {
		return nil, err
	}
	for _, sk := range skills {
		if _, err := t.dir.Lstat(sk.Name); err == nil {
			t.dir.Close()
			return nil, fmt.Errorf("%s already exists: remove it or rename the new skill", filepath.Join(t.path, sk.Name))
		}
	}
	return t, nil
}

// stage makes a hidden staging folder in the target (so the final rename
// stays on one file system) and opens it; discovery skips hidden folders,
// so a crash never leaves a half-written skill behind.
func (t *target) stage() (string, *safefs.Root, error) {
	name, err := t.dir.MkdirTemp(".vox-install-")
	if err != nil {
		return "", nil, fmt.Errorf("cannot create a staging folder in the install target: %w", err)
	}
	dir, err := t.dir.OpenRoot(name)
	if err != nil {
		t.dir.RemoveAll(name)
		return "", nil, err
	}
	return name, dir, nil
}

// place renames each staged folder (skill name to staging folder name) to
// its skill name in the target, never replacing anything, and loads it.
func (t *target) place(staged map[string]string) ([]*Installed, error) {
	names := make([]string, 0, len(staged))
	for name := range staged {
		names = append(names, name)
	}
	sort.Strings(names)
	var placed []string
	var ins []*Installed
	// On failure, take back what was placed: a folder left in the target
	// would be installed at the next start.
	fail := func(err error) ([]*Installed, error) {
		for _, name := range placed {
			t.dir.RemoveAll(name)
		}
		return nil, err
	}
	for _, name := range names {
		if err := t.dir.Rename(staged[name], name); err != nil {
			return fail(fmt.Errorf("cannot move the skill into place: %w", err))
		}
		placed = append(placed, name)
		in, _, err := Load(filepath.Join(t.path, name), t.path)
		if err == nil && !t.holds(name, in.real) {
			err = errors.New("its folder is no longer the one written")
		}
		if err != nil {
			return fail(fmt.Errorf("%s changed while it was installed: %w; try again", name, err))
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// holds reports whether the folder at path (as loaded) is the entry name
// of the target: the path was not redirected since the target was opened.
func (t *target) holds(name, path string) bool {
	info, err := os.Stat(path)
	return err == nil && t.dir.SameFile(name, info)
}

// Add copies skills from a local folder or a git repository into the
// install target and installs them. source is a git URL when it matches
// ^(https|ssh|git):// or the scp form user@host:path; otherwise it is a
// local folder (relative to the workspace). The folder (or repository) is
// either a skill itself or holds skill folders (at its top or under
// skills/); skill selects one of them by folder name, name or id. Nothing
// of the source is run, symlinks are refused, and every name must be a
// safe path segment. It returns the added skills and their warnings.
func (r *Registry) Add(ctx context.Context, source string, global bool, skill string) ([]*Installed, []string, error) {
	if skill != "" {
		if err := checkFolderName(skill); err != nil {
			return nil, nil, fmt.Errorf("skill %q %v: give the name of one skill folder", skill, err)
		}
	}
	if _, err := r.cfg.InstallTarget(global); err != nil {
		return nil, nil, err
	}
	dir := source
	if IsGitURL(source) {
		tmp, err := os.MkdirTemp("", "vox-skill-add-")
		if err != nil {
			return nil, nil, err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "repo")
		if err := gitClone(ctx, source, dir, tmp); err != nil {
			return nil, nil, err
		}
	} else {
		if source == "" {
			return nil, nil, errors.New("source is empty: give a local skill folder or a git URL")
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(r.cfg.Workspace, dir)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, nil, fmt.Errorf("source %s is not a folder: give a local skill folder or a git URL (https://, ssh://, git:// or user@host:path)", source)
		}
	}
	folders, err := skillFolders(dir, skill)
	if err != nil {
		return nil, nil, fmt.Errorf("source %s: %w", source, err)
	}
	var (
		skillsToAdd []*Skill
		warnings    []string
	)
	for _, f := range folders {
		if err := checkCopyable(f); err != nil {
			return nil, nil, err
		}
		in, warns, err := Load(f, "")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w: fix the skill or pick another one with skill", relTo(dir, filepath.Join(f, "SKILL.md")), err)
		}
		if err := checkFolderName(in.Name); err != nil {
			return nil, nil, fmt.Errorf("the skill name %q cannot be a folder name: it %v", in.Name, err)
		}
		for _, w := range warns {
			warnings = append(warnings, fmt.Sprintf("%s: %s", in.Name, w))
		}
		skillsToAdd = append(skillsToAdd, in.Skill)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	tgt, err := r.cfg.prepare(snap, skillsToAdd, global)
	if err != nil {
		return nil, nil, err
	}
	defer tgt.dir.Close()
	staged := map[string]string{}
	defer func() {
		for _, name := range staged {
			tgt.dir.RemoveAll(name)
		}
	}()
	for i, f := range folders {
		name, staging, err := tgt.stage()
		if err != nil {
			return nil, nil, err
		}
		staged[skillsToAdd[i].Name] = name
		err = copyTree(f, staging)
		staging.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	ins, err := tgt.place(staged)
	if err != nil {
		return nil, nil, err
	}
	r.commit(append(snap.Skills(), ins...))
	return ins, warnings, nil
}

func relTo(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}

// skillFolders finds the skills of a source folder: the folder itself when
// it holds SKILL.md, else its subfolders holding one, and those of its
// skills/ folder (the usual layout of multi-skill repositories). With skill
// set, the one whose folder name, name or id is skill.
func skillFolders(dir, skill string) ([]string, error) {
	var folders []string
	if isRegular(filepath.Join(dir, "SKILL.md")) {
		folders = []string{dir}
	} else {
		for _, base := range []string{dir, filepath.Join(dir, "skills")} {
			entries, err := ReadDir(base)
			if err != nil {
				continue
			}
			for _, e := range entries {
				sub := filepath.Join(base, e.Name())
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && isRegular(filepath.Join(sub, "SKILL.md")) {
					folders = append(folders, sub)
				}
			}
		}
	}
	if len(folders) == 0 {
		return nil, errors.New("no SKILL.md in the folder, its subfolders or skills/*: is it a skill?")
	}
	if skill == "" {
		return folders, nil
	}
	var names []string
	for _, f := range folders {
		if filepath.Base(f) == skill {
			return []string{f}, nil
		}
		if data, err := ReadSkillMD(f); err == nil {
			if sk, _, err := Parse(data); err == nil && (sk.Name == skill || sk.ID == skill) {
				return []string{f}, nil
			}
		}
		names = append(names, filepath.Base(f))
	}
	return nil, fmt.Errorf("no skill %q: it holds %s", skill, strings.Join(names, ", "))
}

func isRegular(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

// ReadSkillMD reads dir/SKILL.md as discovery does: beneath the folder,
// without blocking, a regular file only, at most MaxFileSize bytes
// (ErrFileTooLarge).
func ReadSkillMD(dir string) ([]byte, error) {
	root, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := root.ReadFile("SKILL.md", MaxFileSize)
	var tl *safefs.TooLargeError
	if errors.As(err, &tl) {
		return nil, ErrFileTooLarge
	}
	return data, err
}

// checkCopyable refuses a source skill folder holding symlinks or anything
// but files and folders, or too much to copy. It walks beneath the folder
// (internal/safefs), never opening a FIFO or device.
func checkCopyable(dir string) error {
	src, err := safefs.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	var files int
	var bytes int64
	return fs.WalkDir(src.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if d.IsDir() {
			if d.Name() == ".git" && rel != "." {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %s is a symlink: symlinks are refused, replace it with the file it points to", dir, rel)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: %s is %s, not a regular file: remove it", dir, rel, safefs.KindOf(d.Type()))
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		bytes += info.Size()
		if files > maxAddFiles || bytes > maxAddBytes {
			return fmt.Errorf("%s holds more than %d files or %d MiB: add a smaller skill", dir, maxAddFiles, maxAddBytes>>20)
		}
		return nil
	})
}

// copyTree copies the files of the folder src (checked by checkCopyable,
// .git left out) into the open staging folder dst. Both sides are resolved
// beneath their folders; a source file swapped for a symlink, FIFO or
// device since the check is refused, and nothing existing is overwritten.
func copyTree(src string, dst *safefs.Root) error {
	from, err := safefs.OpenRoot(src)
	if err != nil {
		return err
	}
	defer from.Close()
	var copied int64
	return fs.WalkDir(from.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return dst.Mkdir(rel, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s changed while it was copied: try again", src)
		}
		in, info, err := from.Open(rel)
		if err != nil {
			return err
		}
		defer in.Close()
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s changed while it was copied: try again", src)
		}
		out, err := dst.Create(rel, info.Mode().Perm()&0o755|0o644)
		if err != nil {
			return err
		}
		// The check counted the bytes; a file grown since stops the copy.
		n, err := io.Copy(out, io.LimitReader(in, maxAddBytes-copied+1))
		copied += n
		if err == nil && copied > maxAddBytes {
			err = fmt.Errorf("%s changed while it was copied: try again", src)
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// Remove deletes an installed skill's folder and uninstalls it — only when
// the folder, located from the registry entry (never from the argument),
// lies directly under an install target and is not a symlink. The folder
// is deleted through the install target opened beneath its workspace or
// home folder, never through its path.
func (r *Registry) Remove(idOrName string) (*Installed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	in, err := snap.lookup(idOrName)
	if err != nil {
		return nil, err
	}
	tgt, err := r.removable(in.Path)
	if err != nil {
		return nil, fmt.Errorf("skill %s lives in %s, which %v: delete it by hand, or use vox_skill_uninstall to drop it from this session", in.ID, in.Path, err)
	}
	defer tgt.dir.Close()
	if err := tgt.dir.RemoveAll(filepath.Base(in.Path)); err != nil {
		return nil, fmt.Errorf("cannot delete %s: %w", in.Path, unwrapPathErr(err))
	}
	r.commit(snap.without(in))
	return in, nil
}

// removable returns the install target, opened, that holds the folder dir
// directly, or says why there is none.
func (r *Registry) removable(dir string) (*target, error) {
	st, err := os.Lstat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot be read (%v)", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, errors.New("is a symlink")
	case !st.IsDir():
		return nil, errors.New("is not a folder")
	}
	name := filepath.Base(dir)
	if err := checkFolderName(name); err != nil {
		return nil, fmt.Errorf("has a folder name that %v", err)
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return nil, fmt.Errorf("cannot be resolved (%v)", err)
	}
	targets := r.cfg.installTargets()
	for _, global := range []bool{false, true} {
		tgt, err := r.cfg.openTarget(global, false)
		if err != nil {
			continue
		}
		if tgt.dir.SameFile(".", parent) {
			// The entry itself, seen from the target: a folder, not a
			// symlink, and the folder the registry knows.
			if cur, err := tgt.dir.Lstat(name); err == nil && cur.IsDir() && os.SameFile(cur, st) {
				return tgt, nil
			}
			tgt.dir.Close()
			return nil, errors.New("changed since it was installed")
		}
		tgt.dir.Close()
	}
	return nil, fmt.Errorf("is not directly under an install target (%s)", strings.Join(targets, ", "))
}
