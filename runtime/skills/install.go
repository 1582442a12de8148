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
	target, err := r.cfg.InstallTarget(global)
	if err != nil {
		return nil, nil, err
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	if err := checkFree(snap, target, []*Skill{sk}); err != nil {
		return nil, nil, err
	}
	staging, err := stage(target)
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(staging)
	root, err := os.OpenRoot(staging)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	if err := root.WriteFile("SKILL.md", skillMD, 0o644); err != nil {
		return nil, nil, err
	}
	for _, rel := range rels {
		if dir := path.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return nil, nil, err
			}
		}
		if err := root.WriteFile(rel, []byte(files[rel]), 0o644); err != nil {
			return nil, nil, err
		}
	}
	ins, err := place(target, map[string]string{sk.Name: staging})
	if err != nil {
		return nil, nil, err
	}
	r.commit(append(snap.Skills(), ins...))
	return ins[0], warnings, nil
}

// checkFree refuses skills whose id or name is installed, that collide
// with each other, or whose folder exists under target.
func checkFree(snap *Snapshot, target string, skills []*Skill) error {
	seen := map[string]bool{}
	for _, sk := range skills {
		for _, key := range []string{sk.ID, sk.Name} {
			if in, ok := snap.Get(key); ok {
				return fmt.Errorf("a skill named %q is already installed (id %s, from %s): uninstall or remove it first, or rename the new skill", key, in.ID, in.Path)
			}
		}
		if seen[sk.ID] || seen[sk.Name] {
			return fmt.Errorf("two of the skills to add are named %q: add them one at a time with skill", sk.Name)
		}
		seen[sk.ID], seen[sk.Name] = true, true
		dir := filepath.Join(target, sk.Name)
		if _, err := os.Lstat(dir); err == nil {
			return fmt.Errorf("%s already exists: remove it or rename the new skill", dir)
		}
	}
	return nil
}

// stage makes a hidden staging folder inside target (so the final rename
// stays on one file system); discovery skips hidden folders, so a crash
// never leaves a half-written skill behind.
func stage(target string) (string, error) {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return "", fmt.Errorf("cannot create the install target: %w", err)
	}
	return os.MkdirTemp(target, ".vox-install-")
}

// place renames each staged folder to <target>/<name> and loads it.
func place(target string, staged map[string]string) ([]*Installed, error) {
	names := make([]string, 0, len(staged))
	for name := range staged {
		names = append(names, name)
	}
	sort.Strings(names)
	var ins []*Installed
	// On failure, take back what was placed: a folder left under the
	// target would be installed at the next start.
	fail := func(err error) ([]*Installed, error) {
		for _, in := range ins {
			os.RemoveAll(in.Path)
		}
		return nil, err
	}
	for _, name := range names {
		dir := filepath.Join(target, name)
		if err := os.Rename(staged[name], dir); err != nil {
			return fail(fmt.Errorf("cannot move the skill into place: %w", err))
		}
		in, _, err := Load(dir, target)
		if err != nil {
			os.RemoveAll(dir)
			return fail(fmt.Errorf("%s changed while it was installed: %w; try again", name, err))
		}
		ins = append(ins, in)
	}
	return ins, nil
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
	target, err := r.cfg.InstallTarget(global)
	if err != nil {
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
	if err := checkFree(snap, target, skillsToAdd); err != nil {
		return nil, nil, err
	}
	staged := map[string]string{}
	defer func() {
		for _, s := range staged {
			os.RemoveAll(s)
		}
	}()
	for i, f := range folders {
		s, err := stage(target)
		if err != nil {
			return nil, nil, err
		}
		staged[skillsToAdd[i].Name] = s
		if err := copyTree(f, s); err != nil {
			return nil, nil, err
		}
	}
	ins, err := place(target, staged)
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
			entries, err := os.ReadDir(base)
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
		if data, err := os.ReadFile(filepath.Join(f, "SKILL.md")); err == nil {
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

// checkCopyable refuses a source skill folder holding symlinks or anything
// but files and folders, or too much to copy.
func checkCopyable(dir string) error {
	var files int
	var bytes int64
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		rel := relTo(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %s is a symlink: symlinks are refused, replace it with the file it points to", dir, rel)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: %s is not a regular file: remove it", dir, rel)
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

// copyTree copies the files of src (checked by checkCopyable, .git left
// out) into the existing folder dst, never following a link.
func copyTree(src, dst string) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return root.Mkdir(rel, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s changed while it was copied: try again", src)
		}
		in, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
		if err != nil {
			return err
		}
		defer in.Close()
		info, err := in.Stat()
		if err != nil {
			return err
		}
		out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()&0o755|0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// Remove deletes an installed skill's folder and uninstalls it — only when
// the folder, located from the registry entry (never from the argument),
// lies directly under an install target and is not a symlink.
func (r *Registry) Remove(idOrName string) (*Installed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	snap := r.Snapshot()
	in, err := snap.lookup(idOrName)
	if err != nil {
		return nil, err
	}
	if err := r.removable(in.Path); err != nil {
		return nil, fmt.Errorf("skill %s lives in %s, which %v: delete it by hand, or use vox_skill_uninstall to drop it from this session", in.ID, in.Path, err)
	}
	if err := os.RemoveAll(in.Path); err != nil {
		return nil, fmt.Errorf("cannot delete %s: %w", in.Path, err)
	}
	r.commit(snap.without(in))
	return in, nil
}

func (r *Registry) removable(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("cannot be read (%v)", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symlink")
	case !st.IsDir():
		return errors.New("is not a folder")
	}
	if err := checkFolderName(filepath.Base(dir)); err != nil {
		return fmt.Errorf("has a folder name that %v", err)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return fmt.Errorf("cannot be resolved (%v)", err)
	}
	targets := r.cfg.installTargets()
	for _, t := range targets {
		if real, err := filepath.EvalSymlinks(t); err == nil && real == parent {
			return nil
		}
	}
	return fmt.Errorf("is not directly under an install target (%s)", strings.Join(targets, ", "))
}
