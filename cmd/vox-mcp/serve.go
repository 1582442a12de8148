package main

import (
	"fmt"
	"io"

	"github.com/vox-lang/vox-mcp/runtime/buildinfo"
	"github.com/vox-lang/vox-mcp/runtime/cliutil"
)

// serve parses the server's flags and runs it until stdin closes.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cliutil.NewFlagSet("vox-mcp", stderr)
	showVersion := fs.Bool("version", false, "print the version and commit, then exit")
	root := fs.String("root", ".", "workspace root")
	if _, err := cliutil.Parse(fs, args); err != nil {
		if cliutil.IsHelp(err) {
			return cliutil.ExitOK
		}
		return cliutil.ExitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Line("vox-mcp"))
		return cliutil.ExitOK
	}
	_ = root
	fmt.Fprintln(stderr, "vox-mcp: the server is not built yet")
	return cliutil.ExitProblem
}
