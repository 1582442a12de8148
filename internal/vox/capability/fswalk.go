package capability

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// fs.walk, fs.glob, fs.stat and fs.list_dir_detailed: the read-only
// listings of the reference. A walk never follows a symbolic link (a link
// is neither listed nor descended into, so no link can lead it out of the
// workspace or round a cycle), opens every directory through os.Root,
// refuses to enter a directory it has entered before (by device and
// inode, or volume and file index on Windows: dirid_*.go, in case one is
// swapped for a link while it walks), reads
// directories in batches, and counts a step per entry and every path
// against the value-size limit as it goes: a huge tree fails at a limit,
// it does not exhaust memory first.

// walkBatch is how many entries a walk reads from a directory at once.
const walkBatch = 1024

// entryWork is the work of one directory entry, in the units of
// Thread.Work: a step per entry, which costs a system call or two.
const entryWork = 1024

// walk lists the regular files (and, with dirs, the directories) below
// the directory rel of root, as slash paths starting with rel ("" and "."
// list without a prefix). It returns the Err value of a directory that
// cannot be listed.
// maxDepth bounds how many levels below rel it lists (< 0: all).
// filter leaves entries out (walkfilter.go).
func walk(th *eval.Thread, method string, root *os.Root, rel, shown string, dirs bool, maxDepth int, filter *walkFilter) ([]string, *eval.Value) {
	type item struct {
		dir     string
		depth   int
		ignores int // the ignore patterns of the folders above it
	}
	seen := map[dirID]bool{}
	filter.start(th, root, rel)
	var out []string
	var size int64
	stack := []item{{rel, 1, len(filter.ignores)}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dir := it.dir
		// Depth first: every folder below the previous item is done, so
		// the patterns are back to those of the folders above dir.
		filter.ignores = filter.ignores[:it.ignores]
		f, err := root.OpenFile(dir, openFlags, 0)
		if err != nil {
			if isEscape(err) {
				th.Failf("capability denied: fs.%s outside the workspace", method)
			}
			if dir == rel {
				e := eval.ErrVal(eval.Str(errText(shown, err)))
				return nil, &e
			}
			continue // gone since it was listed
		}
		info, err := f.Stat()
		if err != nil || !info.IsDir() {
			f.Close()
			if dir == rel {
				e := eval.ErrVal(eval.Str(shown + ": not a directory"))
				return nil, &e
			}
			continue
		}
		if id, ok := dirIdentity(f, info); ok {
			if seen[id] {
				f.Close()
				continue
			}
			seen[id] = true
		}
		filter.enter(th, root, dir)
		below := len(filter.ignores)
		for {
			entries, err := f.ReadDir(walkBatch)
			for _, e := range entries {
				th.Work(entryWork + int64(len(filter.ignores))*64) // each ignore pattern is tried
				p := e.Name()
				if dir != "." && dir != "" {
					p = dir + "/" + p
				}
				switch t := e.Type(); {
				case (t.IsDir() || t.IsRegular()) && filter.skips(p, t.IsDir()):
					continue
				case t.IsDir():
					if maxDepth < 0 || it.depth < maxDepth {
						stack = append(stack, item{p, it.depth + 1, below})
					}
					if !dirs {
						continue
					}
				case !t.IsRegular():
					continue // links, pipes, sockets, devices
				}
				out = append(out, p)
				size += 16 + int64(len(p))
				th.CheckSize(size)
			}
			if err != nil || len(entries) == 0 {
				if err != nil && !errors.Is(err, io.EOF) && dir == rel {
					f.Close()
					e := eval.ErrVal(eval.Str(errText(shown, err)))
					return nil, &e
				}
				break
			}
		}
		f.Close()
	}
	th.Charge(size)
	slices.Sort(out)
	return out, nil
}

func strValues(parts []string) eval.Value {
	elems := make([]eval.Value, len(parts))
	for i, p := range parts {
		elems[i] = eval.Str(p)
	}
	return eval.NewList(elems)
}

func fsWalk(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	if len(args) == 0 {
		args = []eval.Value{eval.Str(".")}
	}
	filter, bad := walkOptions(th, "walk", args[1:])
	if bad != nil {
		return *bad
	}
	root, rel, p := fsOpen(th, c, "walk", args[:1])
	defer root.Close()
	files, bad := walk(th, "walk", root, rel, p, false, -1, filter)
	if bad != nil {
		return *bad
	}
	return eval.OkVal(strValues(files))
}

func fsGlob(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	written := strArg(th, "fs", "glob", args[0])
	filter, bad := walkOptions(th, "glob", args[1:])
	if bad != nil {
		return *bad
	}
	if strings.ContainsRune(written, '\\') {
		// Neither a separator (Vox paths are slash-separated on every
		// system, docs/security.md "Path rules") nor an escape: one
		// spelling means one thing everywhere.
		return eval.ErrVal(eval.Str("invalid glob pattern " + strconv.Quote(written) + ": a backslash is not allowed: separate folders with / on every system (write " + strconv.Quote(strings.ReplaceAll(written, `\`, "/")) + "), and match a literal *, ?, [ or { with [*], [?], [[] or [{]"))
	}
	if !doublestar.ValidatePattern(written) || written == "" {
		return eval.ErrVal(eval.Str("invalid glob pattern " + strconv.Quote(written) + ": use * ? [...] {a,b} and ** for any number of folders"))
	}
	pattern := path.Clean(written) // the paths a walk gives are clean
	base, rest := doublestar.SplitPattern(pattern)
	root, rel, _ := fsOpen(th, c, "glob", []eval.Value{eval.Str(base)})
	defer root.Close()
	if _, err := root.Lstat(rel); err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.glob outside the workspace")
		}
		return eval.OkVal(eval.NewList([]eval.Value{}))
	}
	depth := -1 // ** reaches any depth; else one level per segment
	if !strings.Contains(rest, "**") {
		depth = strings.Count(rest, "/") + 1
	}
	paths, bad := walk(th, "glob", root, rel, base, true, depth, filter)
	if bad != nil {
		return *bad
	}
	var out []string
	for _, p := range paths {
		if ok, _ := doublestar.Match(pattern, p); ok {
			out = append(out, p)
		}
	}
	return eval.OkVal(strValues(out))
}

// statObject is the reference's stat object: name, path, size,
// modified_ms, is_dir, is_file, is_symlink.
func statObject(name, p string, info, linkInfo fs.FileInfo) eval.Value {
	o := &eval.Object{}
	o.Set("name", eval.Str(name))
	o.Set("path", eval.Str(p))
	o.Set("size", eval.Int(info.Size()))
	o.Set("modified_ms", eval.Int(info.ModTime().UnixMilli()))
	o.Set("is_dir", eval.Bool(info.IsDir()))
	o.Set("is_file", eval.Bool(info.Mode().IsRegular()))
	o.Set("is_symlink", eval.Bool(linkInfo != nil && linkInfo.Mode()&fs.ModeSymlink != 0))
	return eval.NewObject(o)
}

func fsStat(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "stat", args)
	defer root.Close()
	linkInfo, err := root.Lstat(rel)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.stat outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	info, err := root.Stat(rel) // follows a link inside the workspace
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.stat outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	return eval.OkVal(statObject(path.Base(rel), rel, info, linkInfo))
}

func fsListDirDetailed(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	if len(args) == 0 {
		args = []eval.Value{eval.Str(".")}
	}
	root, rel, p := fsOpen(th, c, "list_dir_detailed", args)
	defer root.Close()
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.list_dir_detailed outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.IsDir() {
		return eval.ErrVal(eval.Str(p + ": not a directory"))
	}
	var objs []eval.Value
	var size int64
	for {
		entries, err := f.ReadDir(walkBatch)
		for _, e := range entries {
			th.Work(entryWork)
			linkInfo, lerr := e.Info()
			if lerr != nil {
				continue // gone since it was listed
			}
			ep := e.Name()
			if rel != "." {
				ep = rel + "/" + ep
			}
			info := linkInfo
			if linkInfo.Mode()&fs.ModeSymlink != 0 {
				if target, err := root.Stat(ep); err == nil {
					info = target // a link inside the workspace describes its target
				}
			}
			objs = append(objs, statObject(e.Name(), ep, info, linkInfo))
			size += 16 + 7*32 + 2*int64(len(ep))
			th.CheckSize(size)
		}
		if err != nil || len(entries) == 0 {
			break
		}
	}
	th.Charge(size)
	slices.SortFunc(objs, func(a, b eval.Value) int {
		an, _ := a.Object().Get("name")
		bn, _ := b.Object().Get("name")
		switch x, y := an.Str(), bn.Str(); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	if objs == nil {
		objs = []eval.Value{}
	}
	return eval.OkVal(eval.NewList(objs))
}
