package skills

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

// exportWorkspace is a workspace and a home holding skills in two roots:
// greet (SKILL.md, an executable script, a binary asset, a nested
// reference) in the workspace's .vox/skills and notes in the home's
// .agents/skills.
func exportWorkspace(t *testing.T) Config {
	t.Helper()
	cfg := Config{Workspace: t.TempDir(), Home: t.TempDir()}
	greet := filepath.Join(cfg.Workspace, ".vox", "skills", "greet")
	writeFile(t, filepath.Join(greet, "SKILL.md"), skillMD("greet", "Greets people."))
	writeFile(t, filepath.Join(greet, "scripts", "run.sh"), "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(greet, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(greet, "assets", "logo.png"), "\x89PNG\r\n\x1a\n\x00\xff")
	writeFile(t, filepath.Join(greet, "references", "deep", "guide.md"), "# Guide\n")
	writeFile(t, filepath.Join(cfg.Home, ".agents", "skills", "notes", "SKILL.md"), skillMD("notes", "Takes notes."))
	return cfg
}

// sameTree fails unless the folder got holds exactly the files of want,
// byte for byte.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !d.Type().IsRegular() {
				t.Errorf("%s is not a regular file", p)
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	w, g := files(want), files(got)
	for rel, data := range w {
		if !bytes.Equal(g[rel], data) {
			t.Errorf("%s/%s: %q, want %q", got, rel, g[rel], data)
		}
	}
	for rel := range g {
		if _, ok := w[rel]; !ok {
			t.Errorf("%s/%s: not a file of the skill", got, rel)
		}
	}
}

func actions(rep *ExportReport) map[string]string {
	out := map[string]string{}
	for _, it := range rep.Items {
		out[it.ID] = it.Action
	}
	return out
}

func mustExport(t *testing.T, opts ExportOptions) *ExportReport {
	t.Helper()
	rep, err := Export(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestExportLayouts exports into each client's folder of each scope and
// reads the skills back where the client's documentation says it loads
// them: <folder>/<name>/SKILL.md and every other file, byte for byte.
func TestExportLayouts(t *testing.T) {
	for _, c := range []struct {
		client, scope string
		folder        func(cfg Config) string
	}{
		{"claude", ScopeProject, func(cfg Config) string { return filepath.Join(cfg.Workspace, ".claude", "skills") }},
		{"claude", ScopeUser, func(cfg Config) string { return filepath.Join(cfg.Home, ".claude", "skills") }},
		{"cursor", ScopeProject, func(cfg Config) string { return filepath.Join(cfg.Workspace, ".cursor", "skills") }},
		{"cursor", ScopeUser, func(cfg Config) string { return filepath.Join(cfg.Home, ".cursor", "skills") }},
		{"vscode", ScopeProject, func(cfg Config) string { return filepath.Join(cfg.Workspace, ".github", "skills") }},
		{"vscode", ScopeUser, func(cfg Config) string { return filepath.Join(cfg.Home, ".copilot", "skills") }},
		{"codex", ScopeUser, func(cfg Config) string { return filepath.Join(cfg.Home, ".codex", "skills") }},
	} {
		t.Run(c.client+"-"+c.scope, func(t *testing.T) {
			cfg := exportWorkspace(t)
			client, err := LookupClient(c.client)
			if err != nil {
				t.Fatal(err)
			}
			opts := ExportOptions{Config: cfg, Client: client, Scope: c.scope}
			rep := mustExport(t, opts)
			folder := c.folder(cfg)
			if rep.Folder != folder || rep.Problem() {
				t.Fatalf("folder %s (want %s), items %+v", rep.Folder, folder, rep.Items)
			}
			if got := actions(rep); got["greet"] != ExportWrote || got["notes"] != ExportWrote || len(got) != 2 {
				t.Fatalf("actions %v", got)
			}
			sameTree(t, filepath.Join(cfg.Workspace, ".vox", "skills", "greet"), filepath.Join(folder, "greet"))
			sameTree(t, filepath.Join(cfg.Home, ".agents", "skills", "notes"), filepath.Join(folder, "notes"))
			if runtime.GOOS != "windows" {
				if info, err := os.Stat(filepath.Join(folder, "greet", "scripts", "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
					t.Errorf("the script lost its executable bit: %v %v", info.Mode(), err)
				}
			}
			// Every file read back is the one skills/get lists.
			found, _ := Scan([]string{folder})
			for _, f := range found {
				for _, m := range f.Manifest() {
					if _, _, err := f.ReadVerified(m); err != nil {
						t.Errorf("%s: %v", f.ID, err)
					}
				}
			}
			opts.Check = true
			if rep := mustExport(t, opts); rep.Problem() || actions(rep)["greet"] != ExportUnchanged {
				t.Errorf("check right after the export: %+v", rep.Items)
			}
		})
	}
}

func TestExportCheckDrift(t *testing.T) {
	cfg := exportWorkspace(t)
	claude, _ := LookupClient("claude")
	opts := ExportOptions{Config: cfg, Client: claude, Scope: ScopeProject}
	check := opts
	check.Check = true
	if rep := mustExport(t, check); !rep.Problem() || actions(rep)["greet"] != ExportMissing {
		t.Fatalf("check before any export: %+v", rep.Items)
	}
	if _, err := os.Stat(filepath.Join(cfg.Workspace, ".claude")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("--check made the folder: %v", err)
	}
	mustExport(t, opts)
	// The skill changes, another is gone, a third is new.
	writeFile(t, filepath.Join(cfg.Workspace, ".vox", "skills", "greet", "references", "deep", "guide.md"), "# Guide, revised\n")
	if err := os.RemoveAll(filepath.Join(cfg.Home, ".agents", "skills", "notes")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cfg.Workspace, "assets", "skills", "lint", "SKILL.md"), skillMD("lint", "Lints."))
	rep := mustExport(t, check)
	want := map[string]string{"greet": ExportChanged, "notes": ExportExtra, "lint": ExportMissing}
	if got := actions(rep); !rep.Problem() || len(got) != 3 || got["greet"] != want["greet"] || got["notes"] != want["notes"] || got["lint"] != want["lint"] {
		t.Fatalf("check: %+v", rep.Items)
	}
	rep = mustExport(t, opts)
	want = map[string]string{"greet": ExportUpdated, "notes": ExportRemoved, "lint": ExportWrote}
	if got := actions(rep); rep.Problem() || got["greet"] != want["greet"] || got["notes"] != want["notes"] || got["lint"] != want["lint"] {
		t.Fatalf("export: %+v", rep.Items)
	}
	folder := filepath.Join(cfg.Workspace, ".claude", "skills")
	sameTree(t, filepath.Join(cfg.Workspace, ".vox", "skills", "greet"), filepath.Join(folder, "greet"))
	if _, err := os.Stat(filepath.Join(folder, "notes")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the export of a removed skill stays: %v", err)
	}
	if entries, _ := os.ReadDir(folder); len(entries) != 3 { // greet, lint, the record
		t.Errorf("left in %s: %v", folder, entries)
	}
	if rep := mustExport(t, check); rep.Problem() {
		t.Errorf("check after the export: %+v", rep.Items)
	}
	// An edit of the exported copy is drift, and the next export refuses
	// to overwrite it: it is no longer what vox wrote.
	writeFile(t, filepath.Join(folder, "lint", "SKILL.md"), skillMD("lint", "Lints, edited by hand."))
	if rep := mustExport(t, check); actions(rep)["lint"] != ExportChanged {
		t.Errorf("check after a hand edit: %+v", rep.Items)
	}
	rep = mustExport(t, opts)
	if it := itemOf(rep, "lint"); it.Action != ExportRefused || !strings.Contains(it.Reason, filepath.Join(folder, "lint")+" was edited since vox skill export wrote it") {
		t.Errorf("export over a hand edit: %+v", it)
	}
}

func itemOf(rep *ExportReport, id string) ExportItem {
	for _, it := range rep.Items {
		if it.ID == id {
			return it
		}
	}
	return ExportItem{}
}

// TestExportRefusesForeignFolders: a folder of the skill's name that vox
// did not write — a real folder, a symlink to a secret folder, a folder
// holding a symlink — is refused and named, never replaced or written
// through; the other skills are exported.
func TestExportRefusesForeignFolders(t *testing.T) {
	wineshim.SkipSymlinks(t)
	cfg := exportWorkspace(t)
	writeFile(t, filepath.Join(cfg.Workspace, ".vox", "skills", "deploy", "SKILL.md"), skillMD("deploy", "Deploys."))
	writeFile(t, filepath.Join(cfg.Workspace, ".vox", "skills", "hooks", "SKILL.md"), skillMD("hooks", "Hooks."))
	folder := filepath.Join(cfg.Workspace, ".cursor", "skills")
	ssh := filepath.Join(cfg.Home, ".ssh")
	writeFile(t, filepath.Join(ssh, "id_ed25519"), "KEY")
	writeFile(t, filepath.Join(folder, "greet", "SKILL.md"), skillMD("greet", "Someone else's greet."))
	if err := os.Symlink(ssh, filepath.Join(folder, "deploy")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(folder, "hooks", "x"), "x")
	if err := os.Symlink(ssh, filepath.Join(folder, "hooks", "link")); err != nil {
		t.Fatal(err)
	}
	cursor, _ := LookupClient("cursor")
	rep := mustExport(t, ExportOptions{Config: cfg, Client: cursor, Scope: ScopeProject})
	if !rep.Problem() {
		t.Fatal("refusals are no problem")
	}
	for id, want := range map[string]string{
		"greet":  filepath.Join(folder, "greet") + " was not written by vox skill export",
		"deploy": filepath.Join(folder, "deploy") + " is a symbolic link, and vox skill export writes through none",
		"hooks":  filepath.Join(folder, "hooks") + " holds a symbolic link, link",
	} {
		if it := itemOf(rep, id); it.Action != ExportRefused || !strings.Contains(it.Reason, want) {
			t.Errorf("%s: %+v, want refused with %q", id, it, want)
		}
	}
	if it := itemOf(rep, "notes"); it.Action != ExportWrote {
		t.Errorf("notes: %+v", it)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "greet", "SKILL.md")); !strings.Contains(string(b), "Someone else's") {
		t.Errorf("the foreign greet was replaced: %q", b)
	}
	if entries, _ := os.ReadDir(ssh); len(entries) != 1 {
		t.Errorf("written through the link into %s: %v", ssh, entries)
	}
	// --check reports them as drift, writing nothing.
	rep = mustExport(t, ExportOptions{Config: cfg, Client: cursor, Scope: ScopeProject, Check: true})
	if it := itemOf(rep, "deploy"); it.Action != ExportChanged || !strings.Contains(it.Reason, "symbolic link") {
		t.Errorf("check deploy: %+v", it)
	}
}

// TestExportRefusesLinkedClientFolder: in a project, a client folder (or
// the folder above it) that is a symlink is refused as a whole.
func TestExportRefusesLinkedClientFolder(t *testing.T) {
	wineshim.SkipSymlinks(t)
	for _, link := range []string{".claude", ".claude/skills"} {
		t.Run(link, func(t *testing.T) {
			cfg := exportWorkspace(t)
			outside := t.TempDir()
			p := filepath.Join(cfg.Workspace, filepath.FromSlash(link))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			claude, _ := LookupClient("claude")
			for _, check := range []bool{false, true} {
				_, err := Export(ExportOptions{Config: cfg, Client: claude, Scope: ScopeProject, Check: check})
				want := p + " is a symbolic link, and vox skill export writes through none"
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("check %v: %v, want %q", check, err, want)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("written through the link: %v", entries)
			}
		})
	}
}

// TestExportSkipsItsOwnFolder: a skill that lives in the client's folder
// (the workspace's .claude/skills is one of vox-mcp's roots) is not
// exported onto itself; the export's own copies there never stand for
// their skill.
func TestExportSkipsItsOwnFolder(t *testing.T) {
	cfg := exportWorkspace(t)
	own := filepath.Join(cfg.Workspace, ".claude", "skills", "mine")
	writeFile(t, filepath.Join(own, "SKILL.md"), skillMD("mine", "Mine."))
	claude, _ := LookupClient("claude")
	opts := ExportOptions{Config: cfg, Client: claude, Scope: ScopeProject}
	rep := mustExport(t, opts)
	if it := itemOf(rep, "mine"); it.Action != ExportSkipped || !strings.Contains(it.Reason, "not exported onto itself") || rep.Problem() {
		t.Fatalf("mine: %+v (problem %v)", it, rep.Problem())
	}
	// notes, from the home (a lower root), is now also in .claude/skills
	// of the workspace, ahead of it: a change of the original still
	// shows as drift and is exported.
	writeFile(t, filepath.Join(cfg.Home, ".agents", "skills", "notes", "SKILL.md"), skillMD("notes", "Takes better notes."))
	opts.Check = true
	if it := itemOf(mustExport(t, opts), "notes"); it.Action != ExportChanged {
		t.Errorf("check after the original changed: %+v", it)
	}
	opts.Check = false
	if it := itemOf(mustExport(t, opts), "notes"); it.Action != ExportUpdated {
		t.Errorf("export after the original changed: %+v", it)
	}
	sameTree(t, filepath.Join(cfg.Home, ".agents", "skills", "notes"), filepath.Join(cfg.Workspace, ".claude", "skills", "notes"))
}

// TestExportFailsUnverifiedSkill: a skill with a file that has no digest
// (over 1 MiB, as skills/get lists it) is not exported at all.
func TestExportFailsUnverifiedSkill(t *testing.T) {
	cfg := exportWorkspace(t)
	big := filepath.Join(cfg.Workspace, ".vox", "skills", "big")
	writeFile(t, filepath.Join(big, "SKILL.md"), skillMD("big", "Big."))
	writeFile(t, filepath.Join(big, "data.bin"), strings.Repeat("x", MaxFileSize+1))
	claude, _ := LookupClient("claude")
	rep := mustExport(t, ExportOptions{Config: cfg, Client: claude, Scope: ScopeProject})
	if it := itemOf(rep, "big"); it.Action != ExportFailed || !strings.Contains(it.Reason, "data.bin cannot be verified: file larger than 1 MiB") || !rep.Problem() {
		t.Fatalf("big: %+v", it)
	}
	if _, err := os.Stat(filepath.Join(cfg.Workspace, ".claude", "skills", "big")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unverified skill was exported: %v", err)
	}
	if it := itemOf(rep, "greet"); it.Action != ExportWrote {
		t.Errorf("greet: %+v", it)
	}
}

// TestExportUserFolderSharedByWorkspaces: the home's folder holds the
// exports of several workspaces; one never replaces or removes another's.
func TestExportUserFolderSharedByWorkspaces(t *testing.T) {
	a := exportWorkspace(t)
	b := Config{Workspace: t.TempDir(), Home: a.Home}
	writeFile(t, filepath.Join(b.Workspace, ".vox", "skills", "greet", "SKILL.md"), skillMD("greet", "B's greet."))
	claude, _ := LookupClient("claude")
	mustExport(t, ExportOptions{Config: a, Client: claude, Scope: ScopeUser})
	rep := mustExport(t, ExportOptions{Config: b, Client: claude, Scope: ScopeUser})
	folder := filepath.Join(a.Home, ".claude", "skills")
	if it := itemOf(rep, "greet"); it.Action != ExportRefused || !strings.Contains(it.Reason, filepath.Join(folder, "greet")+" is the export of the workspace "+a.Workspace) {
		t.Errorf("b's greet: %+v", it)
	}
	// notes is a's (from the shared home's .agents/skills, so b has it
	// too, and finds a's copy unchanged); nothing of a's is removed.
	if it := itemOf(rep, "notes"); it.Action != ExportUnchanged {
		t.Errorf("notes: %+v", it)
	}
	sameTree(t, filepath.Join(a.Workspace, ".vox", "skills", "greet"), filepath.Join(folder, "greet"))
	if rep := mustExport(t, ExportOptions{Config: a, Client: claude, Scope: ScopeUser, Check: true}); rep.Problem() {
		t.Errorf("a's check: %+v", rep.Items)
	}
}

func TestExportClientFolders(t *testing.T) {
	codex, _ := LookupClient("codex")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CODEX_HOME" {
				return v
			}
			return ""
		}
	}
	ws, home := osAbs("/ws"), osAbs("/home/u")
	if a, r, err := codex.Folder(ScopeUser, ws, home, env(osAbs("/opt/codex"))); err != nil || a != osAbs("/opt/codex") || r != "skills" {
		t.Errorf("CODEX_HOME: %s %s %v", a, r, err)
	}
	if a, r, err := codex.Folder(ScopeUser, ws, home, env("")); err != nil || a != home || r != ".codex/skills" {
		t.Errorf("no CODEX_HOME: %s %s %v", a, r, err)
	}
	if _, _, err := codex.Folder(ScopeUser, ws, home, env("rel")); err == nil || !strings.Contains(err.Error(), "CODEX_HOME=rel is not an absolute path") {
		t.Errorf("relative CODEX_HOME: %v", err)
	}
	if _, _, err := codex.Folder(ScopeProject, ws, home, nil); err == nil || !strings.Contains(err.Error(), "--scope user") {
		t.Errorf("codex project: %v", err)
	}
	if _, err := LookupClient("emacs"); err == nil || !strings.Contains(err.Error(), "claude, cursor, vscode, codex") {
		t.Errorf("unknown client: %v", err)
	}
	if !slices.Equal(ClientNames(), []string{"claude", "cursor", "vscode", "codex"}) {
		t.Errorf("clients %v", ClientNames())
	}
}
