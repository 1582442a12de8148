package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/skills"
)

// runSkillExport is "vox skill export --client NAME [--scope project|user]
// [--check] [--root DIR]" (docs/skills.md §10): the workspace's skills,
// verified against their digests, written into the skills folder of a
// client that loads skills from its own folder rather than over MCP; with
// --check, the drift between the two, for CI.
func runSkillExport(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox skill export", s.err)
	client := flags.String("client", "", "the client whose skills folder is written: "+strings.Join(skills.ClientNames(), ", ")+" (required)")
	scope := flags.String("scope", skills.ScopeProject, "project: the client's folder in the workspace; user: the one in the home folder")
	check := flags.Bool("check", false, "write nothing: list missing, changed and extra exports, and exit 1 when there is any (for CI)")
	root := flags.String("root", ".", "the workspace whose skills are exported, as vox-mcp --root")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox skill export --client NAME [--scope project|user] [--check] [--root DIR]")
		flags.PrintDefaults()
	}
	pos, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(pos) > 0 || *client == "" {
		flags.Usage()
		return cliutil.ExitUsage
	}
	c, err := skills.LookupClient(*client)
	if err == nil && *scope != skills.ScopeProject && *scope != skills.ScopeUser {
		err = fmt.Errorf("unknown scope %q: give project or user", *scope)
	}
	if err != nil {
		fmt.Fprintf(s.err, "vox skill export: --client, --scope: %v\n", err)
		return cliutil.ExitUsage
	}
	ws, err := workspaceRoot(*root)
	if err != nil {
		fmt.Fprintf(s.err, "vox skill export: %v\n", err)
		return cliutil.ExitProblem
	}
	rep, err := skills.Export(skills.ExportOptions{
		Config: skills.ConfigFromEnv(ws), Client: c, Scope: *scope, Check: *check, Getenv: os.Getenv,
	})
	if rep != nil {
		printExport(s, rep, c, *check)
	}
	if err != nil {
		fmt.Fprintf(s.err, "vox skill export: %v\n", err)
		return cliutil.ExitProblem
	}
	if rep.Problem() {
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// workspaceRoot is dir made absolute with its links resolved: what the
// record of a user folder names as the workspace exported from.
func workspaceRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("--root %s: %w", dir, err)
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", fmt.Errorf("--root %s is not a folder: name the workspace root", dir)
	}
	return abs, nil
}

// printExport lists what the export did (or, checking, found) on stdout,
// one line per skill, then a summary; discovery's warnings go to stderr.
func printExport(s *streams, rep *skills.ExportReport, c skills.Client, check bool) {
	for _, w := range rep.Warnings {
		fmt.Fprintf(s.err, "vox skill export: %s\n", w)
	}
	counts := map[string]int{}
	for _, it := range rep.Items {
		counts[it.Action]++
		switch it.Action {
		case skills.ExportWrote, skills.ExportUpdated, skills.ExportUnchanged:
			fmt.Fprintf(s.out, "%-9s %s (%d file(s))\n", it.Action, it.Folder, it.Files)
		default:
			fmt.Fprintf(s.out, "%-9s %s: %s\n", it.Action, it.ID, it.Reason)
		}
	}
	var parts []string
	for _, a := range []string{skills.ExportWrote, skills.ExportUpdated, skills.ExportUnchanged, skills.ExportRemoved,
		skills.ExportMissing, skills.ExportChanged, skills.ExportExtra, skills.ExportSkipped, skills.ExportRefused, skills.ExportFailed} {
		if counts[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[a], a))
		}
	}
	if len(parts) == 0 {
		parts = []string{"the workspace has no skill"}
	}
	summary := strings.Join(parts, ", ")
	switch {
	case check && rep.Problem():
		fmt.Fprintf(s.out, "%s (%s) has drifted from the workspace's skills: %s; run vox skill export --client %s to bring it in line\n", rep.Folder, c.Title, summary, c.Name)
	case check:
		fmt.Fprintf(s.out, "%s (%s) is in sync with the workspace's skills: %s\n", rep.Folder, c.Title, summary)
	default:
		fmt.Fprintf(s.out, "exported to %s (%s): %s\n", rep.Folder, c.Title, summary)
	}
}
