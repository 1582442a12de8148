package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/safefs"
)

// Export copies the workspace's skills into the skills folder of a client
// that loads skills from a folder of its own rather than over MCP
// (docs/skills.md §10): the skills vox-mcp discovers for the workspace,
// each file verified against the digest the skills extension lists for
// it (Installed.Manifest), written through internal/safefs without
// following a link, staged and renamed into place. It replaces only a
// folder it wrote itself, as recorded in the folder's export record
// (ExportRecordName); any other folder of the same name is refused and
// named. With Check it writes nothing and reports the drift.

// Client is an agent that loads skills from a folder of its own.
type Client struct {
	// Name is what --client takes.
	Name  string
	Title string
	// Project is the skills folder relative to the workspace root, ""
	// when the client reads none there (that vox knows of).
	Project string
	// User is the skills folder relative to the home folder.
	User string
	// UserEnv names a variable that, when set, is the client's own home
	// folder: the user skills folder is then its skills/ (Codex's
	// CODEX_HOME).
	UserEnv string
}

// Clients are the clients vox skill export writes for, with the folders
// their documentation names (docs/skills.md §10).
var Clients = []Client{
	{Name: "claude", Title: "Claude Code", Project: ".claude/skills", User: ".claude/skills"},
	{Name: "cursor", Title: "Cursor", Project: ".cursor/skills", User: ".cursor/skills"},
	{Name: "vscode", Title: "VS Code (GitHub Copilot)", Project: ".github/skills", User: ".copilot/skills"},
	{Name: "codex", Title: "Codex", User: ".codex/skills", UserEnv: "CODEX_HOME"},
}

// ClientNames are the names --client takes, in table order.
func ClientNames() []string {
	names := make([]string, len(Clients))
	for i, c := range Clients {
		names[i] = c.Name
	}
	return names
}

// LookupClient finds a client by name.
func LookupClient(name string) (Client, error) {
	for _, c := range Clients {
		if c.Name == name {
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("unknown client %q: give one of %s", name, strings.Join(ClientNames(), ", "))
}

// The scopes of an export: the workspace's own folder, or the user's.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Folder is where the client reads the skills of scope from: anchor (the
// workspace root or the home folder, the caller's choice) and the
// folder's slash-separated path below it.
func (c Client) Folder(scope, workspace, home string, getenv func(string) string) (anchor, rel string, err error) {
	switch scope {
	case ScopeProject:
		if c.Project == "" {
			return "", "", fmt.Errorf("%s reads no skills folder of a project that vox knows of: export with --scope user (%s)", c.Title, "~/"+c.User)
		}
		if workspace == "" {
			return "", "", errors.New("no workspace root is known: give --root")
		}
		return workspace, c.Project, nil
	case ScopeUser:
		if c.UserEnv != "" && getenv != nil {
			if dir := getenv(c.UserEnv); dir != "" {
				if !filepath.IsAbs(dir) {
					return "", "", fmt.Errorf("%s=%s is not an absolute path: %s reads its skills from $%s/skills; set it to an absolute folder or unset it", c.UserEnv, dir, c.Title, c.UserEnv)
				}
				return dir, "skills", nil
			}
		}
		if home == "" {
			return "", "", errors.New("no home folder is known: set HOME, or export with --scope project")
		}
		return home, c.User, nil
	}
	return "", "", fmt.Errorf("unknown scope %q: give project or user", scope)
}

// ExportRecordName is the file, in the client's skills folder, that
// records the folders vox skill export wrote there and the digests of
// their files: what lets a later export replace or remove them, and
// nothing else. Discovery and clients skip it (it is no folder).
const ExportRecordName = ".vox-skill-export.json"

const maxExportRecord = 4 << 20

type exportRecord struct {
	Note   string                   `json:"note"`
	Skills map[string]exportedSkill `json:"skills"`
}

type exportedSkill struct {
	// Workspace is the workspace exported from, for a user folder that
	// several workspaces export into; "" in a project's own folder.
	Workspace string `json:"workspace,omitempty"`
	// Files are the digests of the files written, by relative path.
	Files map[string]string `json:"files"`
}

const exportNote = "written by vox skill export: the folders listed are copies of a workspace's skills, replaced or removed by the next export; edit the skills where vox-mcp finds them"

// Export actions, one per item of a report.
const (
	ExportWrote     = "wrote"     // a new folder
	ExportUpdated   = "updated"   // a previous export replaced
	ExportUnchanged = "unchanged" // the folder already holds the skill
	ExportRemoved   = "removed"   // a previous export of a skill the workspace no longer has
	ExportSkipped   = "skipped"   // not exported, by design (a note)
	ExportRefused   = "refused"   // a folder vox did not write is in the way
	ExportFailed    = "failed"    // the skill's files failed verification
	ExportMissing   = "missing"   // --check: not exported yet
	ExportChanged   = "changed"   // --check: the folder differs from the skill
	ExportExtra     = "extra"     // --check: an export of a skill the workspace no longer has
)

// ExportOptions say what to export where.
type ExportOptions struct {
	// Config is the discovery of the workspace whose skills are exported,
	// as vox-mcp's (ConfigFromEnv).
	Config Config
	Client Client
	// Scope is ScopeProject (the workspace's own folder) or ScopeUser.
	Scope string
	// Check writes nothing and reports the drift.
	Check bool
	// Getenv reads the client's UserEnv; nil reads none.
	Getenv func(string) string
}

// ExportItem is what happened to one skill folder.
type ExportItem struct {
	ID     string
	Folder string // the folder in the client's skills folder
	Action string
	Files  int    // files written or held
	Reason string // why, for every action but wrote, updated and unchanged
}

// ExportReport is the outcome of an export or a check.
type ExportReport struct {
	// Folder is the client's skills folder.
	Folder string
	Items  []ExportItem
	// Warnings are discovery's: skills vox-mcp does not load.
	Warnings []string
}

// Problem reports whether the export left something undone (a refused or
// failed skill) or, for a check, found drift: the exit status 1 of vox
// skill export.
func (r *ExportReport) Problem() bool {
	for _, it := range r.Items {
		switch it.Action {
		case ExportRefused, ExportFailed, ExportMissing, ExportChanged, ExportExtra:
			return true
		}
	}
	return false
}

// exportFile is one verified file of a skill to write.
type exportFile struct {
	path string
	data []byte
	mode fs.FileMode
}

// Export writes the workspace's skills into the client's folder, or, with
// Check, reports how the folder differs from them.
func Export(opts ExportOptions) (*ExportReport, error) {
	anchor, rel, err := opts.Client.Folder(opts.Scope, opts.Config.Workspace, opts.Config.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	e := &exporter{opts: opts, rep: &ExportReport{Folder: filepath.Join(anchor, filepath.FromSlash(rel))}}
	if opts.Scope == ScopeUser {
		e.workspace = opts.Config.Workspace
	}
	if err := e.open(anchor, rel, false); err != nil {
		return nil, err
	}
	defer e.close()
	if err := e.readRecord(); err != nil {
		return nil, err
	}
	sources := e.sources()
	for _, in := range sources {
		e.export(in)
	}
	e.extras(sources)
	if err := e.writeRecord(); err != nil {
		return e.rep, err
	}
	return e.rep, nil
}

type exporter struct {
	opts      ExportOptions
	rep       *ExportReport
	workspace string // the record's Workspace for this export

	anchor, rel string
	dir         *safefs.Root // the client's skills folder; nil while it does not exist
	real        string       // its path with links resolved
	record      exportRecord
	changed     bool // the record must be written
}

func (e *exporter) close() {
	if e.dir != nil {
		e.dir.Close()
	}
}

// open opens the client's skills folder, making it with create. In a
// project no link is followed from the workspace root on (the repository
// wrote them all, and a .claude -> ~/.ssh would redirect the write); in
// the home folder, which the user owns, the folder is opened as the user
// set it up (a dotfiles link included), and the skill folders in it are
// never followed either way.
func (e *exporter) open(anchor, rel string, create bool) error {
	e.anchor, e.rel = anchor, rel
	folder := e.rep.Folder
	if e.opts.Scope == ScopeUser {
		if create {
			if err := os.MkdirAll(folder, 0o755); err != nil {
				return fmt.Errorf("cannot create %s: %w", folder, unwrapPathErr(err))
			}
		}
		dir, err := safefs.OpenRoot(folder)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !create:
			return nil
		case err != nil:
			return fmt.Errorf("cannot open %s: %w", folder, unwrapPathErr(err))
		}
		e.dir = dir
	} else {
		base, err := safefs.OpenRoot(anchor)
		if err != nil {
			return fmt.Errorf("cannot open the workspace root %s: %w", anchor, unwrapPathErr(err))
		}
		defer base.Close()
		dir, err := base.OpenDirNoFollow(rel, create)
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist) && !create:
			return nil
		case errors.Is(err, safefs.ErrSymlink) && errors.As(err, &pe):
			return fmt.Errorf("%s: %s is a symbolic link, and vox skill export writes through none (a repository could point it at ~/.ssh or .git): refused; make it a real folder", folder, filepath.Join(anchor, filepath.FromSlash(pe.Path)))
		case err != nil:
			return fmt.Errorf("cannot open %s: %w", folder, unwrapPathErr(err))
		}
		e.dir = dir
	}
	if real, err := filepath.EvalSymlinks(folder); err == nil {
		e.real = real
	}
	return nil
}

// ensure opens the folder, making it, before the first write.
func (e *exporter) ensure() error {
	if e.dir != nil {
		return nil
	}
	return e.open(e.anchor, e.rel, true)
}

func (e *exporter) readRecord() error {
	e.record = exportRecord{Note: exportNote, Skills: map[string]exportedSkill{}}
	if e.dir == nil {
		return nil
	}
	p := filepath.Join(e.rep.Folder, ExportRecordName)
	info, err := e.dir.Lstat(ExportRecordName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not the record vox skill export writes: remove it", p, safefs.KindOf(info.Mode()))
	}
	data, err := e.dir.ReadFile(ExportRecordName, maxExportRecord)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
	}
	var rec exportRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return fmt.Errorf("%s is not the record vox skill export writes (%v): remove it; the folders it listed are then left alone as anyone else's", p, err)
	}
	for name := range rec.Skills {
		if !ValidID(name) {
			return fmt.Errorf("%s lists %q, which is no skill id: remove the file; the folders it listed are then left alone as anyone else's", p, name)
		}
	}
	if rec.Skills != nil {
		e.record.Skills = rec.Skills
	}
	return nil
}

func (e *exporter) writeRecord() error {
	if e.opts.Check || !e.changed {
		return nil
	}
	if err := e.ensure(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(e.record, "", "  ")
	if err != nil {
		return err
	}
	if err := e.dir.ReplaceFile(ExportRecordName, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", filepath.Join(e.rep.Folder, ExportRecordName), unwrapPathErr(err))
	}
	return nil
}

// ours reports whether the record says this export wrote the folder name.
func (e *exporter) ours(name string) (exportedSkill, bool) {
	s, ok := e.record.Skills[name]
	return s, ok && s.Workspace == e.workspace
}

// sources are the skills to export: what vox-mcp serves for the
// workspace, except that a previous export in the client's folder (which
// may be one of vox-mcp's roots, as .claude/skills is) never stands for
// its skill: the skill it copies does. A skill that lives in the client's
// folder itself is not exported onto itself.
func (e *exporter) sources() []*Installed {
	found, skipped, _ := ScanReport(e.opts.Config.SearchRoots())
	for _, s := range skipped {
		e.rep.Warnings = append(e.rep.Warnings, fmt.Sprintf("%s: %s: vox-mcp does not load it, so it is not exported", s.Path, s.Reason))
	}
	decided := map[string]bool{}
	var out []*Installed
	for _, f := range found {
		if decided[f.ID] {
			continue
		}
		if !f.IsFolder() {
			// The clients read Agent Skills folders with YAML front
			// matter; a reference skill file is neither (docs/skills.md §10).
			decided[f.ID] = true
			e.add(ExportItem{ID: f.ID, Folder: f.Path, Action: ExportSkipped, Files: len(f.Files),
				Reason: fmt.Sprintf("%s is a Vox reference skill file, not an Agent Skills folder: %s reads folders (<id>/SKILL.md); make it one to export it", f.Path, e.opts.Client.Title)})
			continue
		}
		if e.real != "" && sameFolder(f.Root, e.real) {
			if _, ok := e.ours(filepath.Base(f.Path)); ok {
				continue // a copy: the skill it copies comes later
			}
			decided[f.ID] = true
			e.add(ExportItem{ID: f.ID, Folder: f.Path, Action: ExportSkipped, Files: len(f.Files),
				Reason: fmt.Sprintf("it lives in %s already, where %s loads it: not exported onto itself", e.rep.Folder, e.opts.Client.Title)})
			continue
		}
		decided[f.ID] = true
		out = append(out, f.Installed)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func sameFolder(p, real string) bool {
	r, err := filepath.EvalSymlinks(p)
	return err == nil && r == real
}

func (e *exporter) add(it ExportItem) { e.rep.Items = append(e.rep.Items, it) }

// export writes (or checks) one skill: its folder is named by its id.
func (e *exporter) export(in *Installed) {
	name := in.ID
	item := ExportItem{ID: name, Folder: filepath.Join(e.rep.Folder, name)}
	var files []exportFile
	want := map[string]string{}
	for _, m := range in.Manifest() {
		data, mode, err := in.ReadVerified(m)
		if err != nil {
			item.Action, item.Reason = ExportFailed, fmt.Sprintf("skill %s (%s): %v: not exported", name, in.Path, err)
			e.add(item)
			return
		}
		files = append(files, exportFile{path: m.Path, data: data, mode: mode})
		want[m.Path] = m.Digest
	}
	item.Files = len(files)
	cur := e.state(name)
	rec, owned := e.ours(name)
	owned = owned && cur.problem == "" && maps.Equal(cur.files, rec.Files)
	switch {
	case cur.exists && cur.problem == "" && maps.Equal(cur.files, want):
		item.Action = ExportUnchanged
		if _, listed := e.record.Skills[name]; !listed || owned {
			e.own(name, want)
		}
	case e.opts.Check && !cur.exists:
		item.Action, item.Reason = ExportMissing, "not exported yet"
	case e.opts.Check && owned:
		item.Action, item.Reason = ExportChanged, "the exported copy differs from the skill"
	case e.opts.Check:
		item.Action, item.Reason = ExportChanged, e.foreign(item.Folder, cur)
	case cur.exists && !owned:
		item.Action, item.Reason = ExportRefused, e.foreign(item.Folder, cur)
	default:
		if err := e.write(name, files, cur.exists); err != nil {
			item.Action, item.Reason = ExportFailed, fmt.Sprintf("%v: not exported", err)
			break
		}
		item.Action = ExportWrote
		if cur.exists {
			item.Action = ExportUpdated
		}
		e.own(name, want)
	}
	e.add(item)
}

func (e *exporter) own(name string, files map[string]string) {
	e.record.Skills[name] = exportedSkill{Workspace: e.workspace, Files: files}
	e.changed = true
}

// foreign words why the folder at p is not one this export may replace.
func (e *exporter) foreign(p string, cur folderState) string {
	name := filepath.Base(p)
	rec, listed := e.record.Skills[name]
	switch {
	case cur.link:
		return fmt.Sprintf("%s is a symbolic link, and vox skill export writes through none: refused; remove the link", p)
	case cur.problem != "":
		return fmt.Sprintf("%s %s, so vox skill export did not write it: remove or rename it, or rename the skill", p, cur.problem)
	case listed && rec.Workspace != e.workspace:
		return fmt.Sprintf("%s is the export of the workspace %s: remove it (or export from there), or export this workspace with --scope project", p, rec.Workspace)
	case listed:
		return fmt.Sprintf("%s was edited since vox skill export wrote it: remove it or undo the edit, then export again", p)
	}
	return fmt.Sprintf("%s was not written by vox skill export: remove or rename it, or rename the skill", p)
}

// extras removes (or, checking, reports) the previous exports of this
// workspace whose skill it no longer has.
func (e *exporter) extras(sources []*Installed) {
	have := map[string]bool{}
	for _, in := range sources {
		have[in.ID] = true
	}
	for _, name := range slices.Sorted(maps.Keys(e.record.Skills)) {
		rec, ok := e.ours(name)
		if !ok || have[name] {
			continue
		}
		item := ExportItem{ID: name, Folder: filepath.Join(e.rep.Folder, name), Files: len(rec.Files)}
		cur := e.state(name)
		switch {
		case !cur.exists:
			delete(e.record.Skills, name) // removed by hand: forget it
			e.changed = true
			continue
		case cur.link || cur.problem != "" || !maps.Equal(cur.files, rec.Files):
			item.Action = ExportRefused
			if e.opts.Check {
				item.Action = ExportExtra
			}
			item.Reason = "the workspace no longer has this skill, and " + e.foreign(item.Folder, cur)
		case e.opts.Check:
			item.Action, item.Reason = ExportExtra, "the workspace no longer has this skill"
		default:
			if err := e.dir.RemoveAll(name); err != nil {
				item.Action, item.Reason = ExportFailed, fmt.Sprintf("cannot remove it: %v", unwrapPathErr(err))
				break
			}
			delete(e.record.Skills, name)
			e.changed = true
			item.Action, item.Reason = ExportRemoved, "the workspace no longer has this skill"
		}
		e.add(item)
	}
}

// folderState is what the client's folder holds under one name.
type folderState struct {
	exists, link bool
	// files are the digests of the folder's files; problem, when not "",
	// says why the folder cannot be an export (a link or special file in
	// it, a file too large).
	files   map[string]string
	problem string
}

// state reads the folder name of the client's folder without following a
// link: the folder itself, or any entry in it, being one is recorded.
func (e *exporter) state(name string) folderState {
	if e.dir == nil {
		return folderState{}
	}
	info, err := e.dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return folderState{}
	case err != nil:
		return folderState{exists: true, problem: fmt.Sprintf("cannot be read (%v)", unwrapPathErr(err))}
	case info.Mode()&fs.ModeSymlink != 0:
		return folderState{exists: true, link: true}
	case !info.IsDir():
		return folderState{exists: true, problem: "is " + safefs.KindOf(info.Mode()) + ", not a folder"}
	}
	d, err := e.dir.OpenDirNoFollow(name, false)
	if err != nil {
		return folderState{exists: true, problem: fmt.Sprintf("cannot be read (%v)", unwrapPathErr(err))}
	}
	defer d.Close()
	st := folderState{exists: true, files: map[string]string{}}
	err = fs.WalkDir(d.FS(), ".", func(rel string, de fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case de.IsDir():
			return nil
		case de.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("holds a symbolic link, %s", rel)
		case !de.Type().IsRegular():
			return fmt.Errorf("holds %s, %s", safefs.KindOf(de.Type()), rel)
		case len(st.files) == maxSkillFiles:
			return fmt.Errorf("holds more than %d files", maxSkillFiles)
		}
		data, err := d.ReadFile(rel, MaxFileSize)
		if err != nil {
			return fmt.Errorf("holds %s, which cannot be read (%v)", rel, unwrapPathErr(err))
		}
		st.files[rel] = Digest(data)
		return nil
	})
	if err != nil {
		st.problem = err.Error()
	}
	return st
}

// write stages the skill's files in a hidden folder of the client's
// folder (discovery and clients skip it; the rename stays on one file
// system), then renames it to name: never replacing, or, with replace,
// moving the previous export aside first and back should the rename
// fail.
func (e *exporter) write(name string, files []exportFile, replace bool) error {
	if err := e.ensure(); err != nil {
		return err
	}
	stage, err := e.dir.MkdirTemp(".vox-export-")
	if err != nil {
		return fmt.Errorf("cannot create a staging folder in %s: %w", e.rep.Folder, unwrapPathErr(err))
	}
	defer e.dir.RemoveAll(stage)
	sd, err := e.dir.OpenDirNoFollow(stage, false)
	if err != nil {
		return err
	}
	for _, f := range files {
		if dir := path.Dir(f.path); dir != "." {
			err = sd.MkdirAll(dir, 0o755)
		}
		if err == nil {
			err = sd.WriteFile(f.path, f.data, f.mode.Perm()&0o755|0o644)
		}
		if err != nil {
			sd.Close()
			return fmt.Errorf("cannot write %s: %w", f.path, unwrapPathErr(err))
		}
	}
	sd.Close()
	if !replace {
		if err := e.dir.Rename(stage, name); err != nil {
			return fmt.Errorf("cannot move the skill into place: %w", unwrapPathErr(err))
		}
		return nil
	}
	old := stage + "-old"
	if err := e.dir.Rename(name, old); err != nil {
		return fmt.Errorf("cannot move the previous export aside: %w", unwrapPathErr(err))
	}
	if err := e.dir.Rename(stage, name); err != nil {
		_ = e.dir.Rename(old, name)
		return fmt.Errorf("cannot move the skill into place: %w", unwrapPathErr(err))
	}
	if err := e.dir.RemoveAll(old); err != nil {
		return fmt.Errorf("the previous export stays in %s: %w", filepath.Join(e.rep.Folder, old), unwrapPathErr(err))
	}
	return nil
}
