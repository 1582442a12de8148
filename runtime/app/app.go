// Package app is the runtime of the standalone MCP servers that
// "vox gen app" writes (docs/gen-app.md): a generated main package
// holds the tables of its workspace tools and resources and their embedded
// .vox sources, and calls Main, which serves exactly those over stdio —
// no catalog, no skills, nothing scanned.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/vox-lang/vox-mcp/internal/buildinfo"
	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/runtime/registry"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// Main runs the app server named name with its tables and embedded
// sources; it returns the exit code. Flags: --root DIR (the directory the
// tools' fs.* capabilities see; default the working directory) and
// --version. Logs go to stderr at the level of VOX_LOG.
func Main(name string, tables *workspace.Snapshot, sources fs.FS, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := cliutil.NewFlagSet(name, stderr)
	root := flags.String("root", ".", "directory that the tools' fs.* capabilities read (default: the working directory)")
	showVersion := flags.Bool("version", false, "print the version and commit, then exit")
	rest, err := cliutil.Parse(flags, args)
	if err != nil {
		if cliutil.IsHelp(err) {
			return cliutil.ExitOK
		}
		return cliutil.ExitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", name, rest[0])
		return cliutil.ExitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildinfo.Line(name))
		return cliutil.ExitOK
	}
	logger, err := server.NewLogger(stderr, os.Getenv("VOX_LOG"))
	if err != nil {
		logger.Warn(err.Error())
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		logger.Error("bad --root", "err", err)
		return cliutil.ExitUsage
	}
	surface, err := tables.EmbeddedSurface(sources, abs, workspace.DefaultConfig())
	if err != nil {
		logger.Error(name+" cannot start", "err", err)
		return cliutil.ExitProblem
	}
	srv, err := server.New(server.Options{
		Root:           abs,
		Logger:         logger,
		Catalog:        &registry.Catalog{},
		Surface:        surface,
		WorkspaceTools: true,
		NoSkills:       true,
		Name:           name,
		Instructions:   "This server serves the tools and resources of a few Vox files; tools/list and resources/list show all of them.",
	})
	if err != nil {
		logger.Error(name+" cannot start", "err", err)
		return cliutil.ExitProblem
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		logger.Error(name+" stopped", "err", err)
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}
