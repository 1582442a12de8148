package main

import (
	"fmt"
	"strings"

	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
)

// runGenApp is "vox gen app --out DIR [--module PATH] [--replace DIR] FILE...".
func runGenApp(s *streams, args []string) int {
	fs := cliutil.NewFlagSet("vox gen app", s.err)
	out := fs.String("out", "", "directory of the app's main package (required)")
	module := fs.String("module", "", "module path of a go.mod written into --out (required when --out is not inside a module that requires "+gen.ProductModule+")")
	replace := fs.String("replace", "", "vox-mcp checkout the app's go.mod replaces "+gen.ProductModule+" with")
	files, err := cliutil.Parse(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if *out == "" || len(files) == 0 {
		fmt.Fprintln(s.err, "usage: vox gen app --out DIR [--module PATH] [--replace DIR] FILE.vox...")
		return cliutil.ExitUsage
	}
	app, err := gen.WriteApp(gen.AppOptions{
		Out: *out, Files: files, Module: *module, Replace: *replace,
		Version: buildinfo.Version(),
	})
	if err != nil {
		fmt.Fprintf(s.err, "vox gen app: %v\n", err)
		return cliutil.ExitProblem
	}
	fmt.Fprintf(s.out, "vox gen app: wrote %d file(s) in %s (%s); build it with: cd %s && %s\n", len(app.Files), *out, strings.Join(app.Files, ", "), *out, app.Build)
	return cliutil.ExitOK
}
