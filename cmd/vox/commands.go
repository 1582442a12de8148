package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
)

// streams are a command's standard input and outputs.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// A command is one entry of the command table: a path of words
// ("ci", "operations-verify") and the function that runs it with the
// arguments that follow the path.
type command struct {
	path    []string
	summary string
	run     func(s *streams, args []string) int
}

// commands lists every vox command: the commands of their own files,
// then one "vox ci <name>" per gate of gateTable and "vox ci all". Every
// command has a catalog row (cli.path), which operations-verify checks in
// both directions.
func commands() []command {
	return append([]command{
		{path: []string{"check"}, summary: "check .vox files and folders: print their diagnostics (--format text|json)", run: runCheck},
		{path: []string{"fmt"}, summary: "print .vox files in the canonical layout; -l lists, --check fails on, -w rewrites the files that differ", run: runFmt},
		{path: []string{"lsp"}, summary: "serve the Language Server Protocol for .vox files on stdin and stdout (for editors)", run: runLSP},
		{path: []string{"run"}, summary: "call a function of a .vox file with JSON arguments and print the result", run: runRun},
		{path: []string{"trust"}, summary: "grant a workspace the powers its scan config asks for (env_allow, write_globs); --list, --revoke DIR", run: runTrust},
		{path: []string{"skill", "export"}, summary: "write the workspace's skills into a client's skills folder (--client claude|cursor|vscode|codex, --scope, --check)", run: runSkillExport},
		{path: []string{"gen"}, summary: "regenerate generated/ (--check: only report stale files with a diff)", run: runGen},
		{path: []string{"gen", "app"}, summary: "write a standalone stdio MCP server (main package) serving the tools of the given .vox files", run: runGenApp},
		{path: []string{"ci", "all"}, summary: "run every CI gate", run: runCIAll},
	}, gateCommands()...)
}

// CommandPaths returns the path of every registered command, sorted; the
// operations-verify gate compares them with the catalog's CLI rows.
func commandPaths() [][]string {
	table := commands()
	paths := make([][]string, 0, len(table))
	for _, c := range table {
		paths = append(paths, c.path)
	}
	sort.Slice(paths, func(i, j int) bool { return slices.Compare(paths[i], paths[j]) < 0 })
	return paths
}

// dispatch finds the command with the longest path that prefixes args and
// runs it.
func dispatch(args []string, s *streams) int {
	if len(args) == 0 {
		usage(s.err)
		return cliutil.ExitUsage
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(s.out, buildinfo.Line("vox"))
		return cliutil.ExitOK
	case "help", "-h", "--help", "-help":
		usage(s.out)
		return cliutil.ExitOK
	}
	var best *command
	table := commands()
	for i := range table {
		c := &table[i]
		if len(c.path) <= len(args) && slices.Equal(c.path, args[:len(c.path)]) {
			if best == nil || len(c.path) > len(best.path) {
				best = c
			}
		}
	}
	if best == nil {
		fmt.Fprintf(s.err, "vox: unknown command %q\n", strings.Join(leadingWords(args), " "))
		usage(s.err)
		return cliutil.ExitUsage
	}
	return best.run(s, args[len(best.path):])
}

// leadingWords are the arguments before the first flag.
func leadingWords(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i]
		}
	}
	return args
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: vox <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, p := range commandPaths() {
		for _, c := range commands() {
			if slices.Equal(c.path, p) {
				fmt.Fprintf(w, "  %-28s %s\n", strings.Join(c.path, " "), c.summary)
			}
		}
	}
	fmt.Fprintln(w, "\nvox --version prints the version and commit.")
}
