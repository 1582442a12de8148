package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/internal/trust"
	voxlang "github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// runConfig is the scan config vox run calls a function with, so that
// the call sees what a server on the same repository would: the config's
// limits lower vox run's own (as they lower the server's maxima), and
// what it asks for (env_allow, write_globs) is granted as a server grants
// it: once vox trust recorded it (docs/security.md, Consent).
type runConfig struct {
	root    string            // the workspace root: fs.* reads below it
	shown   string            // the root as messages show it
	file    string            // the config file read, as displayed; "" when there is none
	cfg     *workspace.Config // DefaultConfig when there is no file
	lowered map[string]bool   // the limit keys whose value comes from the config
}

// findRunConfig finds the workspace root and its scan config: --root when
// given, else the nearest directory above the .vox file that holds a
// scan config, stopping at the repository's root (a directory with
// .git), else the current directory. A config that does not parse is an
// error, as the server refuses it.
func findRunConfig(file, root string, rootSet bool) (*runConfig, error) {
	if !rootSet {
		root = "."
		abs, err := filepath.Abs(filepath.Dir(file))
		if err != nil {
			return nil, err
		}
		for dir := abs; ; {
			if exists(filepath.Join(dir, filepath.FromSlash(workspace.ConfigPath))) {
				root = dir
				break
			}
			if exists(filepath.Join(dir, ".git")) {
				root = dir // a repository without a config: the server's root
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	rc := &runConfig{root: root, shown: root, lowered: map[string]bool{}}
	if !rootSet {
		rc.shown = relToWD(root)
	}
	cfgPath := filepath.Join(root, filepath.FromSlash(workspace.ConfigPath))
	if _, err := os.Stat(cfgPath); errors.Is(err, fs.ErrNotExist) {
		rc.cfg = workspace.DefaultConfig()
		return rc, nil
	}
	rc.file = relToWD(cfgPath)
	cfg, err := workspace.LoadConfig(root)
	if err != nil {
		return nil, err
	}
	rc.cfg = cfg
	return rc, nil
}

// relToWD is p relative to the current directory when it can be, so that
// a config one level up reads ../contracts/...; else p.
func relToWD(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// limitFlag names vox run's flag for each limit key.
var limitFlag = map[string]string{
	"steps":            "steps",
	"timeout_ms":       "timeout",
	"max_depth":        "max-depth",
	"max_output_bytes": "max-output-bytes",
	"max_value_bytes":  "max-value-bytes",
	"max_alloc_bytes":  "max-alloc-bytes",
}

// lower lowers lim, vox run's limits from its flags (0 lifts steps,
// timeout and max-alloc-bytes), by the values the config sets, as a
// server's maxima are lowered: a config value of 0 or above the limit
// keeps the limit.
func (rc *runConfig) lower(lim voxlang.Limits) voxlang.Limits {
	req := rc.cfg.Limits.Request()
	low := func(key string, cur *int64, v int64) {
		if v > 0 && (*cur <= 0 || v < *cur) {
			*cur = v
			rc.lowered[key] = true
		}
	}
	low("steps", &lim.Steps, req.Steps)
	timeout := int64(lim.Timeout)
	low("timeout_ms", &timeout, int64(req.Timeout))
	lim.Timeout = time.Duration(timeout)
	depth := int64(lim.MaxDepth)
	low("max_depth", &depth, int64(req.MaxDepth))
	lim.MaxDepth = int(depth)
	low("max_output_bytes", &lim.MaxOutputBytes, req.MaxOutputBytes)
	low("max_value_bytes", &lim.MaxValueBytes, req.MaxValueBytes)
	low("max_alloc_bytes", &lim.MaxAllocBytes, req.MaxAllocBytes)
	return lim
}

// describe is the line vox run writes to stderr before the call: which
// config it used, what it took from it and what it withheld.
func (rc *runConfig) describe(g trust.Grant) string {
	if rc.file == "" {
		return fmt.Sprintf("vox run: no scan config in %s; vox run's limits apply, and %s", rc.shown, granted(g))
	}
	var set []string
	for _, key := range []string{"steps", "timeout_ms", "max_depth", "max_output_bytes", "max_value_bytes", "max_alloc_bytes"} {
		if rc.lowered[key] {
			set = append(set, key)
		}
	}
	limits := "no limit lower than vox run's"
	if len(set) > 0 {
		limits = "its " + strings.Join(set, ", ") + " limit"
		if len(set) > 1 {
			limits += "s"
		}
	}
	return fmt.Sprintf("vox run: scan config %s: %s; %s", rc.file, limits, granted(g))
}

// granted says what env.get and fs.write may do, and what the scan
// config asked for that is withheld, with the command that grants it.
func granted(g trust.Grant) string {
	env := "env.get reads no variable"
	if len(g.Env) > 0 {
		env = "env.get reads " + strings.Join(g.Env, ", ")
	}
	if w := append(slices.Clone(g.Write), g.OperatorWrite...); len(w) > 0 {
		env += "; fs.write writes " + strings.Join(w, ", ")
	}
	if !g.Withheld.Empty() {
		env += "; withheld: " + g.Withheld.String() + " (" + g.Reason() + "; " + g.Hint() + ")"
	}
	return env
}

// advice ends the error of an exceeded limit: the config file when the
// limit came from it, else vox run's flag. It names no file vox run did
// not read.
func (rc *runConfig) advice(key string) string {
	flag := limitFlag[key]
	if rc.lowered[key] {
		return fmt.Sprintf("raise limits.%s in %s (a server on this repository stops there too)", key, rc.file)
	}
	if flag == "" {
		return "a limit of vox run"
	}
	return "pass --" + flag + " to raise it"
}
