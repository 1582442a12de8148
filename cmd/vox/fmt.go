package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/cliutil"
	"github.com/vox-lang/vox-mcp/internal/vox/format"
)

// runFmt is "vox fmt [-l] [--check] [-w] [PATH...]", gofmt for .vox files
// (internal/vox/format): without flags it prints each file in the
// canonical layout on stdout; -l lists the files whose layout differs;
// --check lists them on stderr and exits 1 when there is one; -w rewrites
// them in place, atomically (a file beside the original, then a rename,
// so a reader never sees a partial file). A folder contributes its .vox
// files, recursively, skipping folders whose names start with a dot.
// Without a path it formats stdin to stdout. A file that does not parse
// is reported as path:line:col: message and makes the run exit 1.
func runFmt(s *streams, args []string) int {
	flags := cliutil.NewFlagSet("vox fmt", s.err)
	list := flags.Bool("l", false, "list the files whose formatting differs")
	check := flags.Bool("check", false, "exit 1, naming the files, when any file's formatting differs")
	write := flags.Bool("w", false, "write the formatted files in place")
	flags.Usage = func() {
		fmt.Fprintln(s.err, "usage: vox fmt [-l] [--check] [-w] [PATH...]  (no PATH: stdin to stdout)")
		flags.PrintDefaults()
	}
	paths, err := cliutil.Parse(flags, args)
	if err != nil {
		return usageExit(err)
	}
	if len(paths) == 0 {
		if *write {
			fmt.Fprintln(s.err, "vox fmt: -w needs a file or folder to write (stdin has none)")
			return cliutil.ExitUsage
		}
		src, err := io.ReadAll(s.in)
		if err != nil {
			fmt.Fprintf(s.err, "vox fmt: reading stdin: %v\n", err)
			return cliutil.ExitProblem
		}
		out, err := format.Source("<stdin>", src)
		if err != nil {
			fmt.Fprintln(s.err, err)
			return cliutil.ExitProblem
		}
		if *list || *check {
			if !bytes.Equal(out, src) {
				fmt.Fprintln(s.out, "<stdin>")
				if *check {
					fmt.Fprintln(s.err, "vox fmt: <stdin> is not formatted")
					return cliutil.ExitProblem
				}
			}
			return cliutil.ExitOK
		}
		s.out.Write(out)
		return cliutil.ExitOK
	}
	files, failed := fmtFiles(s, paths)
	var differ []string
	for _, file := range files {
		name := displayPath(file)
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(s.err, "vox fmt: %v\n", err)
			failed = true
			continue
		}
		out, err := format.Source(name, src)
		if err != nil {
			fmt.Fprintln(s.err, err)
			failed = true
			continue
		}
		same := bytes.Equal(out, src)
		if !same {
			differ = append(differ, name)
		}
		switch {
		case *list || *check:
			if !same && *list {
				fmt.Fprintln(s.out, name)
			}
			if *write && !same {
				if err := writeAtomic(file, out); err != nil {
					fmt.Fprintf(s.err, "vox fmt: %v\n", err)
					failed = true
				}
			}
		case *write:
			if !same {
				if err := writeAtomic(file, out); err != nil {
					fmt.Fprintf(s.err, "vox fmt: %v\n", err)
					failed = true
				}
			}
		default:
			s.out.Write(out)
		}
	}
	if *check && len(differ) > 0 && !*write {
		fmt.Fprintf(s.err, "vox fmt: %d file(s) not formatted: %s (run vox fmt -w on them)\n", len(differ), strings.Join(differ, ", "))
		return cliutil.ExitProblem
	}
	if failed {
		return cliutil.ExitProblem
	}
	return cliutil.ExitOK
}

// fmtFiles expands the arguments as vox check does: a named file whatever
// its extension, the .vox files under a named folder.
func fmtFiles(s *streams, paths []string) (files []string, failed bool) {
	seen := map[string]bool{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(s.err, "vox fmt: %v\n", err)
			failed = true
			continue
		}
		if !info.IsDir() {
			if !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
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
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".vox") && !seen[path] {
				seen[path] = true
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintf(s.err, "vox fmt: %v\n", err)
			failed = true
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, failed
}

// writeAtomic replaces file with data: it writes a temporary file in the
// same folder, with the original's permissions, and renames it over the
// original, so the file is either the old one or the whole new one.
func writeAtomic(file string, data []byte) error {
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".fmt-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Chmod(name, info.Mode().Perm())
	}
	if werr == nil {
		werr = os.Rename(name, file)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("writing %s: %v", file, werr)
	}
	return nil
}
