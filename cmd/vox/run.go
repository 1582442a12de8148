package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/skills"
	"github.com/vox-lang/vox-mcp/internal/trust"
	voxlang "github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// runRun is "vox run FILE [FUNC] [--args JSON] [--root DIR] [limit flags]":
// it calls any function of the file (tool, resource function or plain
// fn) through the same bridge the server uses, with the repository's scan
// config as the server would (its limits lower vox run's; its env_allow
// and write_globs are granted once vox trust recorded them, as a server
// grants them, and --allow-env and --allow-write grant directly; one line
// on stderr says which config it used and what it granted), and prints the result as compact JSON on stdout, or the error on
// stderr with exit code 1. --steps 0, --timeout 0 and --max-alloc-bytes 0
// lift those limits, short of what the config sets; fs.* reads below the
// workspace root; print() writes to stderr.
//
// Without FUNC the file runs as a script (docs/vox-language.md, Scripts):
// its top-level statements, or else its fn main; print() writes lines to
// stdout then, and the result is printed only when it is not Unit.
func runRun(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox run", s.err)
	argsJSON := flags.String("args", "{}", "the arguments as a JSON object")
	raw := flags.Bool("raw", false, "print a str result as its text, not as a JSON string (other results print as JSON)")
	root := flags.String("root", "", "workspace root for fs.* and the scan config (default: the nearest directory above FILE with a scan config, up to the repository root, else the current directory)")
	def := voxlang.DefaultLimits()
	steps := flags.Int64("steps", def.Steps, "step limit (0: unlimited)")
	timeout := flags.Duration("timeout", def.Timeout, "wall-clock limit (0: unlimited)")
	depth := flags.Int("max-depth", def.MaxDepth, "call depth limit")
	output := flags.Int64("max-output-bytes", def.MaxOutputBytes, "the largest JSON result")
	value := flags.Int64("max-value-bytes", def.MaxValueBytes, "the largest single string, list or map")
	alloc := flags.Int64("max-alloc-bytes", def.MaxAllocBytes, "bytes of values the call may allocate in all (0: unlimited)")
	var op trust.Operator
	flags.Var((*cliutil.Strings)(&op.Env), "allow-env", "let env.get read the variable `NAME`, whatever vox trust recorded (repeatable)")
	flags.Var((*cliutil.Strings)(&op.Write), "allow-write", "let fs.write write the workspace paths matching `GLOB`, protected ones included, whatever vox trust recorded (repeatable)")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox run FILE [FUNC] [--args JSON] [--raw] [--root DIR] [--allow-env NAME] [--allow-write GLOB] [--steps N] [--timeout DUR] [--max-depth N] [--max-output-bytes N] [--max-value-bytes N] [--max-alloc-bytes N]")
		flags.PrintDefaults()
	}
	pos, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(pos) != 1 && len(pos) != 2 {
		flags.Usage()
		return cliutil.ExitUsage
	}
	if *depth <= 0 || *output <= 0 || *value <= 0 {
		fmt.Fprintln(s.err, "vox run: --max-depth, --max-output-bytes and --max-value-bytes must be positive")
		return cliutil.ExitUsage
	}
	file, fn := pos[0], ""
	script := len(pos) == 1
	if !script {
		fn = pos[1]
	}
	src, err := safefs.ReadNamedFile(file, workspace.MaxSourceBytes)
	if err != nil {
		fmt.Fprintf(s.err, "vox run: %v\n", err)
		return cliutil.ExitProblem
	}
	compile := voxlang.Compile
	if script {
		compile = voxlang.CompileScript
	}
	m := compile(displayPath(file), src)
	if m.HasErrors() {
		for _, d := range m.Diagnostics() {
			if d.Severity == diag.Error {
				fmt.Fprintln(s.err, d)
			}
		}
		fmt.Fprintf(s.err, "vox run: %s does not compile\n", displayPath(file))
		return cliutil.ExitProblem
	}
	rc, err := findRunConfig(file, *root, *root != "")
	if err != nil {
		fmt.Fprintln(s.err, err)
		fmt.Fprintln(s.err, "vox run: the scan config is invalid; a server would refuse it too")
		return cliutil.ExitProblem
	}
	lim := rc.lower(voxlang.Limits{Steps: *steps, Timeout: *timeout, MaxDepth: *depth,
		MaxOutputBytes: *output, MaxValueBytes: *value, MaxAllocBytes: *alloc})
	// vox run grants what a server on the workspace would: the config's
	// request only once trusted (docs/security.md, Consent).
	powers, grant := workspace.DefaultConsent(op, skills.ConfigFromEnv(rc.root).Roots).Powers(rc.root, rc.cfg)
	fmt.Fprintln(s.err, rc.describe(grant))
	env := &voxlang.Env{
		Root:   rc.root,
		Powers: powers,
		Limits: lim,
		Log:    slog.New(slog.NewTextHandler(s.err, nil)),
	}
	if script {
		if !m.IsScript() && !m.HasFunc("main") {
			fmt.Fprintf(s.err, "vox run: %s has no top-level statements and no fn main: name the function to call (vox run FILE FUNC)\n", displayPath(file))
			return cliutil.ExitProblem
		}
		fn, env.Stdout = "main", s.out
	}
	res, err := m.Call(context.Background(), fn, []byte(*argsJSON), env)
	if err != nil {
		var e *voxlang.Error
		switch {
		case errors.As(err, &e) && e.Kind == voxlang.LimitError:
			where := ""
			if e.Line != 0 {
				where = fmt.Sprintf("%s:%d:%d: ", e.Path, e.Line, e.Col)
			}
			fmt.Fprintf(s.err, "%s%s limit of %d exceeded; %s%s\n", where, e.Limit, e.Max, rc.advice(e.Limit), e.Traceback())
		case errors.As(err, &e):
			fmt.Fprintln(s.err, e.Positioned())
		default:
			fmt.Fprintln(s.err, err)
		}
		return cliutil.ExitProblem
	}
	if script && string(res.JSON) == "null" {
		return cliutil.ExitOK
	}
	var text string
	if *raw && json.Unmarshal(res.JSON, &text) == nil {
		// The text as it is: a result that ends in a newline gets no
		// second one, as cat would print it.
		fmt.Fprint(s.out, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(s.out)
		}
		return cliutil.ExitOK
	}
	fmt.Fprintf(s.out, "%s\n", res.JSON)
	return cliutil.ExitOK
}
