// Package capability provides the namespaces through which Vox code reaches
// outside the interpreter (spec 20-vox-language §6): fs (read-only, confined
// to the workspace root), env (an allowlist), json, path and time. Writing
// files, running processes and network access do not exist: every such
// call fails with "capability denied: <ns>.<method>".
//
// fs opens the workspace through os.Root, which resolves every path inside
// the root and refuses a path that leaves it, through ".." or through a
// symbolic link; absolute paths and paths that escape lexically are
// refused before any file is touched.
package capability

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/eval"
)

// Config is what the namespaces may reach.
type Config struct {
	Root     string   // the workspace root for fs.*
	EnvAllow []string // the only variables env.get may read
}

// Namespaces returns the namespaces for a call.
func Namespaces(cfg Config) map[string]eval.Namespace {
	return map[string]eval.Namespace{
		"fs":   fsNS{root: cfg.Root},
		"env":  envNS{allow: cfg.EnvAllow},
		"json": jsonNS{},
		"path": pathNS{},
		"time": timeNS{},
	}
}

func argCount(th *eval.Thread, ns, method string, args []eval.Value, names []string, n int) {
	for _, name := range names {
		if name != "" {
			th.Failf("%s.%s: unknown argument %s", ns, method, name)
		}
	}
	if len(args) != n {
		th.Failf("%s.%s takes %d argument(s), got %d", ns, method, n, len(args))
	}
}

func strArg(th *eval.Thread, ns, method string, v eval.Value) string {
	if v.Kind() != eval.KStr {
		th.Failf("%s.%s needs a str, got %s", ns, method, kindName(v))
	}
	return v.Str()
}

func kindName(v eval.Value) string {
	switch v.Kind() {
	case eval.KInt:
		return "int"
	case eval.KFloat:
		return "float"
	case eval.KBool:
		return "bool"
	case eval.KNull:
		return "Unit"
	case eval.KList:
		return "list"
	case eval.KObject:
		return "map"
	}
	return "a value that is not a str"
}

// ---- fs ----

type fsNS struct{ root string }

func (n fsNS) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	switch method {
	case "read", "exists", "list_dir":
	default:
		return eval.Value{}, false // writes and everything else: denied
	}
	argCount(th, "fs", method, args, names, 1)
	p := strArg(th, "fs", method, args[0])
	rel := n.confine(th, method, p)
	root, err := os.OpenRoot(n.root)
	if err != nil {
		th.Failf("fs.%s: cannot open the workspace root: %v", method, err)
	}
	defer root.Close()
	switch method {
	case "exists":
		_, err := root.Stat(rel)
		if err != nil && isEscape(err) {
			th.Failf("capability denied: fs.exists outside the workspace")
		}
		return eval.Bool(err == nil), true
	case "read":
		return n.read(th, root, rel, p), true
	default:
		return n.listDir(th, root, rel, p), true
	}
}

// confine refuses absolute paths and paths that leave the root lexically,
// and returns the cleaned relative path.
func (fsNS) confine(th *eval.Thread, method, p string) string {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':') || strings.ContainsRune(p, 0) {
		th.Failf("capability denied: fs.%s outside the workspace", method)
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		th.Failf("capability denied: fs.%s outside the workspace", method)
	}
	return clean
}

// isEscape reports whether os.Root refused a path for leaving the root
// (through a symbolic link, typically).
func isEscape(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err != nil && err.Error() == "path escapes from parent"
}

func errText(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return p + ": no such file or directory"
	}
	return p + ": " + err.Error()
}

func (fsNS) read(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	f, err := root.Open(rel)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.read outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	if info.IsDir() {
		return eval.ErrVal(eval.Str(p + ": is a directory"))
	}
	th.CheckSize(info.Size())
	limit := th.MaxValueBytes()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	th.CheckSize(int64(len(data)))
	th.Charge(int64(len(data)))
	if !utf8.Valid(data) {
		return eval.ErrVal(eval.Str(p + ": not valid UTF-8"))
	}
	return eval.OkVal(eval.Str(string(data)))
}

func (fsNS) listDir(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	f, err := root.Open(rel)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.list_dir outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return eval.ErrVal(eval.Str(p + ": not a directory"))
	}
	names := make([]string, len(entries))
	var size int64
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
		size += 16 + int64(len(names[i]))
	}
	th.CheckSize(size)
	slices.Sort(names)
	elems := make([]eval.Value, len(names))
	for i, name := range names {
		elems[i] = eval.Str(name)
	}
	return eval.OkVal(eval.NewList(elems))
}

// ---- env ----

type envNS struct{ allow []string }

func (n envNS) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	if method != "get" {
		return eval.Value{}, false
	}
	argCount(th, "env", method, args, names, 1)
	name := strArg(th, "env", method, args[0])
	if !slices.Contains(n.allow, name) {
		return eval.None, true
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return eval.None, true
	}
	return eval.Some(eval.Str(v)), true
}

// ---- json ----

type jsonNS struct{}

func (jsonNS) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	switch method {
	case "parse":
		argCount(th, "json", method, args, names, 1)
		s := strArg(th, "json", method, args[0])
		v, err := eval.DecodeJSON([]byte(s), th.MaxValueBytes())
		if err != nil {
			return eval.ErrVal(eval.Str(err.Error())), true
		}
		return eval.OkVal(v), true
	case "stringify":
		argCount(th, "json", method, args, names, 1)
		return eval.Str(th.EncodeJSON(args[0])), true
	}
	return eval.Value{}, false
}

// ---- path ----

type pathNS struct{}

func (pathNS) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	switch method {
	case "join":
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = strArg(th, "path", method, a)
		}
		return eval.Str(path.Join(parts...)), true
	case "base", "dir", "ext":
		argCount(th, "path", method, args, names, 1)
		p := strArg(th, "path", method, args[0])
		switch method {
		case "base":
			return eval.Str(path.Base(p)), true
		case "dir":
			return eval.Str(path.Dir(p)), true
		}
		return eval.Str(path.Ext(p)), true
	}
	return eval.Value{}, false
}

// ---- time ----

type timeNS struct{}

func (timeNS) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	if method != "now_unix" {
		return eval.Value{}, false
	}
	argCount(th, "time", method, args, names, 0)
	return eval.Int(time.Now().Unix()), true
}
