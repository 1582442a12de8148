package main

import (
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/lsp"
)

// runLSP is "vox lsp": the language server for .vox files on stdin and
// stdout (internal/lsp, docs/vox-lsp.md). It exits 0 after the client's
// shutdown and exit, 1 otherwise, as the protocol asks.
func runLSP(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox lsp", s.err)
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox lsp   (speaks the Language Server Protocol on stdin and stdout; an editor starts it)")
	}
	rest, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "vox lsp: unexpected argument %q: the documents come from the editor over the protocol\n", rest[0])
		return cliutil.ExitUsage
	}
	if err := lsp.Serve(s.in, s.out, lsp.Options{Version: buildinfo.Version(), Log: s.err}); err != nil {
		fmt.Fprintf(s.err, "vox lsp: %v\n", err)
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}
