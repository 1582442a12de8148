package main

import (
	"flag"
	"fmt"
	"sort"

	"github.com/vox-lang/vox-mcp/runtime/cliutil"
	"github.com/vox-lang/vox-mcp/runtime/gates"
)

// A gate is one "vox ci <name>" command that produces a report; "vox ci
// all" runs every registered gate.
type gate struct {
	name    string
	summary string
	// run checks the repository at root; args are the positional
	// arguments given to "vox ci <name>" (none under "ci all").
	run func(root string, args []string) *gates.Report
	// takesArgs allows positional arguments.
	takesArgs bool
}

var gateTable []gate

// registerGate adds a gate and its "vox ci <name>" command.
func registerGate(g gate) {
	gateTable = append(gateTable, g)
	register(command{
		path:    []string{"ci", g.name},
		summary: g.summary,
		run:     func(s *streams, args []string) int { return runGate(s, g, args) },
	})
}

func init() {
	register(command{path: []string{"ci", "all"}, summary: "run every CI gate", run: runCIAll})
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
	report := g.run(*root, rest)
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
		r := g.run(*root, nil)
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
