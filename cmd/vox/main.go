// Command vox is the vox-mcp command line.
//
// Usage:
//
//	vox <command> [flags] [arguments]
//	vox --version
//
// Run "vox help" for the list of commands. The command table (commands.go)
// lists every command, the gates among them derived from the gate table
// (ci.go); each command's code lives in its own file. The catalog
// (contracts/operations/catalog.v1.yaml) has one CLI row per command, which
// "vox ci operations-verify" checks against the table.
//
// Exit codes: 0 success, 1 problems found or a call failed, 2 usage error.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole CLI behind main, so tests drive it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch(args, &streams{in: stdin, out: stdout, err: stderr})
}
