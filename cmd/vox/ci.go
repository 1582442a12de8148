package main

import (
	"flag"
	"fmt"
	"sort"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/gates"
)

// A gate is one CI gate: the "vox ci <name>" command that produces its
// report, its part of "vox ci all", and its row in docs/ci-gates.md.
type gate struct {
	name    string
	summary string // the one line of "vox help"
	// checks says what the gate checks, for docs/ci-gates.md.
	checks string
	// run checks the repository.
	run func(in gateInput) *gates.Report
	// takesArgs allows positional arguments.
	takesArgs bool
}

// gateTable is every CI gate, in the order "vox ci all" runs them (by
// name). The "vox ci" commands, "vox ci all" and the gate table of
// docs/ci-gates.md (TestGateDocs) are derived from it: adding a gate is an
// entry here, its implementation in internal/gates/, and its catalog row
// (cli.path [ci, <name>]).
var gateTable = []gate{
	{
		name:    gates.AgentSkillsGate,
		summary: "check skill folders against the Agent Skills format (reference validator rules)",
		checks:  "every skill folder of the workspace's skill roots, and the folders given as arguments, against the Agent Skills format with the reference validator's rules; the Vox reference's skill files (`*.skill.md`, `Plugin.toml`) no more strictly than the reference checks them; warns about a metadata.vox-tools name no catalog or workspace tool provides",
		run: func(in gateInput) *gates.Report {
			return gates.AgentSkillsCompliance(in.root, in.args, servedCatalogTools())
		},
		takesArgs: true,
	},
	{
		name:    gates.SurfaceParityName,
		summary: "check the workspace .vox surface: per-file errors, duplicates, generated/workspace and the fixtures",
		checks:  "the workspace surface loaded as vox-mcp loads it: per-file errors, duplicates, descriptions, the generated/workspace snapshot, the fixtures",
		run:     func(in gateInput) *gates.Report { return gates.SurfaceParity(in.root, servedCatalogTool) },
	},
	{
		name:    gates.OperationsVerifyName,
		summary: "check the catalog against the vox commands and generated/catalog",
		checks:  "the catalog's validity, its CLI rows against vox's command table in both directions, and generated/catalog against a fresh generation (rows against handlers are the compiler's check)",
		run: func(in gateInput) *gates.Report {
			return gates.OperationsVerify(in.root, gates.Wiring{Commands: in.commands})
		},
	},
}

// gateInput is what a gate runs on: the repository root, the positional
// arguments given to "vox ci <name>" (none under "vox ci all"), and the
// paths of vox's commands.
type gateInput struct {
	root     string
	args     []string
	commands [][]string
}

// gateCommands are the "vox ci <name>" commands of gateTable.
func gateCommands() []command {
	out := make([]command, len(gateTable))
	for i, g := range gateTable {
		out[i] = command{path: []string{"ci", g.name}, summary: g.summary, run: func(s *streams, args []string) int { return runGate(s, g, args) }}
	}
	return out
}

// ciFlags are the flags every gate command takes.
func ciFlags(name string, s *streams) (*flag.FlagSet, *string, *bool) {
	fs := cliutil.NewFlagSet(name, s.err)
	root := fs.String("root", ".", "repository root")
	asJSON := fs.Bool("json", false, "print the JSON report on stdout instead of text")
	return fs, root, asJSON
}

func runGate(s *streams, g gate, args []string) int {
	fs, root, asJSON := ciFlags("vox ci "+g.name, s)
	rest, err := cliutil.Parse(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if len(rest) > 0 && !g.takesArgs {
		fmt.Fprintf(s.err, "vox ci %s: unexpected argument %q\n", g.name, rest[0])
		return cliutil.ExitUsage
	}
	report := g.run(gateInput{root: *root, args: rest, commands: commandPaths()})
	if *asJSON {
		if err := report.WriteJSON(s.out); err != nil {
			fmt.Fprintf(s.err, "vox ci %s: %v\n", g.name, err)
			return cliutil.ExitProblem
		}
	} else {
		report.WriteText(s.out, s.err)
	}
	if !report.OK {
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// runCIAll is "vox ci all": every gate, in name order; exit 1 if and only
// if a gate that ran found a problem.
func runCIAll(s *streams, args []string) int {
	fs, root, asJSON := ciFlags("vox ci all", s)
	rest, err := cliutil.Parse(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "vox ci all: unexpected argument %q\n", rest[0])
		return cliutil.ExitUsage
	}
	ordered := append([]gate(nil), gateTable...)
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].name < ordered[j].name })
	all := &gates.All{OK: true, Reports: []*gates.Report{}}
	for _, g := range ordered {
		r := g.run(gateInput{root: *root, commands: commandPaths()})
		all.Reports = append(all.Reports, r)
		if !r.OK {
			all.OK = false
		}
		if !*asJSON {
			r.WriteText(s.out, s.err)
		}
	}
	if *asJSON {
		if err := all.WriteJSON(s.out); err != nil {
			fmt.Fprintf(s.err, "vox ci all: %v\n", err)
			return cliutil.ExitProblem
		}
	}
	if !all.OK {
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}
