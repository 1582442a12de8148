package capability

import (
	"bufio"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// What fs.walk and fs.glob leave out by default: the .git folder and what
// the repository's ignore files ignore (.gitignore in each folder from the
// workspace root down, and .git/info/exclude), as git itself lists a tree;
// and whatever the options' excludes match. The user's global excludes
// file is not read: it belongs to the person, not to the repository, and
// would make a tool answer differently on each machine
// (docs/vox-language.md, fs). The patterns are git's, matched by go-git's
// gitignore package; the ignore files are read through the workspace's
// os.Root like every other file, at most maxIgnoreBytes each.

// maxIgnoreBytes bounds one ignore file: past it the rest is not read.
const maxIgnoreBytes = 1 << 20

// walkFilter decides which entries a walk leaves out.
type walkFilter struct {
	git      bool     // leave out .git and what the ignore files ignore
	excludes []string // doublestar patterns over the listed paths
	ignores  []gitignore.Pattern
}

// walkOptions reads the options map of fs.walk and fs.glob ({excludes:
// list[str], include_ignored: bool}); a bad option is the call's Err.
func walkOptions(th *eval.Thread, method string, args []eval.Value) (*walkFilter, *eval.Value) {
	f := &walkFilter{git: true}
	if len(args) == 0 {
		return f, nil
	}
	bad := func(msg string) (*walkFilter, *eval.Value) {
		e := eval.ErrVal(eval.Str("fs." + method + ": " + msg + "; the options are {excludes: list[str], include_ignored: bool}"))
		return nil, &e
	}
	opts := args[0]
	if opts.Kind() != eval.KObject {
		return bad("the options are " + th.Display(opts) + ", not a map")
	}
	for _, k := range opts.Object().Keys() {
		v, _ := opts.Object().Get(k)
		switch k {
		case "excludes":
			if v.Kind() != eval.KList {
				return bad("excludes is " + th.Display(v) + ", not a list of glob patterns")
			}
			for _, p := range v.List().Elems() {
				if p.Kind() != eval.KStr || !doublestar.ValidatePattern(p.Str()) || strings.ContainsRune(p.Str(), '\\') {
					return bad("excludes holds " + th.Display(p) + ", not a glob pattern (* ? [...] {a,b} **, folders separated by /)")
				}
				f.excludes = append(f.excludes, path.Clean(p.Str()))
			}
		case "include_ignored":
			if v.Kind() != eval.KBool {
				return bad("include_ignored is " + th.Display(v) + ", not a bool")
			}
			f.git = !v.Bool()
		default:
			return bad("unknown option " + strconv.Quote(k))
		}
	}
	return f, nil
}

// start reads the ignore files that apply above the walked folder rel:
// .git/info/exclude and the .gitignore of each folder from the root down
// to rel's parent (rel's own is read when the walk enters it).
func (f *walkFilter) start(th *eval.Thread, root *os.Root, rel string) {
	if !f.git {
		return
	}
	f.ignores = append(f.ignores, readIgnore(th, root, ".git/info/exclude", nil)...)
	if rel == "." || rel == "" {
		return
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		dir := strings.Join(parts[:i], "/")
		f.enter(th, root, dir)
	}
}

// enter reads the .gitignore of the folder dir as the walk enters it.
func (f *walkFilter) enter(th *eval.Thread, root *os.Root, dir string) {
	if !f.git {
		return
	}
	var domain []string
	name := ".gitignore"
	if dir != "" && dir != "." {
		domain = strings.Split(dir, "/")
		name = dir + "/.gitignore"
	}
	f.ignores = append(f.ignores, readIgnore(th, root, name, domain)...)
}

// skips reports whether the entry at slash path p (a folder when dir) is
// left out: it is then neither listed nor entered.
func (f *walkFilter) skips(p string, dir bool) bool {
	if f.git {
		if path.Base(p) == ".git" {
			return true
		}
		if len(f.ignores) > 0 && gitignore.NewMatcher(f.ignores).Match(strings.Split(p, "/"), dir) {
			return true
		}
	}
	return slices.ContainsFunc(f.excludes, func(pattern string) bool {
		ok, _ := doublestar.Match(pattern, p)
		return ok
	})
}

// readIgnore parses one ignore file; a missing or unreadable one has no
// patterns. Its bytes count as the walk's work.
func readIgnore(th *eval.Thread, root *os.Root, name string, domain []string) []gitignore.Pattern {
	file, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil
	}
	defer file.Close()
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	var out []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(file, maxIgnoreBytes))
	for sc.Scan() {
		line := sc.Text()
		th.Work(int64(len(line)) + 1)
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}
