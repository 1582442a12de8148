package handlers

import (
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// The catalog tools of the skills system (docs/skills.md §8).

// VoxSkillList lists the installed skills, sorted by id.
func (h *Handlers) VoxSkillList(_ *toolcall.Call, _ catalog.VoxSkillListArgs) (*catalog.VoxSkillListResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	installed := reg.Snapshot().Skills()
	res := &catalog.VoxSkillListResult{Skills: make([]catalog.VoxSkillListSummary, len(installed))}
	for i, in := range installed {
		res.Skills[i] = catalog.VoxSkillListSummary{ID: in.ID, Name: in.Name, Description: in.Description, Version: in.Version,
			Category: in.Category, Tags: in.Tags, Tools: in.Tools, Path: in.Path, Root: in.Root}
	}
	return res, nil
}

// VoxSkillSearch ranks the installed skills with BM25F (docs/skills.md §3).
func (h *Handlers) VoxSkillSearch(_ *toolcall.Call, args catalog.VoxSkillSearchArgs) (*catalog.VoxSkillSearchResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	hits := reg.Snapshot().Search(args.Query, int(args.Limit))
	res := &catalog.VoxSkillSearchResult{Results: make([]catalog.VoxSkillSearchResultResultsItem, len(hits))}
	for i, hit := range hits {
		res.Results[i] = catalog.VoxSkillSearchResultResultsItem{ID: hit.ID, Name: hit.Name, Description: hit.Description, Score: hit.Score}
	}
	return res, nil
}

// VoxSkillInfo shows an installed skill's manifest, folder and files.
func (h *Handlers) VoxSkillInfo(_ *toolcall.Call, args catalog.VoxSkillInfoArgs) (*catalog.VoxSkillInfoResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	in, err := reg.Snapshot().Lookup(args.ID)
	if err != nil {
		return nil, err
	}
	sk := in.Skill
	return &catalog.VoxSkillInfoResult{ID: sk.ID, Name: sk.Name, Description: sk.Description, Version: sk.Version,
		Category: sk.Category, Tags: sk.Tags, Tools: sk.Tools, Author: sk.Author, Dependencies: sk.Dependencies,
		Permissions: sk.Permissions, AllowedTools: sk.AllowedTools, License: sk.License, Compatibility: sk.Compatibility,
		Path: in.Path, Root: in.Root, Files: in.FilePaths()}, nil
}

// VoxSkillUse makes a skill the session's active skill and returns its
// instructions; id "" clears it.
func (h *Handlers) VoxSkillUse(c *toolcall.Call, args catalog.VoxSkillUseArgs) (*catalog.VoxSkillUseResult, error) {
	if args.ID == "" {
		if err := h.svc.ActivateSkill(c.Context(), nil); err != nil {
			return nil, err
		}
		return &catalog.VoxSkillUseResult{Active: &toolcall.Null{}}, nil
	}
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	in, err := reg.Snapshot().Lookup(args.ID)
	if err != nil {
		return nil, err
	}
	if err := h.svc.ActivateSkill(c.Context(), in); err != nil {
		return nil, err
	}
	h.log.Info("skill activated", "skill", in.ID, "allowlist", in.Tools)
	return &catalog.VoxSkillUseResult{ID: &in.ID, Name: &in.Name, Description: &in.Description, Body: &in.Body}, nil
}

// VoxSkillParse reads SKILL.md text without installing it.
func (h *Handlers) VoxSkillParse(_ *toolcall.Call, args catalog.VoxSkillParseArgs) (*catalog.VoxSkillParseResult, error) {
	sk, warnings, err := skills.Parse([]byte(args.SkillMD))
	if err != nil {
		return nil, fmt.Errorf("skill_md: %w: fix the front matter and parse again", err)
	}
	return &catalog.VoxSkillParseResult{
		Skill: catalog.VoxSkillParseResultSkill{ID: sk.ID, Name: sk.Name, Description: sk.Description, Version: sk.Version,
			Category: sk.Category, Tags: sk.Tags, Tools: sk.Tools, Author: sk.Author, Dependencies: sk.Dependencies,
			Permissions: sk.Permissions, AllowedTools: sk.AllowedTools, License: sk.License, Compatibility: sk.Compatibility},
		Warnings: warnings,
	}, nil
}

// VoxSkillInstall writes a skill given as text into the install target
// and installs it.
func (h *Handlers) VoxSkillInstall(_ *toolcall.Call, args catalog.VoxSkillInstallArgs) (*catalog.VoxSkillInstallResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	files := args.Files
	if files == nil {
		files = map[string]string{}
	}
	in, warnings, err := reg.Install([]byte(args.SkillMD), files, args.Global)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		h.log.Warn("installed skill: "+w, "skill", in.ID)
	}
	h.log.Info("skill installed", "skill", in.ID, "path", in.Path)
	h.svc.AnnounceSkillsChanged()
	return &catalog.VoxSkillInstallResult{ID: in.ID, Name: in.Name, Path: in.Path}, nil
}

// VoxSkillUninstall drops a skill from this process's registry; its
// folder stays.
func (h *Handlers) VoxSkillUninstall(_ *toolcall.Call, args catalog.VoxSkillUninstallArgs) (*catalog.VoxSkillUninstallResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	in, err := reg.Uninstall(args.ID)
	if err != nil {
		return nil, err
	}
	h.log.Info("skill uninstalled for this process", "skill", in.ID, "path", in.Path)
	return &catalog.VoxSkillUninstallResult{ID: in.ID, Path: in.Path, Deleted: false}, nil
}

// VoxSkillRemove deletes an installed skill's folder (only directly under
// an install target) and uninstalls it.
func (h *Handlers) VoxSkillRemove(_ *toolcall.Call, args catalog.VoxSkillRemoveArgs) (*catalog.VoxSkillRemoveResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	in, err := reg.Remove(args.ID)
	if err != nil {
		return nil, err
	}
	h.log.Info("skill removed", "skill", in.ID, "path", in.Path)
	h.svc.AnnounceSkillsChanged()
	return &catalog.VoxSkillRemoveResult{ID: in.ID, Path: in.Path, Deleted: true}, nil
}

// VoxSkillDiscover reports what the skill roots hold now, and the skill
// folders that could not be loaded, with where and why (docs/skills.md §2).
func (h *Handlers) VoxSkillDiscover(_ *toolcall.Call, _ catalog.VoxSkillDiscoverArgs) (*catalog.VoxSkillDiscoverResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	entries, skipped, warnings := reg.Discover()
	for _, w := range warnings {
		h.log.Debug("skill discovery: " + w)
	}
	res := &catalog.VoxSkillDiscoverResult{Entries: make([]catalog.VoxSkillDiscoverResultEntriesItem, len(entries)),
		Skipped: make([]catalog.VoxSkillDiscoverResultSkippedItem, len(skipped))}
	for i, sk := range skipped {
		res.Skipped[i] = catalog.VoxSkillDiscoverResultSkippedItem{Path: sk.Path, Reason: sk.Reason}
	}
	for i, e := range entries {
		res.Entries[i] = catalog.VoxSkillDiscoverResultEntriesItem{ID: e.ID, Name: e.Name, Path: e.Path, Root: e.Root,
			Installed: e.Installed, ShadowedBy: e.ShadowedBy}
	}
	if why := h.svc.SkillRunUnavailable(); why != "" {
		res.SkillRunUnavailable = &why
	}
	return res, nil
}

// VoxSkillAdd copies skills from a local folder or a git repository into
// the install target and installs them. Cloning reaches the network, so
// it needs the permission that VOX_MCP_ALLOW_NETWORK=1 gives.
func (h *Handlers) VoxSkillAdd(c *toolcall.Call, args catalog.VoxSkillAddArgs) (*catalog.VoxSkillAddResult, error) {
	if skills.IsGitURL(args.Source) && !h.svc.NetworkAllowed() {
		return nil, errors.New("adding from a git URL needs network access, which is off: start vox-mcp with VOX_MCP_ALLOW_NETWORK=1, or add from a local folder")
	}
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	skill := ""
	if args.Skill != nil {
		skill = *args.Skill
	}
	ins, warnings, err := reg.Add(c.Context(), args.Source, args.Global, skill)
	if err != nil {
		return nil, err
	}
	h.svc.AnnounceSkillsChanged()
	for _, w := range warnings {
		h.log.Warn("added skill: " + w)
		c.Log(mcp.LoggingLevelWarning, "added skill: "+w)
	}
	for _, in := range ins {
		h.log.Info("skill added", "skill", in.ID, "path", in.Path, "source", args.Source)
	}
	if len(ins) == 1 {
		return &catalog.VoxSkillAddResult{ID: &ins[0].ID, Name: &ins[0].Name, Path: &ins[0].Path}, nil
	}
	res := &catalog.VoxSkillAddResult{Installed: make([]catalog.VoxSkillAddResultInstalledItem, len(ins))}
	for i, in := range ins {
		res.Installed[i] = catalog.VoxSkillAddResultInstalledItem{ID: in.ID, Name: in.Name, Path: in.Path}
	}
	return res, nil
}

// VoxSkillRun runs a command for an installed skill in the sandbox
// (docs/sandbox.md, "Linux"). The sandbox requirement was
// checked before: the start-up self-test passed, or VOX_SKILL_SANDBOX=off
// chose the unisolated run. The sandbox binds the folder the registry
// discovered, checked by device and inode, never what its path leads to
// now. A client that asked for progress hears when the command starts
// (0) and then how many bytes of output it wrote so far (at most every
// sandbox.OutputReportEvery, the final count last).
func (h *Handlers) VoxSkillRun(c *toolcall.Call, args catalog.VoxSkillRunArgs) (*catalog.VoxSkillRunResult, error) {
	reg, err := h.svc.Skills()
	if err != nil {
		return nil, err
	}
	in, err := reg.Snapshot().Lookup(args.ID)
	if err != nil {
		return nil, err
	}
	if !in.IsFolder() {
		// The folder holding a reference skill file is not the skill's
		// (it may be the workspace): nothing of it is bound.
		return nil, fmt.Errorf("skill %s is the single file %s, not a skill folder: vox_skill_run runs commands in a skill folder only; make it one (<id>/SKILL.md) to run commands for it", in.ID, in.Path)
	}
	spec := sandbox.Spec{
		SkillID:  in.ID,
		SkillDir: in.RealPath(),
		Folder:   sandbox.FolderID{Dev: in.Dev, Ino: in.Ino},
		Command:  args.Command,
		Timeout:  time.Duration(args.TimeoutMS) * time.Millisecond,
	}
	spec.Output = func(n int64) { c.Progress(float64(n), 0, fmt.Sprintf("%d bytes of output so far", n)) }
	c.Progress(0, 0, "running the command of skill "+in.ID)
	r, err := h.svc.RunSkillCommand(c.Context(), spec)
	var se *sandbox.SetupError
	switch {
	case errors.As(err, &se) && se.Step == sandbox.StepOpenSkill:
		return nil, fmt.Errorf("skill %s: the command did not run: %v", in.ID, err)
	case err != nil:
		return nil, fmt.Errorf("the command did not run: %v; %s", err, h.svc.SkillRunAdvice())
	}
	return &catalog.VoxSkillRunResult{ExitCode: int64(r.ExitCode), Stdout: r.Stdout, Stderr: r.Stderr, TimedOut: r.TimedOut, Truncated: r.Truncated}, nil
}
