// Package cliutil holds the command-line conventions shared by vox and
// vox-mcp: flags may come before or after positional arguments, exit codes
// are 0 (success), 1 (problems found or a call failed) and 2 (usage error).
package cliutil

import (
	"errors"
	"flag"
	"io"
)

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitProblem = 1
	ExitUsage   = 2
)

// Parse parses args with fs, allowing flags before and after positional
// arguments (the standard flag package stops at the first positional). An
// argument "--" ends flag parsing; everything after it is positional. It
// returns the positional arguments in order. A -h/--help request returns
// flag.ErrHelp after fs printed its usage.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs.Parse consumed a "--" terminator when it stopped there; detect
		// it by comparing with the input to keep the remainder verbatim.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// NewFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to w.
func NewFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}

// IsHelp reports whether err is a help request (-h, --help).
func IsHelp(err error) bool { return errors.Is(err, flag.ErrHelp) }
