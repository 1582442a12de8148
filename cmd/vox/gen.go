package main

import (
	"errors"
	"fmt"

	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
)

// runGen is "vox gen [--check] [--root DIR]", what go generate ./... runs.
func runGen(s *streams, args []string) int {
	fs := cliutil.NewFlagSet("vox gen", s.err)
	check := fs.Bool("check", false, "write nothing; exit 1 with a unified diff when a generated file is stale")
	root := fs.String("root", ".", "repository root")
	rest, err := cliutil.Parse(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "vox gen: unexpected argument %q\n", rest[0])
		return cliutil.ExitUsage
	}
	res, err := gen.Generate(*root, !*check)
	if err != nil {
		var es gen.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				fmt.Fprintln(s.err, e.Error())
			}
			fmt.Fprintf(s.err, "vox gen: %d error(s); nothing was written\n", len(es))
			return cliutil.ExitProblem
		}
		fmt.Fprintf(s.err, "vox gen: %v\n", err)
		return cliutil.ExitProblem
	}
	stale := res.Stale()
	if *check {
		if len(stale) > 0 {
			s.out.Write(res.Diff())
			fmt.Fprintf(s.err, "vox gen: %d stale file(s)\nrun: go generate ./...\n", len(stale))
			return cliutil.ExitProblem
		}
		fmt.Fprintf(s.out, "vox gen: up to date (%d file(s))\n", len(res.Files))
		return cliutil.ExitOK
	}
	fmt.Fprintf(s.out, "vox gen: %d file(s), %d written\n", len(res.Files), len(stale))
	return cliutil.ExitOK
}

// usageExit maps a flag parsing error to its exit code: a help request
// succeeds, anything else is a usage error (the flag set printed it).
func usageExit(err error) int {
	if cliutil.IsHelp(err) {
		return cliutil.ExitOK
	}
	return cliutil.ExitUsage
}
