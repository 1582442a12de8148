// Package capability provides the namespaces through which Vox code reaches
// outside the interpreter (docs/vox-language.md, Capabilities): fs (read-only, confined
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
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/runtime/vox/eval"
)

// Config is what the namespaces may reach.
type Config struct {
	Root     string   // the workspace root for fs.*
	EnvAllow []string // the only variables env.get may read
}

// Namespace is one capability namespace and its functions. A namespace
// without functions exists only to deny every call with "capability
// denied: <ns>.<method>".
type Namespace struct {
	Name  string
	Funcs []*Func

	// deniedElse: calling a function the namespace lacks is "capability
	// denied" (fs.write does not exist because writing is not allowed)
	// rather than "undefined" (json.frobnicate is a typo).
	deniedElse bool
	index      map[string]*Func
}

// Func is one capability function: name, signature and implementation.
// The implementation gets arguments whose number fits the signature.
type Func struct {
	Name string
	Sig  eval.Signature

	fn       func(th *eval.Thread, c *Config, args []eval.Value) eval.Value
	min, max int
}

// table is every namespace, one entry each: the resolver's universe, the
// dispatch of calls and the reference table in docs/vox-language.md come
// from it. Adding a capability function is an entry here, its test and a
// sentence in the doc.
var table = []*Namespace{
	{Name: "fs", deniedElse: true, Funcs: []*Func{
		{Name: "read", fn: fsRead, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "Result[str, str]",
			Notes: "a regular file inside the workspace, as UTF-8 text"}},
		{Name: "exists", fn: fsExists, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "bool"}},
		{Name: "list_dir", fn: fsListDir, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "Result[list[str], str]",
			Notes: "entry names sorted bytewise, directories suffixed /"}},
	}},
	{Name: "env", deniedElse: true, Funcs: []*Func{
		{Name: "get", fn: envGet, Sig: eval.Signature{Params: []eval.Param{{Name: "name", Type: "str"}}, Result: "Option[str]",
			Notes: "None unless the name is in the scan config's env_allow and set"}},
	}},
	{Name: "json", Funcs: []*Func{
		{Name: "parse", fn: jsonParse, Sig: eval.Signature{Params: []eval.Param{{Name: "s", Type: "str"}}, Result: "Result[any, str]",
			Notes: "objects keep their key order; integral numbers that fit 64 bits are ints"}},
		{Name: "stringify", fn: jsonStringify, Sig: eval.Signature{Params: []eval.Param{{Name: "value", Type: "any"}}, Result: "str",
			Notes: "compact JSON"}},
	}},
	{Name: "path", Funcs: []*Func{
		{Name: "join", fn: pathJoin, Sig: eval.Signature{Params: []eval.Param{{Name: "parts", Type: "str", Variadic: true}}, Result: "str",
			Notes: "slash-separated, cleaned"}},
		{Name: "base", fn: pathBase, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "str"}},
		{Name: "dir", fn: pathDir, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "str"}},
		{Name: "ext", fn: pathExt, Sig: eval.Signature{Params: []eval.Param{{Name: "path", Type: "str"}}, Result: "str",
			Notes: "with the dot; \"\" when none"}},
	}},
	{Name: "time", Funcs: []*Func{
		{Name: "now_unix", fn: timeNowUnix, Sig: eval.Signature{Result: "int", Notes: "seconds since 1970 (UTC)"}},
	}},
	{Name: "process"}, {Name: "http"}, {Name: "net"}, {Name: "shell"}, {Name: "exec"},
}

var names []string

func init() {
	for _, ns := range table {
		names = append(names, ns.Name)
		ns.index = map[string]*Func{}
		for _, f := range ns.Funcs {
			f.min, f.max = f.Sig.Arity()
			ns.index[f.Name] = f
		}
	}
}

// Table returns every namespace, in the order of Names. The entries must
// not be changed.
func Table() []*Namespace { return table }

// Names returns the names of the namespaces, for the resolver's universe.
func Names() []string { return names }

// Namespaces returns the namespaces that provide functions, configured
// for a call.
func Namespaces(cfg Config) map[string]eval.Namespace {
	c := &cfg
	out := make(map[string]eval.Namespace, len(table))
	for _, ns := range table {
		if len(ns.Funcs) > 0 {
			out[ns.Name] = bound{ns, c}
		}
	}
	return out
}

// bound is a namespace with the configuration of a call.
type bound struct {
	ns  *Namespace
	cfg *Config
}

func (b bound) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	f := b.ns.index[method]
	if f == nil {
		if !b.ns.deniedElse {
			th.Failf("undefined: %s.%s", b.ns.Name, method)
		}
		return eval.Value{}, false // eval reports: capability denied
	}
	for _, name := range names {
		if name != "" {
			th.Failf("%s.%s: unknown argument %s", b.ns.Name, method, name)
		}
	}
	switch n := len(args); {
	case f.min == f.max && n != f.min:
		th.Failf("%s.%s takes %d argument(s), got %d", b.ns.Name, method, f.min, n)
	case n < f.min:
		th.Failf("%s.%s takes at least %d argument(s), got %d", b.ns.Name, method, f.min, n)
	case n > f.max:
		th.Failf("%s.%s takes at most %d argument(s), got %d", b.ns.Name, method, f.max, n)
	}
	return f.fn(th, b.cfg, args), true
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

// fsOpen confines the path argument of fs.<method> and opens the
// workspace root.
func fsOpen(th *eval.Thread, c *Config, method string, args []eval.Value) (root *os.Root, rel, p string) {
	p = strArg(th, "fs", method, args[0])
	rel = confine(th, method, p)
	root, err := os.OpenRoot(c.Root)
	if err != nil {
		th.Failf("fs.%s: cannot open the workspace root: %v", method, err)
	}
	return root, rel, p
}

func fsExists(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, _ := fsOpen(th, c, "exists", args)
	defer root.Close()
	_, err := root.Stat(rel)
	if err != nil && isEscape(err) {
		th.Failf("capability denied: fs.exists outside the workspace")
	}
	return eval.Bool(err == nil)
}

func fsRead(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "read", args)
	defer root.Close()
	return read(th, root, rel, p)
}

func fsListDir(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "list_dir", args)
	defer root.Close()
	return listDir(th, root, rel, p)
}

// confine refuses absolute paths and paths that leave the root lexically,
// and returns the cleaned relative path.
func confine(th *eval.Thread, method, p string) string {
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
	return errEscapes != nil && errors.Is(err, errEscapes)
}

// errEscapes is os.Root's error for a path that leaves the root. The os
// package does not export it, so it is taken once from os.Root itself:
// errors.Is then recognises it without comparing error texts.
var errEscapes = func() error {
	r, err := os.OpenRoot(os.TempDir())
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Stat("../escape")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}()

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

// openFlags open whatever a path names without waiting and without side
// effects on the call: O_NONBLOCK makes opening a FIFO that has no writer
// return at once (instead of blocking the worker for good), O_NOCTTY
// keeps a terminal from becoming the server's controlling terminal. What
// was opened is then checked with fstat on the descriptor itself, so a
// file swapped between a check and the open cannot slip through.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// kindOf names what a file that is neither regular nor a directory is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func read(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	f, err := root.OpenFile(rel, openFlags, 0)
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
	if !info.Mode().IsRegular() {
		return eval.ErrVal(eval.Str(p + ": is " + kindOf(info.Mode()) + "; fs.read reads regular files only"))
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

func listDir(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.list_dir outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && !info.IsDir() {
		if !info.Mode().IsRegular() {
			return eval.ErrVal(eval.Str(p + ": is " + kindOf(info.Mode()) + "; fs.list_dir lists directories only"))
		}
		return eval.ErrVal(eval.Str(p + ": not a directory"))
	}
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

func envGet(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	name := strArg(th, "env", "get", args[0])
	if !slices.Contains(c.EnvAllow, name) {
		return eval.None
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return eval.None
	}
	return eval.Some(eval.Str(v))
}

// ---- json ----

func jsonParse(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "json", "parse", args[0])
	th.Charge(int64(len(s)))
	v, err := eval.DecodeJSON([]byte(s), th.MaxValueBytes())
	if err != nil {
		return eval.ErrVal(eval.Str(err.Error()))
	}
	return eval.OkVal(v)
}

func jsonStringify(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(th.EncodeJSON(args[0]))
}

// ---- path ----

func pathJoin(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strArg(th, "path", "join", a)
	}
	return eval.Str(path.Join(parts...))
}

func pathBase(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(path.Base(strArg(th, "path", "base", args[0])))
}

func pathDir(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(path.Dir(strArg(th, "path", "dir", args[0])))
}

func pathExt(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(path.Ext(strArg(th, "path", "ext", args[0])))
}

// ---- time ----

func timeNowUnix(*eval.Thread, *Config, []eval.Value) eval.Value {
	return eval.Int(time.Now().Unix())
}
