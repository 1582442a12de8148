package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	voxlang "github.com/vox-lang/vox-mcp/internal/vox"
	"github.com/vox-lang/vox-mcp/internal/vox/check"
	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// runCheck is "vox check [--format text|json] [--compat] [--strict] [PATH...]": it
// compiles every .vox file named or found under the named folders
// (without paths: the files of the project's scanned surface, as the
// server scans them), prints each diagnostic as rustc does
// ("path:line:col: severity: message [code]", the source line with a
// caret, "= help:" lines; diag.Render) on stderr and the summary "checked
// F file(s): E error(s), W warning(s)" on stdout, or with --format json
// the report {"ok": bool, "diagnostics": [D]} on stdout. --compat adds the
// checker's vox/compat/... warnings; --strict reports as errors what the
// reference's checker rejects and vox-mcp tolerates (undefined names,
// methods on receivers of unknown type). It exits 1 when any diagnostic
// is an error.
func runCheck(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox check", s.err)
	format := flags.String("format", "text", "output format: text or json")
	compat := flags.Bool("compat", false, "also warn of what the reference compiler rejects (vox/compat/...)")
	strict := flags.Bool("strict", false, "report as errors what the reference's checker rejects: undefined names, methods on receivers of unknown type")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox check [--format text|json] [--compat] [--strict] [PATH...]  (no PATH: the project's scanned surface)")
		flags.PrintDefaults()
	}
	paths, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(s.err, "vox check: --format must be text or json, not %q\n", *format)
		return cliutil.ExitUsage
	}
	var files []string
	var failed bool
	if len(paths) == 0 {
		files, failed = surfaceFiles(s)
	} else {
		files, failed = checkFiles(s, paths)
	}
	// The files compile in parallel, one worker per processor; the
	// output is in the order of the files whatever the scheduling.
	type checked struct {
		path  string
		src   []byte
		diags []diag.Diagnostic
		err   error
	}
	results := make([]checked, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				r := &results[i]
				r.path = displayPath(files[i])
				r.src, r.err = safefs.ReadNamedFile(files[i], workspace.MaxSourceBytes)
				if r.err == nil {
					r.diags = voxlang.CompileWith(r.path, r.src, check.Options{Compat: *compat, Strict: *strict}).Diagnostics()
				}
			}
		}()
	}
	wg.Wait()
	var all diag.List
	sources := map[string][]byte{}
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(s.err, "vox check: %v\n", r.err)
			failed = true
			continue
		}
		sources[r.path] = r.src
		all = append(all, r.diags...)
	}
	errs, warns := all.Count()
	if *format == "json" {
		diags := []diag.Diagnostic(all)
		if diags == nil {
			diags = []diag.Diagnostic{}
		}
		out, _ := json.Marshal(struct {
			OK          bool              `json:"ok"`
			Diagnostics []diag.Diagnostic `json:"diagnostics"`
		}{errs == 0 && !failed, diags})
		fmt.Fprintf(s.out, "%s\n", out)
	} else {
		for _, d := range all {
			fmt.Fprint(s.err, d.Render(sources[d.Path]))
		}
		fmt.Fprintf(s.out, "checked %d file(s): %d error(s), %d warning(s)\n", len(files), errs, warns)
	}
	if errs > 0 || failed {
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// surfaceFiles lists the files of the project's scanned surface, as the
// server scans them: the root and scan config found as vox run finds them
// from the current directory (the config's scan_globs and exclude_globs,
// or the defaults). A scan error is reported and fails the run.
func surfaceFiles(s *streams) (files []string, failed bool) {
	rc, err := findRunConfig(filepath.Join(".", "vox-check"), "", false)
	if err != nil {
		fmt.Fprintf(s.err, "vox check: %v\n", err)
		return nil, true
	}
	found, scanErrs, err := workspace.Scan(rc.root, rc.cfg)
	if err != nil {
		fmt.Fprintf(s.err, "vox check: %v\n", err)
		return nil, true
	}
	for _, e := range scanErrs {
		fmt.Fprintf(s.err, "%s: error: %s\n", e.Path, e.Message)
		failed = true
	}
	for _, f := range found {
		files = append(files, f.Abs)
	}
	return files, failed
}

// checkFiles expands the arguments: a file is checked whatever its
// extension; a folder contributes its .vox files, recursively, skipping
// folders whose names start with a dot. A path that does not exist is
// reported and makes the run fail.
func checkFiles(s *streams, paths []string) (files []string, failed bool) {
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(s.err, "vox check: %v\n", err)
			failed = true
			continue
		}
		if !info.IsDir() {
			add(p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".vox") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintf(s.err, "vox check: %v\n", err)
			failed = true
		}
		sort.Strings(found)
		for _, f := range found {
			add(f)
		}
	}
	return files, failed
}

// displayPath is the path shown in diagnostics: relative to the current
// directory when the file is under it, else as given; with forward
// slashes.
func displayPath(p string) string {
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}
