package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/vox-lang/vox-mcp/runtime/buildinfo"
	"github.com/vox-lang/vox-mcp/runtime/cliutil"
	"github.com/vox-lang/vox-mcp/runtime/server"
)

// serve parses the server's flags and serves stdio until stdin closes or
// the process is interrupted.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cliutil.NewFlagSet("vox-mcp", stderr)
	showVersion := fs.Bool("version", false, "print the version and commit, then exit")
	root := fs.String("root", "", "workspace root (default: the working directory)")
	rest, err := cliutil.Parse(fs, args)
	if err != nil {
		if cliutil.IsHelp(err) {
			return cliutil.ExitOK
		}
		return cliutil.ExitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "vox-mcp: unexpected argument %q\n", rest[0])
		return cliutil.ExitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Line("vox-mcp"))
		return cliutil.ExitOK
	}
	logger, err := server.NewLogger(stderr, os.Getenv("VOX_LOG"))
	if err != nil {
		logger.Warn(err.Error())
	}
	srv, err := server.New(server.Options{
		Root:         *root,
		Logger:       logger,
		AllowNetwork: server.EnvTrue("VOX_MCP_ALLOW_NETWORK"),
	})
	if err != nil {
		logger.Error("vox-mcp cannot start", "err", err)
		return cliutil.ExitProblem
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("vox-mcp serving stdio", "root", srv.Root(), "version", buildinfo.Version())
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil {
		logger.Error("vox-mcp stopped", "err", err)
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}
