package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/vox-lang/vox-mcp/runtime/cliutil"
	voxlang "github.com/vox-lang/vox-mcp/runtime/vox"
	"github.com/vox-lang/vox-mcp/runtime/vox/diag"
)

func init() {
	register(command{
		path:    []string{"run"},
		summary: "call a function of a .vox file with JSON arguments and print the result",
		run:     runRun,
	})
}

// runRun is "vox run FILE FUNC [--args JSON] [--root DIR] [--steps N]
// [--timeout DUR]": it calls any function of the file (tool, resource
// function or plain fn) through the same bridge the server uses and prints
// the result as compact JSON on stdout, or the error on stderr with exit
// code 1. --steps 0 and --timeout 0 lift those limits; fs.* reads below
// --root (default: the current directory); print() writes to stderr.
func runRun(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox run", s.err)
	argsJSON := flags.String("args", "{}", "the arguments as a JSON object")
	root := flags.String("root", ".", "workspace root for fs.*")
	def := voxlang.DefaultLimits()
	steps := flags.Int64("steps", def.Steps, "step limit (0: unlimited)")
	timeout := flags.Duration("timeout", def.Timeout, "wall-clock limit (0: unlimited)")
	alloc := flags.Int64("max-alloc-bytes", def.MaxAllocBytes, "bytes of values the call may allocate in all (0: unlimited)")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox run FILE FUNC [--args JSON] [--root DIR] [--steps N] [--timeout DUR] [--max-alloc-bytes N]")
		flags.PrintDefaults()
	}
	pos, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(pos) != 2 {
		flags.Usage()
		return cliutil.ExitUsage
	}
	file, fn := pos[0], pos[1]
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(s.err, "vox run: %v\n", err)
		return cliutil.ExitProblem
	}
	m := voxlang.Compile(displayPath(file), src)
	if m.HasErrors() {
		for _, d := range m.Diagnostics() {
			if d.Severity == diag.Error {
				fmt.Fprintln(s.err, d)
			}
		}
		fmt.Fprintf(s.err, "vox run: %s does not compile\n", displayPath(file))
		return cliutil.ExitProblem
	}
	lim := def
	lim.Steps, lim.Timeout, lim.MaxAllocBytes = *steps, *timeout, *alloc
	env := &voxlang.Env{
		Root:   *root,
		Limits: lim,
		Log:    slog.New(slog.NewTextHandler(s.err, nil)),
	}
	res, err := m.Call(context.Background(), fn, []byte(*argsJSON), env)
	if err != nil {
		var e *voxlang.Error
		if errors.As(err, &e) {
			msg := e.Positioned()
			switch {
			case e.Kind != voxlang.LimitError:
			case e.Limit == "steps" || e.Limit == "timeout_ms":
				msg += " or pass --steps/--timeout"
			case e.Limit == "max_alloc_bytes":
				msg += " or pass --max-alloc-bytes"
			}
			fmt.Fprintln(s.err, msg)
		} else {
			fmt.Fprintln(s.err, err)
		}
		return cliutil.ExitProblem
	}
	fmt.Fprintf(s.out, "%s\n", res.JSON)
	return cliutil.ExitOK
}
